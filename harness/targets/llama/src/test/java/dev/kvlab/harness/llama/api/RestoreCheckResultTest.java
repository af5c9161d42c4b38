package dev.kvlab.harness.llama.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The check-restore verdict rests on the recompute in the restore's own batches: a one-pass recompute that parts at a
 * near-tie (other batch shapes round differently) is the engine's noise floor, reported, not a failed restore; a
 * restore that differs from its same-batch recompute fails, in tokens or beyond the tolerance in logits.
 */
class RestoreCheckResultTest {

    static RestoreCheckResult.Prompt prompt(
            List<Integer> recompute, List<Integer> restored, List<Integer> sameSplit, double sameSplitDiff) {
        return new RestoreCheckResult.Prompt(
                100, 96, 1000, recompute, restored, sameSplit, 0.002, sameSplitDiff, 1, 1, 1, 1);
    }

    static RestoreCheckResult result(double tolerance, RestoreCheckResult.Prompt... ps) {
        return new RestoreCheckResult("m.gguf", "layout", 1024, 1024, 16, tolerance, List.of(ps));
    }

    @Test
    void aOnePassRecomputePartingAtANearTieIsNoFailure() {
        var p = prompt(List.of(1, 2, 3, 4), List.of(1, 2, 9, 9), List.of(1, 2, 9, 9), 0);
        RestoreCheckResult r = result(0, p);
        assertThat(r.allEqual()).isTrue();
        assertThat(p.crossBatchEqual()).isFalse();
        assertThat(p.crossBatchPartsAt()).isEqualTo(2);
        StringWriter w = new StringWriter();
        RestoreCheckReport.print(new PrintWriter(w, true), r);
        assertThat(w.toString())
                .contains("parts at token 3")
                .contains("not the restore")
                .startsWith("m.gguf")
                .contains("ok: 1 of 1");
        assertThat(RestoreCheckReport.of(r).ok()).isTrue();
    }

    @Test
    void aRestoreThatDiffersFromItsSameBatchRecomputeFails() {
        RestoreCheckResult tokens = result(0, prompt(List.of(1, 2, 3), List.of(1, 2, 3), List.of(1, 2, 4), 0));
        assertThat(tokens.allEqual()).isFalse();
        StringWriter w = new StringWriter();
        RestoreCheckReport.print(new PrintWriter(w, true), tokens);
        assertThat(w.toString()).contains("FAILED: 0 of 1").contains("same-batch recompute: [1, 2, 4]");
        // equal tokens, but logits apart: beyond the tolerance it fails, within it passes
        assertThat(result(0, prompt(List.of(1), List.of(1), List.of(1), 1e-3)).allEqual())
                .isFalse();
        assertThat(result(0.01, prompt(List.of(1), List.of(1), List.of(1), 1e-3))
                        .allEqual())
                .isTrue();
    }
}
