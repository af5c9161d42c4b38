package dev.kvlab.cli;

import dev.kvlab.harness.api.engine.EngineUnavailableException;
import dev.kvlab.harness.api.engine.RestoreCheckResult;
import dev.kvlab.harness.internal.JsonOutput;
import dev.kvlab.harness.internal.llama.LlamaLibrary;
import dev.kvlab.harness.internal.llama.RestoreCheck;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvlab engine check-restore}: a restored KV state continues exactly as a recompute does. */
@Command(name = "check-restore", mixinStandardHelpOptions = true,
        description = "For deterministic prompts: prefill, take the sequence's KV state, split it into blocks, assemble "
                + "and restore it, prefill the rest, greedy-decode; compare with greedy decoding after a plain "
                + "recompute. Prints the largest first-token logit difference. Exit 0 when every continuation is "
                + "equal, 1 otherwise, 2 for a bad model file or when the llama.cpp library cannot be installed or loaded.")
public final class CheckRestoreCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--model", required = true, paramLabel = "FILE", description = "GGUF model file") Path model;
    @Option(names = "--prompts", defaultValue = "5", description = "prompts [${DEFAULT-VALUE}]") int prompts;
    @Option(names = "--tokens", defaultValue = "32", description = "greedy tokens after each prompt [${DEFAULT-VALUE}]") int tokens;
    @Option(names = "--block-tokens", defaultValue = "16", description = "tokens per KV block [${DEFAULT-VALUE}]") int blockTokens;
    @Option(names = "--json", description = "print one JSON object") boolean json;

    @Override
    public Integer call() {
        LlamaLibrary lib;
        try {
            lib = LlamaLibrary.load();
        } catch (EngineUnavailableException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("kvlab: " + e.getMessage());
            err.flush();
            return Kvlab.EXIT_BAD_INPUT;
        }
        RestoreCheckResult r = RestoreCheck.run(lib, model, prompts, tokens, blockTokens);
        PrintWriter w = spec.commandLine().getOut();
        if (json) w.println(JsonOutput.write(toMap(r)));
        else print(w, r);
        w.flush();
        return r.allEqual() ? Kvlab.EXIT_OK : Kvlab.EXIT_FAILED;
    }

    private static void print(PrintWriter w, RestoreCheckResult r) {
        w.printf(Locale.ROOT, "%s: KV state %s; %,d B per token (layers x 2 x kv heads x head dim x 2 B = %,d%s), blocks of %d tokens%n",
                r.model(), r.layout(), r.kvBytesPerToken(), r.expectedKvBytesPerToken(),
                r.kvBytesPerToken() == r.expectedKvBytesPerToken() ? "" : ": not an f16 cache of that shape", r.blockTokens());
        int i = 0;
        for (RestoreCheckResult.Prompt p : r.prompts()) {
            w.printf(Locale.ROOT, "  prompt %d: %d tokens, %d restored from %d blocks (state %,d B; prefill %.1f ms, split %.2f ms, "
                            + "assemble %.2f ms, restore %.2f ms): %d-token continuation %s, first-token max |logit diff| %.3g "
                            + "(%s against a recompute in the same batches)%n",
                    ++i, p.tokens(), p.restoredTokens(), p.restoredTokens() / r.blockTokens(), p.stateBytes(), p.prefillMs(),
                    p.splitMs(), p.assembleMs(), p.restoreMs(), p.recompute().size(), p.equal() ? "equal" : "DIFFERS", p.maxLogitDiff(),
                    exact(p.sameSplitLogitDiff()));
            if (!p.equal()) {
                w.println("    recompute: " + p.recompute());
                w.println("    restored:  " + p.restored());
            }
        }
        long equal = r.prompts().stream().filter(RestoreCheckResult.Prompt::equal).count();
        w.printf(Locale.ROOT, "%s: %d of %d continuations equal after restore vs recompute; max first-token logit difference %.3g "
                        + "(%s against a recompute in the restore's batches)%n",
                r.allEqual() ? "ok" : "FAILED", equal, r.prompts().size(), r.maxLogitDiff(), exact(r.sameSplitLogitDiff()));
    }

    private static String exact(double d) {
        return d == 0 ? "0, bit-exact" : String.format(Locale.ROOT, "%.3g", d);
    }

    private static Map<String, Object> toMap(RestoreCheckResult r) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("model", r.model());
        o.put("ok", r.allEqual());
        o.put("max_logit_diff", r.maxLogitDiff());
        o.put("same_split_logit_diff", r.sameSplitLogitDiff());
        o.put("kv_layout", r.layout());
        o.put("kv_bytes_per_token", r.kvBytesPerToken());
        o.put("expected_kv_bytes_per_token", r.expectedKvBytesPerToken());
        o.put("block_tokens", r.blockTokens());
        List<Map<String, Object>> ps = new ArrayList<>();
        for (RestoreCheckResult.Prompt p : r.prompts()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("tokens", p.tokens());
            m.put("restored_tokens", p.restoredTokens());
            m.put("state_bytes", p.stateBytes());
            m.put("equal", p.equal());
            m.put("max_logit_diff", p.maxLogitDiff());
            m.put("same_split_logit_diff", p.sameSplitLogitDiff());
            m.put("prefill_ms", p.prefillMs());
            m.put("split_ms", p.splitMs());
            m.put("assemble_ms", p.assembleMs());
            m.put("restore_ms", p.restoreMs());
            m.put("recompute", p.recompute());
            m.put("restored", p.restored());
            ps.add(m);
        }
        o.put("prompts", ps);
        return o;
    }
}
