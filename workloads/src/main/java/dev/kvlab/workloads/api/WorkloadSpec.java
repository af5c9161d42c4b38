package dev.kvlab.workloads.api;

import java.util.List;
import java.util.Locale;

/**
 * What requests a run sends: a Mooncake trace or one of the seeded generators. Plain records with primitive and
 * String fields, so a config binder (Jackson) can build them; pick the record by {@link #kindOf(String)}.
 * A field left at 0 (or null) means its documented default. {@link #validate(String)} checks every field and names
 * it in snake_case, as config files spell it ({@code PREFIX.system_prompt_tokens: reason}; bind with Jackson's
 * {@code SNAKE_CASE} naming); {@link dev.kvlab.workloads.Workloads} validates before opening.
 *
 * <p>Block keys of generated prompts are chained with {@link BlockKeys#chain} from {@link Namespace#digest()}, so
 * the same text after a different prefix, or in another namespace, is a different key.
 */
public sealed interface WorkloadSpec
        permits WorkloadSpec.Trace,
                WorkloadSpec.Chat,
                WorkloadSpec.SharedPrefix,
                WorkloadSpec.DocQa,
                WorkloadSpec.Zipf {

    /** Largest number of requests a generator may produce. */
    long MAX_REQUESTS = 50_000_000L;
    /** Largest prompt a generator may produce, in tokens. */
    long MAX_PROMPT_TOKENS = 16_000_000L;

    /** {@code trace}, {@code chat}, {@code shared-prefix}, {@code doc-qa} or {@code zipf}. */
    String kind();

    /** Tokens per KV block. */
    int blockTokens();

    /** Throws a {@link WorkloadFormatException} naming the first bad field as {@code prefix.field}. */
    void validate(String prefix);

    /** The kind names, in documentation order. */
    List<String> KINDS = List.of("trace", "chat", "shared-prefix", "doc-qa", "zipf");

    /** The record type for a kind name (one of {@link #KINDS}; case-insensitive, {@code _} = {@code -}). */
    static Class<? extends WorkloadSpec> kindOf(String kind) {
        if (kind == null || kind.isBlank())
            throw new WorkloadFormatException("workload kind missing (one of " + KINDS + ")");
        return switch (kind.strip().toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "trace" -> Trace.class;
            case "chat" -> Chat.class;
            case "shared-prefix" -> SharedPrefix.class;
            case "doc-qa" -> DocQa.class;
            case "zipf" -> Zipf.class;
            default -> throw new WorkloadFormatException("unknown workload kind '" + kind + "' (one of " + KINDS + ")");
        };
    }

    /**
     * Replay of a Mooncake JSONL trace (see {@link TraceFormat} for the field policy).
     *
     * @param path                the trace file ({@code .gz} is decompressed)
     * @param blockTokens         tokens per block; 0 = the lines' {@code block_tokens}, else 512
     * @param ignoreUnknownFields skip unknown fields instead of rejecting the line
     * @param limit               read at most this many requests; 0 = all
     */
    record Trace(String path, int blockTokens, boolean ignoreUnknownFields, long limit) implements WorkloadSpec {
        public String kind() {
            return "trace";
        }

        public void validate(String prefix) {
            if (path == null || path.isBlank()) throw bad(prefix, "path", "missing (the trace file)");
            if (blockTokens < 0)
                throw bad(prefix, "block_tokens", "must be >= 1 (or 0 for the file's / 512), got " + blockTokens);
            if (limit < 0) throw bad(prefix, "limit", "must be >= 0 (0 = all), got " + limit);
        }
    }

    /**
     * Multi-turn chat (SGLang {@code bench_multiturn}, LMCache multi-round QA): {@code users} conversations of
     * {@code rounds} rounds. Round {@code r} of user {@code u} sends system prompt {@code u % systemPrompts}, the
     * user's context, the {@code r} earlier questions and answers, and a new question; it generates
     * {@code answerTokens}. Requests go round by round, users in a seeded random order within a round; session
     * {@code user-<u>}.
     *
     * @param users              conversations (>= 1)
     * @param rounds             rounds per conversation (>= 1)
     * @param systemPrompts      distinct system prompts shared by the users (>= 1; 0 = 1)
     * @param systemPromptTokens tokens of each system prompt (>= 0)
     * @param contextTokens      per-user context sent before the first question (>= 0)
     * @param questionTokens     tokens of each question (>= 1)
     * @param answerTokens       output tokens of each round, appended to the history (>= 1)
     * @param blockTokens        tokens per block (0 = 512)
     * @param lengthSpread       spread s of the question and answer tokens: each length n varies uniformly over
     *                           n(1 - s) .. n(1 + s), fixed by the content it belongs to (like vLLM's --random-range-ratio); 0 = none
     */
    record Chat(
            int users,
            int rounds,
            int systemPrompts,
            int systemPromptTokens,
            int contextTokens,
            int questionTokens,
            int answerTokens,
            int blockTokens,
            double lengthSpread)
            implements WorkloadSpec {
        public Chat {
            if (systemPrompts == 0) systemPrompts = 1;
            if (blockTokens == 0) blockTokens = TraceFormat.MOONCAKE_BLOCK_TOKENS;
        }

        /** Fixed lengths ({@code length_spread} 0). */
        public Chat(
                int users,
                int rounds,
                int systemPrompts,
                int systemPromptTokens,
                int contextTokens,
                int questionTokens,
                int answerTokens,
                int blockTokens) {
            this(
                    users,
                    rounds,
                    systemPrompts,
                    systemPromptTokens,
                    contextTokens,
                    questionTokens,
                    answerTokens,
                    blockTokens,
                    0);
        }

        public String kind() {
            return "chat";
        }

        public void validate(String prefix) {
            atLeast(prefix, "users", users, 1);
            atLeast(prefix, "rounds", rounds, 1);
            atLeast(prefix, "system_prompts", systemPrompts, 1);
            atLeast(prefix, "system_prompt_tokens", systemPromptTokens, 0);
            atLeast(prefix, "context_tokens", contextTokens, 0);
            atLeast(prefix, "question_tokens", questionTokens, 1);
            atLeast(prefix, "answer_tokens", answerTokens, 1);
            atLeast(prefix, "block_tokens", blockTokens, 1);
            spread(prefix, lengthSpread);
            checkRequests(prefix, "rounds", "users x rounds", (long) users * rounds);
            checkPrompt(
                    prefix,
                    "rounds",
                    "the last round's prompt",
                    (long) systemPromptTokens
                            + contextTokens
                            + (long) (rounds - 1)
                                    * (upper(questionTokens, lengthSpread) + upper(answerTokens, lengthSpread))
                            + upper(questionTokens, lengthSpread));
        }
    }

    /**
     * Shared-prefix groups: {@code groups} x {@code promptsPerGroup} prompts; a prompt is its group's prefix plus
     * its own suffix. Order {@code random} (seeded shuffle), {@code grouped} (a group's prompts back to back) or
     * {@code interleaved} (round-robin over groups). Session {@code group-<g>}.
     *
     * @param groups          groups (>= 1)
     * @param promptsPerGroup prompts per group (>= 1)
     * @param prefixTokens    shared prefix tokens (>= 0)
     * @param suffixTokens    per-prompt suffix tokens (>= 1)
     * @param outputTokens    output tokens (>= 1)
     * @param order           {@code random} (default), {@code grouped} or {@code interleaved}
     * @param blockTokens     tokens per block (0 = 512)
     * @param lengthSpread     spread s of the suffix and output tokens: each length n varies uniformly over
     *                         n(1 - s) .. n(1 + s), fixed by the content it belongs to (like vLLM's --random-range-ratio); 0 = none
     */
    record SharedPrefix(
            int groups,
            int promptsPerGroup,
            int prefixTokens,
            int suffixTokens,
            int outputTokens,
            String order,
            int blockTokens,
            double lengthSpread)
            implements WorkloadSpec {
        public static final List<String> ORDERS = List.of("random", "grouped", "interleaved");

        public SharedPrefix {
            if (order == null || order.isBlank()) order = "random";
            if (blockTokens == 0) blockTokens = TraceFormat.MOONCAKE_BLOCK_TOKENS;
        }

        /** Fixed lengths ({@code length_spread} 0). */
        public SharedPrefix(
                int groups,
                int promptsPerGroup,
                int prefixTokens,
                int suffixTokens,
                int outputTokens,
                String order,
                int blockTokens) {
            this(groups, promptsPerGroup, prefixTokens, suffixTokens, outputTokens, order, blockTokens, 0);
        }

        public String kind() {
            return "shared-prefix";
        }

        public void validate(String prefix) {
            atLeast(prefix, "groups", groups, 1);
            atLeast(prefix, "prompts_per_group", promptsPerGroup, 1);
            atLeast(prefix, "prefix_tokens", prefixTokens, 0);
            atLeast(prefix, "suffix_tokens", suffixTokens, 1);
            atLeast(prefix, "output_tokens", outputTokens, 1);
            atLeast(prefix, "block_tokens", blockTokens, 1);
            spread(prefix, lengthSpread);
            oneOf(prefix, "order", order, ORDERS);
            checkRequests(prefix, "prompts_per_group", "groups x prompts_per_group", (long) groups * promptsPerGroup);
            checkPrompt(
                    prefix,
                    "suffix_tokens",
                    "prefix_tokens + suffix_tokens",
                    prefixTokens + upper(suffixTokens, lengthSpread));
        }
    }

    /**
     * Long-document QA (LMCache {@code long_doc_qa}): {@code documents} documents of {@code documentTokens} tokens,
     * each asked {@code repeats} times; a prompt is the document plus a fresh question. The order sets the reuse
     * distance: {@code tile} (d1..dD, d1..dD, ...: distance D documents), {@code interleave} (d1 x repeats, d2 x
     * repeats, ...: distance 0), {@code random} (seeded shuffle). Session {@code doc-<d>}.
     *
     * @param documents      documents (>= 1)
     * @param documentTokens tokens per document (>= 1)
     * @param repeats        questions per document (>= 1)
     * @param questionTokens tokens per question (>= 1)
     * @param outputTokens   output tokens (>= 1)
     * @param order          {@code random} (default), {@code tile} or {@code interleave}
     * @param blockTokens    tokens per block (0 = 512)
     * @param lengthSpread    spread s of the question and output tokens: each length n varies uniformly over
     *                        n(1 - s) .. n(1 + s), fixed by the content it belongs to (like vLLM's --random-range-ratio); 0 = none
     */
    record DocQa(
            int documents,
            int documentTokens,
            int repeats,
            int questionTokens,
            int outputTokens,
            String order,
            int blockTokens,
            double lengthSpread)
            implements WorkloadSpec {
        public static final List<String> ORDERS = List.of("random", "tile", "interleave");

        public DocQa {
            if (order == null || order.isBlank()) order = "random";
            if (blockTokens == 0) blockTokens = TraceFormat.MOONCAKE_BLOCK_TOKENS;
        }

        /** Fixed lengths ({@code length_spread} 0). */
        public DocQa(
                int documents,
                int documentTokens,
                int repeats,
                int questionTokens,
                int outputTokens,
                String order,
                int blockTokens) {
            this(documents, documentTokens, repeats, questionTokens, outputTokens, order, blockTokens, 0);
        }

        public String kind() {
            return "doc-qa";
        }

        public void validate(String prefix) {
            atLeast(prefix, "documents", documents, 1);
            atLeast(prefix, "document_tokens", documentTokens, 1);
            atLeast(prefix, "repeats", repeats, 1);
            atLeast(prefix, "question_tokens", questionTokens, 1);
            atLeast(prefix, "output_tokens", outputTokens, 1);
            atLeast(prefix, "block_tokens", blockTokens, 1);
            spread(prefix, lengthSpread);
            oneOf(prefix, "order", order, ORDERS);
            checkRequests(prefix, "repeats", "documents x repeats", (long) documents * repeats);
            checkPrompt(
                    prefix,
                    "document_tokens",
                    "document_tokens + question_tokens",
                    documentTokens + upper(questionTokens, lengthSpread));
        }
    }

    /**
     * Zipf-popular prefixes: {@code requests} prompts, each one of {@code prefixes} shared prefixes drawn with
     * probability proportional to {@code 1 / rank^exponent} (seeded), plus a fresh suffix. Exponent 0 is uniform;
     * larger is more skewed. Session {@code prefix-<rank>}.
     *
     * @param prefixes     distinct prefixes (>= 1)
     * @param prefixTokens tokens per prefix (>= 1)
     * @param exponent     Zipf exponent (>= 0)
     * @param requests     requests (>= 1)
     * @param suffixTokens per-request suffix tokens (>= 1)
     * @param outputTokens output tokens (>= 1)
     * @param blockTokens  tokens per block (0 = 512)
     * @param lengthSpread  spread s of the suffix and output tokens: each length n varies uniformly over
     *                      n(1 - s) .. n(1 + s), fixed by the content it belongs to (like vLLM's --random-range-ratio); 0 = none
     */
    record Zipf(
            int prefixes,
            int prefixTokens,
            double exponent,
            int requests,
            int suffixTokens,
            int outputTokens,
            int blockTokens,
            double lengthSpread)
            implements WorkloadSpec {
        public static final int MAX_PREFIXES = 10_000_000;

        public Zipf {
            if (blockTokens == 0) blockTokens = TraceFormat.MOONCAKE_BLOCK_TOKENS;
        }

        /** Fixed lengths ({@code length_spread} 0). */
        public Zipf(
                int prefixes,
                int prefixTokens,
                double exponent,
                int requests,
                int suffixTokens,
                int outputTokens,
                int blockTokens) {
            this(prefixes, prefixTokens, exponent, requests, suffixTokens, outputTokens, blockTokens, 0);
        }

        public String kind() {
            return "zipf";
        }

        public void validate(String prefix) {
            atLeast(prefix, "prefixes", prefixes, 1);
            if (prefixes > MAX_PREFIXES)
                throw bad(prefix, "prefixes", "must be <= " + MAX_PREFIXES + ", got " + prefixes);
            atLeast(prefix, "prefix_tokens", prefixTokens, 1);
            if (!(exponent >= 0) || Double.isInfinite(exponent))
                throw bad(prefix, "exponent", "must be a number >= 0, got " + exponent);
            atLeast(prefix, "requests", requests, 1);
            atLeast(prefix, "suffix_tokens", suffixTokens, 1);
            atLeast(prefix, "output_tokens", outputTokens, 1);
            atLeast(prefix, "block_tokens", blockTokens, 1);
            spread(prefix, lengthSpread);
            checkRequests(prefix, "requests", "requests", requests);
            checkPrompt(
                    prefix,
                    "prefix_tokens",
                    "prefix_tokens + suffix_tokens",
                    prefixTokens + upper(suffixTokens, lengthSpread));
        }
    }

    private static WorkloadFormatException bad(String prefix, String field, String reason) {
        return new WorkloadFormatException(
                (prefix == null || prefix.isEmpty() ? "" : prefix + ".") + field + ": " + reason);
    }

    private static void atLeast(String prefix, String field, long value, long min) {
        if (value < min) throw bad(prefix, field, "must be >= " + min + ", got " + value);
    }

    private static void oneOf(String prefix, String field, String value, List<String> allowed) {
        if (!allowed.contains(value)) throw bad(prefix, field, "must be one of " + allowed + ", got '" + value + "'");
    }

    private static void spread(String prefix, double s) {
        if (!(s >= 0 && s < 1)) throw bad(prefix, "length_spread", "must be >= 0 and < 1, got " + s);
    }

    /** The longest a length of {@code n} tokens may become under spread {@code s}. */
    private static long upper(int n, double s) {
        return (long) Math.ceil(n * (1 + s));
    }

    private static void checkRequests(String prefix, String field, String what, long n) {
        if (n > MAX_REQUESTS) throw bad(prefix, field, what + " = " + n + " requests, more than " + MAX_REQUESTS);
    }

    private static void checkPrompt(String prefix, String field, String what, long tokens) {
        if (tokens > MAX_PROMPT_TOKENS)
            throw bad(prefix, field, what + " = " + tokens + " tokens, more than " + MAX_PROMPT_TOKENS);
    }
}
