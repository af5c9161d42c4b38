package dev.kvlab.harness.openai.internal;

import dev.kvlab.harness.api.input.BadInputException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code cache_state: cold} on a real engine, carried out and verified before anything is measured, claiming only
 * what it proved. One rule for "cached" throughout (the hot warm-up's too, {@link HotVerification}): a prompt is
 * cached when the engine reports more of it cached than the special tokens (a BOS) every prompt shares, and uncached
 * when at most those.
 * <ol>
 * <li><b>Size the probe from what the engine caches.</b> A probe prompt that shares nothing with the workload, sent as
 *     the target sends every request, goes until the engine reports it cached; an engine caching in larger units (an
 *     LMCache chunk, large pages) never caches a short one, so a probe that stays uncached is doubled (256 tokens, 512,
 *     ...) up to the workload's longest prompt (within the model's context). A target that caches none of them is
 *     cold for this workload by construction (it cannot hit prompts as long as the workload's), and that is recorded
 *     with the sizes tried.</li>
 * <li><b>Where the probe sits.</b> On llama.cpp (slots) other prompts then take every slot, pushing the probe below
 *     them (the host-RAM prompt cache, {@code --cache-ram}, when on), and a second probe is left in a slot. On other
 *     engines (a GPU prefix cache holds far more than a few prompts) the probe stays in the first tier, and the record
 *     says so; which tiers' counters saw it is recorded where {@code /metrics} splits them.</li>
 * <li><b>The reset</b> (llama.cpp: erase every slot; vLLM: {@code POST /reset_prefix_cache}; SGLang:
 *     {@code POST /flush_cache}; or the user's command, bounded by {@code target.reset_timeout}), then every probe must
 *     come back uncached, per response and in every tier counter the engine reports (a tier the reset misses, e.g. a
 *     KV connector's, shows there). Otherwise the run stops ({@link BadInputException}: exit 2 with the reason) instead
 *     of measuring a warm cache: vLLM answers 200 to a reset that did nothing (vLLM PR #12284), llama-server's host-RAM
 *     prompt cache survives an erase of every slot, SGLang's HiCache storage survives {@code /flush_cache}.</li>
 * </ol>
 */
final class CacheStateProtocol {

    /** Tokens of the first probe; doubled while the engine caches none. */
    static final int PROBE_TOKENS = 256;

    private static final int SENDS = 3;
    /** Hit counters of the tiers an engine reports in {@code /metrics}: none may grow by more than the special tokens after the reset. */
    private static final List<String[]> TIER_HITS = List.of(
            new String[] {"vllm prefix cache", "vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits"},
            new String[] {
                "vllm prefix cache (before 0.9.2)", "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"
            },
            new String[] {
                "vllm KV connector", "vllm:external_prefix_cache_hits_total", "vllm:external_prefix_cache_hits"
            },
            new String[] {"sglang cached tokens", "sglang:cached_tokens_total", "sglang:cached_tokens"},
            new String[] {"lmcache retrieval", "lmcache:num_hit_tokens_total", "lmcache:num_hit_tokens"});

    private final OpenAiConfig.Resolved target;
    private final EngineClient client;
    private final PromptText prompts;
    private final int longestPrompt, context;

    /**
     * @param longestPrompt the workload's longest prompt (tokens): the largest probe
     * @param context       the smallest endpoint's model context (tokens), or -1 when unknown
     */
    CacheStateProtocol(
            OpenAiConfig.Resolved target, EngineClient client, PromptText prompts, int longestPrompt, int context) {
        this.target = target;
        this.client = client;
        this.prompts = prompts;
        this.longestPrompt = longestPrompt;
        this.context = context;
    }

    /** What was done and how it was verified, for the manifest and the report. */
    record Verdict(String protocol, String verification) {}

    /** A probe the engine cached on one endpoint: its text, size and the cached tokens it reported. */
    private record Probe(String text, int tokens, int cached) {}

    /** Empties every endpoint's caches and proves it; {@code seed} makes the probes (never the workload's text). */
    Verdict cold(long seed) {
        int n = target.endpoints().size();
        List<Integer> sizes = sizes();
        PromMetrics unprobed = scrape();
        Probe[] low = new Probe[n];
        boolean any = false;
        for (int e = 0; e < n; e++) {
            low[e] = sized(target.endpoints().get(e), seed, sizes);
            any |= low[e] != null;
        }
        if (!any)
            return new Verdict(
                    "none needed",
                    "no probe was cached in " + SENDS + " sends to each endpoint at any size tried (" + sizes
                            + " tokens, up to the workload's longest prompt): the target caches no prompt as long as the workload's: cold by construction for this workload");
        List<String> notes = new ArrayList<>();
        Probe[] top = new Probe[n];
        for (int e = 0; e < n; e++) {
            URI u = target.endpoints().get(e);
            if (low[e] == null) {
                notes.add(u + ": caches no probe (" + sizes + " tokens)");
                continue;
            }
            List<Integer> slots = client.slots(u);
            if (slots.isEmpty()) {
                notes.add(u + ": probe of " + low[e].tokens + " tokens cached (" + low[e].cached
                        + " tokens), left in the engine's first tier"
                        + " (a GPU prefix cache holds far more than a few prompts: it is not pushed below)");
                continue;
            }
            int others = slots.size() + 1;
            for (int i = 1; i <= others; i++) probe(u, prompts.probe(seed + 7919L * i, low[e].tokens));
            String t = prompts.probe(seed + 1, low[e].tokens);
            probe(u, t);
            top[e] = new Probe(t, low[e].tokens, probe(u, t));
            notes.add(u + ": probes of " + low[e].tokens + " tokens cached (" + low[e].cached + " and " + top[e].cached
                    + " tokens); the first then" + " pushed out of the " + slots.size() + " slot(s) by " + others
                    + " other prompts");
        }
        PromMetrics before = scrape();
        String seen = tiersSeen(unprobed, before);
        String how = reset();
        for (int e = 0; e < n; e++) {
            URI u = target.endpoints().get(e);
            if (low[e] == null) continue;
            check(u, top[e], "left in the first tier", how);
            check(u, low[e], top[e] != null ? "pushed below the slots" : "left in the first tier", how);
            notes.set(e, notes.get(e) + "; uncached after the reset");
        }
        String tiers = tierCheck(before, scrape(), how);
        return new Verdict(how, "verified: " + String.join("; ", notes) + seen + tiers);
    }

    /** Which of the engine's tier counters counted hits while the probes were sent before the reset (where it reports them). */
    private String tiersSeen(PromMetrics from, PromMetrics to) {
        List<String> hit = new ArrayList<>(), not = new ArrayList<>();
        for (String[] tier : TIER_HITS) {
            PromMetrics.Delta d = PromMetrics.delta(from, to, null, tier[1], tier[2]);
            if (d == null || d.reset() != null) continue;
            if (d.total() > 0) hit.add(tier[0] + " " + (long) d.total());
            else not.add(tier[0]);
        }
        if (hit.isEmpty() && not.isEmpty()) return "";
        return "; before the reset the probes hit the engine's "
                + (hit.isEmpty() ? "no tier counter" : String.join(", ", hit) + " tokens")
                + (not.isEmpty()
                        ? ""
                        : "; its " + String.join(", ", not)
                                + " counted none (the probes never reached that tier: only the check after"
                                + " the reset speaks for it)");
    }

    /** The probe sizes: 256 tokens doubled up to the workload's longest prompt, within the model's context. */
    List<Integer> sizes() {
        int most = Math.max(PROBE_TOKENS, longestPrompt);
        if (context > 0) most = Math.min(most, Math.max(prompts.specialTokens() + 2, context - 8));
        List<Integer> out = new ArrayList<>();
        for (int s = Math.min(PROBE_TOKENS, most); ; s *= 2) {
            out.add(Math.min(s, most));
            if (s >= most) break;
        }
        return out;
    }

    /** The first probe the engine caches on {@code u}, trying each size {@link #SENDS} times; null when it caches none. */
    private Probe sized(URI u, long seed, List<Integer> sizes) {
        for (int k = 0; k < sizes.size(); k++) {
            String text = prompts.probe(seed + 104_729L * k, sizes.get(k));
            int cached = -1;
            for (int i = 0; i < SENDS; i++) {
                cached = probe(u, text);
                if (cached == StreamedCompletion.NOT_REPORTED)
                    throw new BadInputException(
                            "cache_state: cold cannot be verified on " + u + ": the engine reports no cached prompt "
                                    + "tokens per response (usage.prompt_tokens_details.cached_tokens or timings.cache_n); enable them "
                                    + "(vLLM: --enable-prompt-tokens-details; SGLang: --enable-cache-report) or run cache_state: hot");
                if (cached < 0 || cached > sizes.get(k))
                    throw new BadInputException(
                            "cache_state: cold cannot be verified on " + u + ": the engine reported " + cached
                                    + " cached tokens for a probe of " + sizes.get(k) + " tokens (impossible)");
                if (cached > prompts.specialTokens()) return new Probe(text, sizes.get(k), cached);
            }
        }
        return null;
    }

    /** {@code p} (null: none) must come back uncached on {@code u} after the reset. */
    private void check(URI u, Probe p, String where, String how) {
        if (p == null) return;
        int c = probe(u, p.text);
        if (c > prompts.specialTokens())
            throw new BadInputException(
                    "cache_state: cold: the reset (" + how + ") could not be verified on " + u + ": after it the probe "
                            + where + " came back with " + c + " of " + p.tokens + " prompt tokens cached" + hint(u));
    }

    /** Every tier counter the engines report may have grown by at most the special tokens per probe sent after the reset. */
    private String tierCheck(PromMetrics before, PromMetrics after, String how) {
        List<String> seen = new ArrayList<>();
        int allowed = 2 * target.endpoints().size() * prompts.specialTokens();
        for (String[] tier : TIER_HITS) {
            PromMetrics.Delta d = PromMetrics.delta(before, after, null, tier[1], tier[2]);
            if (d == null || d.reset() != null) continue;
            if (d.total() > allowed)
                throw new BadInputException("cache_state: cold: the reset (" + how
                        + ") could not be verified: after it the engine's " + tier[0]
                        + " counter (" + tier[1] + ") counted " + (long) d.total()
                        + " hit tokens for the probes (the reset did not reach that tier;"
                        + " give target.reset: command with a restart)");
            seen.add(tier[0]);
        }
        return seen.isEmpty()
                ? ""
                : "; no hits after the reset in the engine's tier counters (" + String.join(", ", seen) + ")";
    }

    private PromMetrics scrape() {
        List<PromMetrics> ms = new ArrayList<>();
        for (URI u : target.endpoints()) ms.add(PromMetrics.parse(client.metrics(u)));
        return PromMetrics.of(ms);
    }

    private String hint(URI u) {
        OpenAiConfig.Reset r = target.reset() == OpenAiConfig.Reset.AUTO ? auto(u) : target.reset();
        return switch (r) {
            case LLAMA_CPP ->
                " (llama-server's host-RAM prompt cache, --cache-ram, on by default, survives erasing every slot: start it with"
                        + " --cache-ram 0, or run cache_state: hot)";
            case COMMAND ->
                " (target.reset_command exited 0 but did not empty the engine's caches: it must restart, or empty every tier of, the"
                        + " server at this endpoint)";
            default ->
                " (the engine keeps another cache tier the reset does not reach, e.g. a KV connector's or HiCache's storage: give"
                        + " target.reset: command with a restart)";
        };
    }

    private OpenAiConfig.Reset auto(URI u) {
        return switch (EngineKind.of(client, u)) {
            case LLAMA_CPP -> OpenAiConfig.Reset.LLAMA_CPP;
            case VLLM -> OpenAiConfig.Reset.VLLM;
            case SGLANG -> OpenAiConfig.Reset.SGLANG;
            case UNKNOWN ->
                throw new BadInputException("cache_state: cold: cannot tell which engine serves " + u
                        + " (no llama.cpp /props, vLLM /version or SGLang /get_server_info): give target.reset");
        };
    }

    /** Runs the reset on every endpoint; what it did, in words. */
    private String reset() {
        List<String> done = new ArrayList<>();
        for (URI u : target.endpoints()) {
            OpenAiConfig.Reset r = target.reset() == OpenAiConfig.Reset.AUTO ? auto(u) : target.reset();
            switch (r) {
                case LLAMA_CPP -> {
                    List<Integer> slots = client.slots(u);
                    if (slots.isEmpty())
                        throw new BadInputException("cache_state: cold: " + u
                                + " lists no slots (GET /slots): start llama-server with --slots");
                    for (int id : slots) {
                        EngineClient.Reply rep = client.post(u, "/slots/" + id + "?action=erase", null);
                        if (!rep.ok())
                            throw new BadInputException(
                                    "cache_state: cold: erasing slot " + id + " of " + u + " was refused: "
                                            + (rep.unreachable()
                                                    ? rep.error()
                                                    : "http " + rep.status() + " " + abbreviate(rep.body()))
                                            + " (llama-server needs --slot-save-path for slot actions)");
                    }
                    done.add(u + ": erased " + slots.size() + " slots");
                }
                case VLLM, SGLANG -> {
                    String path = r == OpenAiConfig.Reset.VLLM ? "/reset_prefix_cache" : "/flush_cache";
                    EngineClient.Reply rep = client.post(u, path, null);
                    if (!rep.ok())
                        throw new BadInputException("cache_state: cold: POST " + u + path + " answered "
                                + (rep.unreachable()
                                        ? rep.error()
                                        : "http " + rep.status() + " " + abbreviate(rep.body())));
                    done.add(u + ": POST " + path);
                }
                case COMMAND -> {
                    runCommand(target.resetCommand());
                    awaitHealthy(u);
                    done.add("command '" + target.resetCommand() + "'");
                }
                case AUTO -> throw new IllegalStateException();
            }
        }
        return String.join("; ", done);
    }

    /** Runs {@code cmd}, saying so on stderr and every minute it keeps running, killed after {@code target.reset_timeout}. */
    private void runCommand(String cmd) {
        long limit = target.resetTimeout().toNanos(), t0 = System.nanoTime();
        System.err.println("kvlab: cache_state: cold: running target.reset_command (target.reset_timeout "
                + human(limit) + "): " + cmd);
        try {
            Process p = new ProcessBuilder("sh", "-c", cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            while (true) {
                long left = limit - (System.nanoTime() - t0);
                if (left <= 0) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new BadInputException("cache_state: cold: target.reset_command did not finish in "
                            + human(limit) + " (target.reset_timeout; killed): " + cmd);
                }
                if (p.waitFor(Math.min(left, TimeUnit.MINUTES.toNanos(1)), TimeUnit.NANOSECONDS)) break;
                System.err.println("kvlab: cache_state: cold: target.reset_command still running after "
                        + human(System.nanoTime() - t0) + ": " + cmd);
            }
            if (p.exitValue() != 0)
                throw new BadInputException(
                        "cache_state: cold: target.reset_command exited " + p.exitValue() + ": " + cmd);
        } catch (java.io.IOException e) {
            throw new BadInputException("cache_state: cold: cannot run target.reset_command: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the cache reset", e);
        }
    }

    private static String human(long nanos) {
        long s = Math.round(nanos / 1e9);
        return s >= 60 && s % 60 == 0 ? s / 60 + " min" : s + " s";
    }

    private void awaitHealthy(URI u) {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < end) {
            if (OpenAiTarget.health(client, u) == null) return;
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new BadInputException("cache_state: cold: " + u + " is not healthy 5 minutes after target.reset_command");
    }

    /** Sends the probe as every request is sent; the cached prompt tokens the engine reported ({@link StreamedCompletion#NOT_REPORTED}: none). */
    int probe(URI u, String text) {
        StreamedCompletion.Outcome o;
        try {
            o = client.complete(
                            u,
                            target.path(),
                            EngineServer.body(target, 1, text),
                            target.timeout(),
                            target.api() == OpenAiConfig.Api.CHAT)
                    .outcome();
        } catch (TimeoutException e) {
            throw new BadInputException(
                    "cache_state: the probe request to " + u + " did not finish: " + EngineClient.reason(e));
        }
        if (o.error() != null)
            throw new BadInputException("cache_state: the probe request to " + u + " failed: " + o.error());
        return o.cachedTokens();
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() <= 200 ? t : t.substring(0, 200) + "...";
    }
}
