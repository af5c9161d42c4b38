package dev.kvlab.harness.llama.api;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A {@link RestoreCheckResult} as {@code kvlab engine check-restore} prints it: text, or name-value pairs for its JSON. */
public final class RestoreCheckReport {

    private RestoreCheckReport() {}

    /** The check as text: the state's layout, one line per prompt (and both continuations when they differ), the verdict. */
    public static void print(PrintWriter w, RestoreCheckResult r) {
        w.printf(
                Locale.ROOT,
                "%s: KV state %s; %,d B per token (layers x 2 x kv heads x head dim x 2 B = %,d%s), blocks of %d tokens%n",
                r.model(),
                r.layout(),
                r.kvBytesPerToken(),
                r.expectedKvBytesPerToken(),
                r.kvBytesPerToken() == r.expectedKvBytesPerToken() ? "" : ": not an f16 cache of that shape",
                r.blockTokens());
        int i = 0;
        for (RestoreCheckResult.Prompt p : r.prompts()) {
            w.printf(
                    Locale.ROOT,
                    "  prompt %d: %d tokens, %d restored from %d blocks (state %,d B; prefill %.1f ms, split %.2f ms, "
                            + "assemble %.2f ms, restore %.2f ms): %d-token continuation %s a recompute in the same batches, "
                            + "first-token max |logit diff| %s; against a one-pass recompute (other batches) %.3g, continuation %s%n",
                    ++i,
                    p.tokens(),
                    p.restoredTokens(),
                    p.restoredTokens() / r.blockTokens(),
                    p.stateBytes(),
                    p.prefillMs(),
                    p.splitMs(),
                    p.assembleMs(),
                    p.restoreMs(),
                    p.restored().size(),
                    r.ok(p) ? "equals" : "DIFFERS from",
                    exact(p.sameSplitLogitDiff()),
                    p.maxLogitDiff(),
                    p.crossBatchEqual()
                            ? "equal"
                            : "parts at token " + (p.crossBatchPartsAt() + 1)
                                    + " (floating-point noise of the batch shapes, not the restore)");
            if (!r.ok(p)) {
                w.println("    same-batch recompute: " + p.sameSplit());
                w.println("    restored:             " + p.restored());
            }
        }
        long ok = r.prompts().stream().filter(r::ok).count();
        long cross = r.prompts().stream()
                .filter(RestoreCheckResult.Prompt::crossBatchEqual)
                .count();
        w.printf(
                Locale.ROOT,
                "%s: %d of %d restores continue exactly as a recompute in the same batches (first-token logits %s, tolerance %s); "
                        + "the engine's own noise floor, a one-pass recompute in other batches: max first-token logit difference %.3g, "
                        + "%d of %d continuations equal%n",
                r.allEqual() ? "ok" : "FAILED",
                ok,
                r.prompts().size(),
                exact(r.sameSplitLogitDiff()),
                exact(r.tolerance()),
                r.maxLogitDiff(),
                cross,
                r.prompts().size());
    }

    private static String exact(double d) {
        return d == 0 ? "0, bit-exact" : String.format(Locale.ROOT, "%.3g", d);
    }

    /** The check as ordered name-value pairs (its JSON object). */
    public static Map<String, Object> map(RestoreCheckResult r) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("model", r.model());
        o.put("ok", r.allEqual());
        o.put("max_logit_diff", r.maxLogitDiff());
        o.put("same_split_logit_diff", r.sameSplitLogitDiff());
        o.put("kv_layout", r.layout());
        o.put("kv_bytes_per_token", r.kvBytesPerToken());
        o.put("expected_kv_bytes_per_token", r.expectedKvBytesPerToken());
        o.put("block_tokens", r.blockTokens());
        o.put("tolerance", r.tolerance());
        List<Map<String, Object>> ps = new ArrayList<>();
        for (RestoreCheckResult.Prompt p : r.prompts()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("tokens", p.tokens());
            m.put("restored_tokens", p.restoredTokens());
            m.put("state_bytes", p.stateBytes());
            m.put("ok", r.ok(p));
            m.put("equal", p.equal());
            m.put("cross_batch_equal", p.crossBatchEqual());
            m.put("max_logit_diff", p.maxLogitDiff());
            m.put("same_split_logit_diff", p.sameSplitLogitDiff());
            m.put("prefill_ms", p.prefillMs());
            m.put("split_ms", p.splitMs());
            m.put("assemble_ms", p.assembleMs());
            m.put("restore_ms", p.restoreMs());
            m.put("recompute", p.recompute());
            m.put("restored", p.restored());
            m.put("same_split", p.sameSplit());
            ps.add(m);
        }
        o.put("prompts", ps);
        return o;
    }
}
