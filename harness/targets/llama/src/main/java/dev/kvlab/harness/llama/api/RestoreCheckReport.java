package dev.kvlab.harness.llama.api;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * A {@link RestoreCheckResult} as {@code kvlab engine check-restore --json} prints it (the verdict, the KV layout and
 * sizes, the tolerance, one {@link PromptReport} per prompt, in this order); {@link #print} prints the result as text.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record RestoreCheckReport(
        String model,
        boolean ok,
        double maxLogitDiff,
        double sameSplitLogitDiff,
        String kvLayout,
        long kvBytesPerToken,
        long expectedKvBytesPerToken,
        int blockTokens,
        double tolerance,
        List<PromptReport> prompts) {

    public RestoreCheckReport {
        prompts = List.copyOf(prompts);
    }

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

    /** The check {@code r} as its JSON object. */
    public static RestoreCheckReport of(RestoreCheckResult r) {
        return new RestoreCheckReport(
                r.model(),
                r.allEqual(),
                r.maxLogitDiff(),
                r.sameSplitLogitDiff(),
                r.layout(),
                r.kvBytesPerToken(),
                r.expectedKvBytesPerToken(),
                r.blockTokens(),
                r.tolerance(),
                r.prompts().stream().map(p -> PromptReport.of(r, p)).toList());
    }

    /** One prompt of the check as its JSON object: its lengths, verdicts, logit differences, times and continuations. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record PromptReport(
            int tokens,
            int restoredTokens,
            long stateBytes,
            boolean ok,
            boolean equal,
            boolean crossBatchEqual,
            double maxLogitDiff,
            double sameSplitLogitDiff,
            double prefillMs,
            double splitMs,
            double assembleMs,
            double restoreMs,
            List<Integer> recompute,
            List<Integer> restored,
            List<Integer> sameSplit) {

        /** Prompt {@code p} of check {@code r}. */
        static PromptReport of(RestoreCheckResult r, RestoreCheckResult.Prompt p) {
            return new PromptReport(
                    p.tokens(),
                    p.restoredTokens(),
                    p.stateBytes(),
                    r.ok(p),
                    p.equal(),
                    p.crossBatchEqual(),
                    p.maxLogitDiff(),
                    p.sameSplitLogitDiff(),
                    p.prefillMs(),
                    p.splitMs(),
                    p.assembleMs(),
                    p.restoreMs(),
                    p.recompute(),
                    p.restored(),
                    p.sameSplit());
        }
    }
}
