package dev.kvlab.harness.llama.api;

import java.util.List;

/**
 * What {@code kvlab engine check-restore} found: for each prompt, the greedy continuation after restoring the prompt's
 * KV state through the block split and assembly and prefilling only the tail, against the one after a recompute of
 * the same tokens in the same batches (prefix, then tail): the verdict, since nothing but the restore differs between
 * them. Beside it, the continuation after a plain prefill of the whole prompt in other batches, whose float sums round
 * differently (llama.cpp's kernels by batch size): that difference is the engine's own floating-point noise floor,
 * reported, not judged (a greedy choice at a near-tie of random weights can flip on it).
 *
 * @param model the GGUF file
 * @param layout the KV state layout, in words
 * @param kvBytesPerToken KV payload bytes per token in the state
 * @param expectedKvBytesPerToken layers × 2 × KV heads × head dim × 2 (f16) from the model's shape
 * @param blockTokens tokens per block
 * @param tolerance the largest first-token logit difference against the same-batch recompute that passes (0: bit-exact)
 * @param prompts one entry per prompt
 */
public record RestoreCheckResult(
        String model,
        String layout,
        long kvBytesPerToken,
        long expectedKvBytesPerToken,
        int blockTokens,
        double tolerance,
        List<Prompt> prompts) {

    public RestoreCheckResult {
        prompts = List.copyOf(prompts);
    }

    /**
     * One prompt's comparison.
     *
     * @param tokens prompt tokens
     * @param restoredTokens tokens whose KV came from the restored blocks
     * @param stateBytes bytes of the full prompt's sequence state
     * @param recompute greedy continuation after prefilling the whole prompt in one pass (other batches: the noise floor)
     * @param restored greedy continuation after restore + prefill of the tail
     * @param sameSplit greedy continuation after a recompute in the restore's batches (prefix, then tail): the reference
     * @param maxLogitDiff largest |difference| of the first token's logits, restore vs recompute of the whole prompt
     * @param sameSplitLogitDiff the same against a recompute in the restore's batches (prefix, then tail): the
     *     restore's own error, 0 when the restored KV is bit-exact
     * @param prefillMs prefill of the whole prompt
     * @param splitMs splitting the state into blocks
     * @param assembleMs assembling the blocks into a state
     * @param restoreMs {@code llama_state_seq_set_data}
     */
    public record Prompt(
            int tokens,
            int restoredTokens,
            long stateBytes,
            List<Integer> recompute,
            List<Integer> restored,
            List<Integer> sameSplit,
            double maxLogitDiff,
            double sameSplitLogitDiff,
            double prefillMs,
            double splitMs,
            double assembleMs,
            double restoreMs) {
        public Prompt {
            recompute = List.copyOf(recompute);
            restored = List.copyOf(restored);
            sameSplit = List.copyOf(sameSplit);
        }

        /** The restored continuation equals the same-batch recompute's (the verdict's half on tokens). */
        public boolean equal() {
            return sameSplit.equals(restored);
        }

        /** The restored continuation equals the one-pass recompute's (informative: other batches round differently). */
        public boolean crossBatchEqual() {
            return recompute.equals(restored);
        }

        /** Index of the first token where the one-pass recompute and the restore part, -1 if they do not. */
        public int crossBatchPartsAt() {
            for (int i = 0; i < Math.min(recompute.size(), restored.size()); i++)
                if (!recompute.get(i).equals(restored.get(i))) return i;
            return recompute.size() == restored.size() ? -1 : Math.min(recompute.size(), restored.size());
        }
    }

    /** The verdict of one prompt: continuation equal to the same-batch recompute's, first-token logits within the tolerance. */
    public boolean ok(Prompt p) {
        return p.equal() && p.sameSplitLogitDiff() <= tolerance;
    }

    /** Every prompt's restore matches its same-batch recompute. */
    public boolean allEqual() {
        return prompts.stream().allMatch(this::ok);
    }

    /** The largest first-token logit difference over the prompts, restore vs recompute of the whole prompt. */
    public double maxLogitDiff() {
        return prompts.stream().mapToDouble(Prompt::maxLogitDiff).max().orElse(0);
    }

    /** The largest first-token logit difference over the prompts, restore vs recompute in the same batches. */
    public double sameSplitLogitDiff() {
        return prompts.stream().mapToDouble(Prompt::sameSplitLogitDiff).max().orElse(0);
    }
}
