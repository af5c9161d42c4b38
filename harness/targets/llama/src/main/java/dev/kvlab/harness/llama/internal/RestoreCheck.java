package dev.kvlab.harness.llama.internal;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.llama.api.RestoreCheckResult;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Restore equals recompute, on a real engine: for each deterministic prompt, prefill it, take the sequence's KV
 * state, greedy-decode (the recompute side); then clear, split the state into blocks, assemble all full blocks that
 * leave at least one prompt token, restore them, prefill only the rest, greedy-decode (the restore side); then clear,
 * recompute the same tokens in the restore's two batches (prefix, then tail) and greedy-decode (the reference). The
 * verdict compares the restore with the reference: the same batches, so any difference is the restore's own (a
 * bit-exact restore gives identical logits and tokens). The one-pass recompute is reported beside it as the engine's
 * floating-point noise floor: llama.cpp's matrix kernels round differently for different batch sizes, and a greedy
 * choice at a near-tie of random weights can part on it (measured: 0.002 apart on a 6-layer synthesized model,
 * parting at the 20th token), which says nothing about the restore.
 */
public final class RestoreCheck {
    private RestoreCheck() {}

    private static final String[] WORDS = {
        "the",
        "cache",
        "of",
        "keys",
        "and",
        "values",
        "moves",
        "from",
        "one",
        "node",
        "to",
        "another",
        "when",
        "a",
        "prefix",
        "is",
        "shared",
        "by",
        "many",
        "requests",
        "store",
        "block",
        "fetch",
        "recompute",
        "link",
        "token",
        "model",
        "layer",
        "engine",
        "memory"
    };

    /** Prompt {@code i} (from 0) of the check: about {@code 24 + 12·i} words, the same on every run. */
    public static String prompt(int i) {
        SplittableRandom r = new SplittableRandom(2300 + i);
        StringBuilder sb = new StringBuilder();
        int words = 24 + 12 * i;
        for (int w = 0; w < words; w++) sb.append(w == 0 ? "" : " ").append(WORDS[r.nextInt(WORDS.length)]);
        return sb.toString();
    }

    /** Runs the check on {@code modelFile} with one thread; bit-exact restores pass. */
    public static RestoreCheckResult run(LlamaLibrary lib, Path modelFile, int prompts, int tokens, int blockTokens) {
        return run(lib, modelFile, prompts, tokens, blockTokens, 0);
    }

    /** Runs the check on {@code modelFile} with one thread; restores within {@code tolerance} of the same-batch recompute pass. */
    public static RestoreCheckResult run(
            LlamaLibrary lib, Path modelFile, int prompts, int tokens, int blockTokens, double tolerance) {
        if (!(tolerance >= 0) || Double.isInfinite(tolerance))
            throw new BadInputException("--tolerance: must be a finite number >= 0, got " + tolerance);
        if (prompts < 1) throw new BadInputException("--prompts: must be at least 1, got " + prompts);
        if (tokens < 1) throw new BadInputException("--tokens: must be at least 1, got " + tokens);
        if (blockTokens < 1) throw new BadInputException("--block-tokens: must be at least 1, got " + blockTokens);
        try (LlamaModel model = LlamaModel.load(lib, modelFile)) {
            List<int[]> promptTokens = new ArrayList<>();
            for (int i = 0; i < prompts; i++) promptTokens.add(model.tokenize(prompt(i), true));
            int longest = promptTokens.stream().mapToInt(t -> t.length).max().orElseThrow();
            int nCtx = (longest + tokens + 63) / 64 * 64;
            List<RestoreCheckResult.Prompt> out = new ArrayList<>();
            String layout = "";
            long bytesPerToken = 0;
            try (LlamaContext ctx = model.newContext(LlamaContext.Options.of(nCtx))) {
                for (int[] p : promptTokens) {
                    if (p.length <= blockTokens)
                        throw new BadInputException("--block-tokens: " + blockTokens
                                + " leaves no full block before a prompt's last token (" + p.length + " tokens)");
                    One one = one(ctx, p, tokens, blockTokens);
                    out.add(one.prompt());
                    layout = one.layout().describe();
                    bytesPerToken = one.layout().bytesPerToken();
                }
            }
            return new RestoreCheckResult(
                    modelFile.toString(),
                    layout,
                    bytesPerToken,
                    model.kvBytesPerTokenF16(),
                    blockTokens,
                    tolerance,
                    out);
        }
    }

    private record One(RestoreCheckResult.Prompt prompt, KvStateLayout layout) {}

    private static One one(LlamaContext ctx, int[] p, int tokens, int blockTokens) {
        int seq = 0;
        int n = p.length;
        ctx.clear();
        long t0 = System.nanoTime();
        float[] recomputeLogits = ctx.prefill(seq, p, 0, n, 0);
        double prefillMs = ms(t0);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = ctx.state(seq, a);
            int[] recompute = ctx.greedy(seq, recomputeLogits, n, tokens);

            ctx.clear();
            long t1 = System.nanoTime();
            KvStateCodec.Parsed parsed = KvStateCodec.parse(state);
            if (parsed.tokens() != n)
                throw new IllegalStateException("the state holds " + parsed.tokens() + " tokens, the prompt " + n);
            int blocks = (n - 1) / blockTokens;
            List<MemorySegment> pieces = new ArrayList<>(blocks);
            for (int b = 0; b < blocks; b++) {
                MemorySegment dst = a.allocate(KvStateCodec.blockBytes(parsed.layout(), blockTokens), 16);
                KvStateCodec.copyBlock(parsed, state, blockTokens, b, dst);
                pieces.add(dst);
            }
            double splitMs = ms(t1);
            long t2 = System.nanoTime();
            MemorySegment assembled = KvStateCodec.assemble(parsed.layout(), blockTokens, pieces, a);
            double assembleMs = ms(t2);
            long t3 = System.nanoTime();
            ctx.restore(seq, assembled);
            double restoreMs = ms(t3);
            int restoredTokens = blocks * blockTokens;
            if (ctx.maxPos(seq) != restoredTokens - 1)
                throw new IllegalStateException("after the restore the sequence ends at position " + ctx.maxPos(seq)
                        + ", expected " + (restoredTokens - 1));
            float[] restoreLogits = ctx.prefill(seq, p, restoredTokens, n, restoredTokens);
            int[] restored = ctx.greedy(seq, restoreLogits, n, tokens);

            // the same tokens recomputed in the restore's two batches: any difference left would be the restore's own
            ctx.clear();
            ctx.prefill(seq, p, 0, restoredTokens, 0);
            float[] sameSplitLogits = ctx.prefill(seq, p, restoredTokens, n, restoredTokens);
            int[] sameSplit = ctx.greedy(seq, sameSplitLogits, n, tokens);
            return new One(
                    new RestoreCheckResult.Prompt(
                            n,
                            restoredTokens,
                            state.byteSize(),
                            boxed(recompute),
                            boxed(restored),
                            boxed(sameSplit),
                            maxAbsDiff(recomputeLogits, restoreLogits),
                            maxAbsDiff(sameSplitLogits, restoreLogits),
                            prefillMs,
                            splitMs,
                            assembleMs,
                            restoreMs),
                    parsed.layout());
        }
    }

    static double maxAbsDiff(float[] a, float[] b) {
        double d = 0;
        for (int i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
        return d;
    }

    private static List<Integer> boxed(int[] v) {
        return IntStream.of(v).boxed().toList();
    }

    private static double ms(long since) {
        return (System.nanoTime() - since) / 1e6;
    }
}
