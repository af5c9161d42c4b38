package dev.kvlab.harness.api.engine;

import java.util.List;

/**
 * What {@code kvlab engine check-restore} found: for each prompt, the greedy continuation after a plain prefill
 * (recompute) against the one after restoring the prompt's KV state through the block split and assembly and
 * prefilling only the tail, and the largest logit difference of the first token after either.
 *
 * @param model the GGUF file
 * @param layout the KV state layout, in words
 * @param kvBytesPerToken KV payload bytes per token in the state
 * @param expectedKvBytesPerToken layers × 2 × KV heads × head dim × 2 (f16) from the model's shape
 * @param blockTokens tokens per block
 * @param prompts one entry per prompt
 */
public record RestoreCheckResult(String model, String layout, long kvBytesPerToken, long expectedKvBytesPerToken,
                                 int blockTokens, List<Prompt> prompts) {

    public RestoreCheckResult {
        prompts = List.copyOf(prompts);
    }

    /**
     * One prompt's comparison.
     *
     * @param tokens prompt tokens
     * @param restoredTokens tokens whose KV came from the restored blocks
     * @param stateBytes bytes of the full prompt's sequence state
     * @param recompute greedy continuation after prefilling the whole prompt
     * @param restored greedy continuation after restore + prefill of the tail
     * @param maxLogitDiff largest |difference| of the first token's logits, restore vs recompute of the whole prompt
     * @param sameSplitLogitDiff the same against a recompute in the restore's batches (prefix, then tail): the
     *     restore's own error, 0 when the restored KV is bit-exact
     * @param prefillMs prefill of the whole prompt
     * @param splitMs splitting the state into blocks
     * @param assembleMs assembling the blocks into a state
     * @param restoreMs {@code llama_state_seq_set_data}
     */
    public record Prompt(int tokens, int restoredTokens, long stateBytes, List<Integer> recompute, List<Integer> restored,
                         double maxLogitDiff, double sameSplitLogitDiff, double prefillMs, double splitMs, double assembleMs, double restoreMs) {
        public Prompt {
            recompute = List.copyOf(recompute);
            restored = List.copyOf(restored);
        }

        public boolean equal() { return recompute.equals(restored); }
    }

    /** Every prompt's continuations are equal. */
    public boolean allEqual() {
        return prompts.stream().allMatch(Prompt::equal);
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
