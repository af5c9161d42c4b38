package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.transport.api.DurationSpec;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The {@code openai} target's block of a run config: one or more OpenAI-compatible HTTP endpoints (vLLM, SGLang,
 * llama.cpp's llama-server, ...), one engine instance each.
 *
 * @param kind       {@code openai}
 * @param endpoints  base URLs ({@code http://127.0.0.1:8080}); the API paths are appended
 * @param model      the served model name sent in every request ({@code default} where the server ignores it)
 * @param api        {@code completions} ({@code /v1/completions}, the prompt as text: exact token counts) or {@code chat}
 *                   ({@code /v1/chat/completions}: the engine's chat template adds its own tokens)
 * @param routing    {@code round-robin} | {@code session} (a conversation stays on one endpoint) | {@code least-outstanding}
 * @param extraBody  merged into every request body (e.g. {@code {cache_prompt: false}} for llama.cpp)
 * @param timeout    a request not finished this long after it was sent fails (counted, never as fast)
 * @param reset      how {@code cache_state: cold} empties the engine's caches: {@code auto} (by the server's kind),
 *                   {@code llama.cpp} (erase every slot), {@code vllm} ({@code POST /reset_prefix_cache}), {@code sglang}
 *                   ({@code POST /flush_cache}), {@code command} ({@code reset_command}, e.g. a restart)
 * @param resetCommand a shell command run once per cold cell when {@code reset} is {@code command}
 * @param resetTimeout how long {@code reset_command} may run (default 10m); a command still running then is killed and the run stops
 * @param ignoreEos  sends {@code ignore_eos: true} so that every request generates the workload's output length
 * @param gguf       the served model's GGUF, for its twin's shape (default: the file llama-server names in /props, where this machine has it)
 * @param pricePerHour what one endpoint's engine costs per hour (capacity rows then give the cost per million output tokens within the SLO)
 * @param requestShard {@code K/N}: send only this host's share of the requests ({@link dev.kvlab.harness.api.run.RequestSplit}; set by
 *                   {@code kvlab run --shard K/N --split requests}); absent: the whole stream
 */
public record OpenAiConfig(
        String kind,
        List<String> endpoints,
        String model,
        String api,
        String routing,
        JsonNode extraBody,
        String timeout,
        String reset,
        String resetCommand,
        Boolean ignoreEos,
        String requestShard,
        String resetTimeout,
        String gguf,
        Double pricePerHour) {

    /** The request API. */
    public enum Api {
        COMPLETIONS,
        CHAT
    }

    /** How requests are spread over the endpoints. */
    public enum Routing {
        ROUND_ROBIN,
        SESSION,
        LEAST_OUTSTANDING
    }

    /** The reset of {@code cache_state: cold}. */
    public enum Reset {
        AUTO,
        LLAMA_CPP,
        VLLM,
        SGLANG,
        COMMAND
    }

    /** A validated form of this block; {@link BadInputException} naming {@code origin.apply(key)} and the key. */
    public Resolved resolve(Function<String, String> origin) {
        if (endpoints == null || endpoints.isEmpty())
            throw bad(origin, "target.endpoints", "give at least one endpoint URL (http://HOST:PORT)");
        List<URI> uris = new java.util.ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            String e = endpoints.get(i);
            URI u;
            try {
                u = URI.create(e == null ? "" : e.strip().replaceAll("/+$", ""));
            } catch (IllegalArgumentException x) {
                throw bad(origin, "target.endpoints", "'" + e + "' is not a URL: " + x.getMessage());
            }
            if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())
                    || u.getHost() == null
                    || u.getPort() == 0)
                throw bad(origin, "target.endpoints", "'" + e + "' is not an http(s)://HOST:PORT URL");
            if (uris.contains(u)) throw bad(origin, "target.endpoints", "'" + e + "' is listed twice");
            uris.add(u);
        }
        if (model == null || model.isBlank())
            throw bad(origin, "target.model", "give the served model name (default where the server ignores it)");
        Api a = parse(Api.class, api == null ? "completions" : api, origin, "target.api");
        Routing r = parse(Routing.class, routing == null ? "round-robin" : routing, origin, "target.routing");
        Reset rs = parse(Reset.class, reset == null ? "auto" : reset, origin, "target.reset");
        if (rs == Reset.COMMAND && (resetCommand == null || resetCommand.isBlank()))
            throw bad(origin, "target.reset_command", "reset: command needs the command to run");
        if (rs != Reset.COMMAND && resetCommand != null)
            throw bad(origin, "target.reset_command", "is read only with reset: command");
        if (rs != Reset.COMMAND && resetTimeout != null)
            throw bad(origin, "target.reset_timeout", "is read only with reset: command");
        Duration rt;
        try {
            rt = DurationSpec.parse(resetTimeout == null ? "10m" : resetTimeout);
        } catch (IllegalArgumentException x) {
            throw bad(origin, "target.reset_timeout", x.getMessage());
        }
        if (rt.isZero() || rt.isNegative() || rt.compareTo(Duration.ofHours(24)) > 0)
            throw bad(origin, "target.reset_timeout", "must be in (0, 24h], got " + resetTimeout);
        if (extraBody != null && !extraBody.isNull() && !extraBody.isObject())
            throw bad(origin, "target.extra_body", "must be a mapping (merged into every request body)");
        Duration t;
        try {
            t = DurationSpec.parse(timeout == null ? "60s" : timeout);
        } catch (IllegalArgumentException x) {
            throw bad(origin, "target.timeout", x.getMessage());
        }
        if (t.isZero() || t.compareTo(Duration.ofHours(24)) > 0)
            throw bad(origin, "target.timeout", "must be in (0, 24h], got " + timeout);
        ObjectNode extra = extraBody == null || extraBody.isNull()
                ? dev.kvlab.harness.api.ReportJson.mapper().createObjectNode()
                : ((ObjectNode) extraBody).deepCopy();
        Shard share = null;
        if (requestShard != null) {
            try {
                share = Shard.parse(requestShard);
            } catch (IllegalArgumentException x) {
                throw bad(
                        origin,
                        "target.request_shard",
                        "must be K/N (this host's share of every cell's requests, from 1), got '" + requestShard + "'");
            }
        }
        return new Resolved(
                List.copyOf(uris), model, a, r, extra, t, rs, resetCommand, ignoreEos == null || ignoreEos, share, rt);
    }

    /**
     * The block validated and typed.
     *
     * @param endpoints base URLs without a trailing slash
     * @param share     this host's share of the requests, or null (the whole stream)
     * @param resetTimeout how long {@code reset_command} may run
     */
    public record Resolved(
            List<URI> endpoints,
            String model,
            Api api,
            Routing routing,
            ObjectNode extraBody,
            Duration timeout,
            Reset reset,
            String resetCommand,
            boolean ignoreEos,
            Shard share,
            Duration resetTimeout) {

        /** The block with the default {@code reset_timeout} (10 minutes). */
        public Resolved(
                List<URI> endpoints,
                String model,
                Api api,
                Routing routing,
                ObjectNode extraBody,
                Duration timeout,
                Reset reset,
                String resetCommand,
                boolean ignoreEos,
                Shard share) {
            this(
                    endpoints,
                    model,
                    api,
                    routing,
                    extraBody,
                    timeout,
                    reset,
                    resetCommand,
                    ignoreEos,
                    share,
                    Duration.ofMinutes(10));
        }

        /** Whether this host resets and verifies a cold cache: it sends the whole stream, or is shard 1 of a request split. */
        public boolean resetsCache() {
            return share == null || share.index() == 1;
        }

        /** The path requests are posted to. */
        public String path() {
            return api == Api.CHAT ? "/v1/chat/completions" : "/v1/completions";
        }
    }

    static String label(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-').replace("llama-cpp", "llama.cpp");
    }

    private static <E extends Enum<E>> E parse(
            Class<E> type, String text, Function<String, String> origin, String key) {
        for (E e : type.getEnumConstants()) if (label(e).equals(text.strip().toLowerCase(Locale.ROOT))) return e;
        throw bad(
                origin,
                key,
                "'" + text + "' is not one of "
                        + String.join(
                                ", ",
                                java.util.Arrays.stream(type.getEnumConstants())
                                        .map(OpenAiConfig::label)
                                        .toList()));
    }

    static BadInputException bad(Function<String, String> origin, String key, String why) {
        String o = origin.apply(key);
        if (o == null) o = origin.apply("target");
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + why);
    }
}
