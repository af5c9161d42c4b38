package dev.kvlab.harness.internal.openai;

import dev.kvlab.harness.api.input.BadInputException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code cache_state: cold} on a real engine, carried out and verified before anything is measured. On every
 * endpoint a probe prompt that shares nothing with the workload, sent as the target sends every request, goes
 * until the engine reports it cached; other prompts then take the engine's slots, so that it sits in whatever tier lies
 * below them, and a second probe is cached in the first tier; then the reset runs (llama.cpp: erase every slot; vLLM:
 * {@code POST /reset_prefix_cache}; SGLang: {@code POST /flush_cache}; or the user's command) and the probe must
 * come back with no cached tokens, both probes. A target that never caches the probe (configured not to cache) is cold by
 * construction, and that is recorded. A reset that cannot be verified stops the run ({@link BadInputException}:
 * exit 2 with the reason) instead of measuring a warm cache: vLLM answers 200 to a reset that did nothing
 * (vLLM PR #12284), and llama-server's host-RAM prompt cache ({@code --cache-ram}, on by default) survives an
 * erase of every slot.
 */
final class CacheStateProtocol {

    /** Tokens of the probe prompt. */
    static final int PROBE_TOKENS = 256;
    private static final int SENDS = 3;

    private final OpenAiConfig.Resolved target;
    private final EngineClient client;
    private final EngineServer server;
    private final PromptText prompts;

    CacheStateProtocol(OpenAiConfig.Resolved target, EngineClient client, EngineServer server, PromptText prompts) {
        this.target = target;
        this.client = client;
        this.server = server;
        this.prompts = prompts;
    }

    /** What was done and how it was verified, for the manifest and the report. */
    record Verdict(String protocol, String verification) {}

    /**
     * Empties every endpoint's caches and proves it; {@code seed} makes the probes (never the workload's text). Two
     * probes: one pushed below the engine's first tier by other prompts that take its slots (where a host-RAM cache
     * or an offload connector keeps it), one left in the first tier; after the reset both must come back uncached.
     */
    Verdict cold(long seed) {
        String low = prompts.probe(seed, PROBE_TOKENS), top = prompts.probe(seed + 1, PROBE_TOKENS);
        int n = target.endpoints().size();
        List<String> notes = new ArrayList<>();
        boolean anyCached = false;
        int[] cachedLow = new int[n];
        for (int e = 0; e < n; e++) {
            URI u = target.endpoints().get(e);
            int cached = -1;
            for (int i = 0; i < SENDS; i++) {
                cached = probe(u, low);
                if (cached > prompts.specialTokens()) break;
            }
            cachedLow[e] = cached;
            if (cached < 0)
                throw new BadInputException("cache_state: cold cannot be verified on " + u + ": the engine reports no cached prompt "
                        + "tokens per response (usage.prompt_tokens_details.cached_tokens or timings.cache_n); enable them "
                        + "(vLLM: --enable-prompt-tokens-details) or run cache_state: hot");
            anyCached |= cached > prompts.specialTokens();
        }
        if (!anyCached)
            return new Verdict("none needed", "the probe (" + PROBE_TOKENS + " tokens) was never cached in " + SENDS
                    + " sends to each endpoint: the target does not cache it, cold by construction");
        for (int e = 0; e < n; e++) {
            URI u = target.endpoints().get(e);
            int others = Math.max(1, client.slots(u).size()) + 1;
            for (int i = 1; i <= others; i++) probe(u, prompts.probe(seed + 7919L * i, PROBE_TOKENS));
            probe(u, top);
            int cachedTop = probe(u, top);
            notes.add(u + ": probes cached " + cachedLow[e] + " and " + cachedTop + " tokens (one then pushed out of the "
                    + others + " slots' way by " + others + " other prompts)");
        }
        String how = reset();
        for (int e = 0; e < n; e++) {
            URI u = target.endpoints().get(e);
            int t = probe(u, top), l = probe(u, low);
            if (t != 0 || l != 0)
                throw new BadInputException("cache_state: cold: the reset (" + how + ") could not be verified on " + u + ": after it "
                        + (l != 0 ? "the probe pushed below the first tier came back with " + l : "the probe left in the first tier came back with " + t)
                        + " of " + PROBE_TOKENS + " prompt tokens cached" + hint(u));
            notes.set(e, notes.get(e) + "; both 0 after the reset");
        }
        return new Verdict(how, "verified: " + String.join("; ", notes));
    }

    private String hint(URI u) {
        return EngineKind.of(client, u) == EngineKind.LLAMA_CPP
                ? " (llama-server's host-RAM prompt cache, --cache-ram, survives erasing every slot: start it with --cache-ram 0, or run cache_state: hot)"
                : " (the engine keeps another cache tier the reset does not reach: give target.reset: command with a restart)";
    }

    /** Runs the reset on every endpoint; what it did, in words. */
    private String reset() {
        List<String> done = new ArrayList<>();
        for (URI u : target.endpoints()) {
            OpenAiConfig.Reset r = target.reset();
            if (r == OpenAiConfig.Reset.AUTO) {
                r = switch (EngineKind.of(client, u)) {
                    case LLAMA_CPP -> OpenAiConfig.Reset.LLAMA_CPP;
                    case VLLM -> OpenAiConfig.Reset.VLLM;
                    case SGLANG -> OpenAiConfig.Reset.SGLANG;
                    case UNKNOWN -> throw new BadInputException("cache_state: cold: cannot tell which engine serves " + u
                            + " (no llama.cpp /props, vLLM /version or SGLang /get_server_info): give target.reset");
                };
            }
            switch (r) {
                case LLAMA_CPP -> {
                    List<Integer> slots = client.slots(u);
                    if (slots.isEmpty())
                        throw new BadInputException("cache_state: cold: " + u + " lists no slots (GET /slots): start llama-server with --slots");
                    for (int id : slots) {
                        EngineClient.Reply rep = client.post(u, "/slots/" + id + "?action=erase", null);
                        if (!rep.ok())
                            throw new BadInputException("cache_state: cold: erasing slot " + id + " of " + u + " was refused: "
                                    + (rep.unreachable() ? rep.error() : "http " + rep.status() + " " + abbreviate(rep.body()))
                                    + " (llama-server needs --slot-save-path for slot actions)");
                    }
                    done.add(u + ": erased " + slots.size() + " slots");
                }
                case VLLM, SGLANG -> {
                    String path = r == OpenAiConfig.Reset.VLLM ? "/reset_prefix_cache" : "/flush_cache";
                    EngineClient.Reply rep = client.post(u, path, null);
                    if (!rep.ok()) throw new BadInputException("cache_state: cold: POST " + u + path + " answered "
                            + (rep.unreachable() ? rep.error() : "http " + rep.status() + " " + abbreviate(rep.body())));
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

    private void runCommand(String cmd) {
        try {
            Process p = new ProcessBuilder("sh", "-c", cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new BadInputException("cache_state: cold: target.reset_command did not finish in 10 minutes: " + cmd);
            }
            if (p.exitValue() != 0) throw new BadInputException("cache_state: cold: target.reset_command exited " + p.exitValue() + ": " + cmd);
        } catch (java.io.IOException e) {
            throw new BadInputException("cache_state: cold: cannot run target.reset_command: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the cache reset", e);
        }
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

    /** Sends the probe as every request is sent; the cached prompt tokens the engine reported (-1: none reported). */
    int probe(URI u, String text) {
        StreamedCompletion.Outcome o;
        try {
            o = client.complete(u, target.path(), EngineServer.body(target, 1, text), target.timeout(), target.api() == OpenAiConfig.Api.CHAT).outcome();
        } catch (TimeoutException e) {
            throw new BadInputException("cache_state: the probe request to " + u + " did not finish: " + EngineClient.reason(e));
        }
        if (o.error() != null) throw new BadInputException("cache_state: the probe request to " + u + " failed: " + o.error());
        return o.cachedTokens();
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() <= 200 ? t : t.substring(0, 200) + "...";
    }
}
