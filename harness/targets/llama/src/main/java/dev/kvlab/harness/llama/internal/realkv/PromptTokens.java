package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.workloads.api.Request;
import java.util.SplittableRandom;

/**
 * A request's prompt as token ids for a real engine: block {@code b}'s tokens are drawn (seeded) from its chained
 * block key, so requests that share a prefix of blocks share those tokens exactly and their KV is the same; ids are
 * drawn from {@code [FIRST, vocab)}, past the synthesized vocabularies' control tokens.
 */
final class PromptTokens {

    static final int FIRST = 3;

    private PromptTokens() {}

    static int[] of(Request r, int vocab) {
        int n = r.inputTokens(), b = r.blockTokens();
        int[] t = new int[n];
        for (int k = 0; k < r.blockKeys().length; k++) {
            SplittableRandom rng = new SplittableRandom(r.blockKeys()[k]);
            for (int i = k * b; i < Math.min(n, (k + 1) * b); i++) t[i] = FIRST + rng.nextInt(vocab - FIRST);
        }
        return t;
    }
}
