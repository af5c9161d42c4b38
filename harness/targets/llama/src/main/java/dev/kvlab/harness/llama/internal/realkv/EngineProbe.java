package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.llama.internal.KvStateCodec;
import dev.kvlab.harness.llama.internal.LlamaBatch;
import dev.kvlab.harness.llama.internal.LlamaContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Times what {@link EngineTimings} holds on one llama.cpp context (two sequences, unified KV, room for the long
 * context, the chunk and the decode steps), random tokens, after a warm-up, each figure the median of {@value #ROUNDS} rounds of the whole probe (in each
 * a median of three; the decode steps': of all of them). Sequence 0 holds the long context while passes behind it are timed (each removed again); a load is
 * what a fetch does after the store: the blocks (split from a prefilled state) assembled into a state, restored into
 * sequence 1, shared with sequence 0, sequence 1 removed. One use.
 */
final class EngineProbe {

    private static final int RUNS = 3;
    /**
     * Rounds of the whole probe, each figure the median of its rounds: a figure timed in one burst takes whatever else the
     * machine did then (a JIT compiling, the harness starting, the other instances' probes in another phase); measured, one
     * round of three runs gave a 256-token prefill of 25, 35 and 46 ms on the same quiet machine in three cells' starts.
     */
    static final int ROUNDS = 3;
    /**
     * Pairs of chunks timed with and without the other sequence's cells ({@link #maskedTimings}): their difference is a
     * fraction of either, so more than {@link #RUNS}.
     */
    private static final int MASKED_PAIRS = 5;
    /**
     * llama.cpp's CPU flash-attention kernel's tile of query rows ({@code GGML_FA_TILE_Q} at 80fb11ac): passes of this
     * many rows or more run in tiles of it. The calibration checks it by timing a pass one row past it
     * ({@link EngineTimings.Masked#tileRows}).
     */
    static final int FA_TILE_ROWS = 64;

    /** The decode steps' short context. */
    static final int SHORT_CONTEXT = 16;

    private final LlamaContext ctx;
    private final int chunk, context, decodeSteps, blockTokens;
    /** Cells of another sequence the masked timings put in the stream (0: none timed). */
    private final int masked;

    private final int[] toks;

    /**
     * With flash attention on (or left to llama.cpp) and room for it, the long context's decode step and chunk are timed
     * again with {@code context} cells of another sequence in the stream ({@link EngineTimings.Masked}): that kernel
     * skips masked cells, at a cost of its own.
     */
    EngineProbe(LlamaContext ctx, int chunk, int context, int decodeSteps, int blockTokens) {
        this(
                ctx,
                chunk,
                context,
                decodeSteps,
                blockTokens,
                ctx.options().flashAttention() != LlamaContext.FlashAttention.DISABLED
                                && ctx.options().unified()
                                && ctx.options().nCtx() >= 2 * context + chunk + decodeSteps
                        ? context
                        : 0);
    }

    private EngineProbe(LlamaContext ctx, int chunk, int context, int decodeSteps, int blockTokens, int masked) {
        if (ctx.options().nSeqMax() < 2)
            throw new IllegalArgumentException("the calibration needs a context of two sequences");
        if (ctx.options().nCtx() < context + chunk + decodeSteps)
            throw new IllegalArgumentException("the calibration needs " + (context + chunk + decodeSteps)
                    + " cells, the context has " + ctx.options().nCtx());
        this.ctx = ctx;
        this.chunk = chunk;
        this.context = context;
        this.decodeSteps = decodeSteps;
        this.blockTokens = blockTokens;
        this.masked = masked;
        this.toks = new int[context + chunk + decodeSteps];
        SplittableRandom r = new SplittableRandom(23);
        int vocab = ctx.model().vocabSize();
        for (int i = 0; i < toks.length; i++) toks[i] = PromptTokens.FIRST + r.nextInt(vocab - PromptTokens.FIRST);
    }

    /** Passes timed below the chunk: 2, 4, 8, ... tokens. */
    private List<Integer> passLengths() {
        List<Integer> out = new ArrayList<>();
        for (int q = 2; q < chunk; q *= 2) out.add(q);
        return out;
    }

    EngineTimings run() {
        ctx.clear();
        ctx.prefill(0, toks, 0, chunk, 0); // warm-up
        ctx.clear();
        List<EngineTimings> rounds = new ArrayList<>(ROUNDS);
        for (int r = 0; r < ROUNDS; r++) rounds.add(round());
        return EngineTimings.median(rounds);
    }

    /** Every figure timed once (each a median of {@value #RUNS}, the decode steps' of all of them). Leaves the context cleared. */
    private EngineTimings round() {
        ctx.clear();
        double empty = timedPass(0, chunk);
        List<Integer> lengths = passLengths();
        double[] passEmpty = new double[lengths.size()];
        for (int i = 0; i < passEmpty.length; i++) passEmpty[i] = timedPass(0, lengths.get(i));
        ctx.clear();
        ctx.prefill(0, toks, 0, SHORT_CONTEXT, 0);
        double atShort = decodeSteps(SHORT_CONTEXT);
        ctx.clear();
        ctx.prefill(0, toks, 0, context, 0);
        double atLong = decodeSteps(context);
        double behind = timedPass(context, chunk);
        List<EngineTimings.Pass> passes = new ArrayList<>();
        for (int i = 0; i < passEmpty.length; i++)
            passes.add(new EngineTimings.Pass(lengths.get(i), passEmpty[i], timedPass(context, lengths.get(i))));
        EngineTimings.Masked maskedTimings = masked > 0 ? maskedTimings() : null;
        long bytesPerToken;
        EngineTimings.Load load;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = ctx.state(0, a);
            KvStateCodec.Parsed parsed = KvStateCodec.parse(state);
            bytesPerToken = parsed.layout().bytesPerToken();
            int blocks = context / blockTokens;
            List<MemorySegment> payloads = new ArrayList<>(blocks);
            for (int k = 0; k < blocks; k++) {
                MemorySegment dst = a.allocate(KvStateCodec.blockBytes(parsed.layout(), blockTokens), 16);
                KvStateCodec.copyBlock(parsed, state, blockTokens, k, dst);
                payloads.add(dst);
            }
            ctx.clear();
            double[] small = timedLoad(parsed, payloads.subList(0, 1));
            double[] large = timedLoad(parsed, payloads);
            load = new EngineTimings.Load(blockTokens, small[0], blocks * blockTokens, large[0], small[1], large[1]);
        }
        ctx.clear();
        ctx.prefill(0, toks, 0, SHORT_CONTEXT, 0);
        EngineTimings.Outputs outputs = outputTimings();
        ctx.clear();
        return new EngineTimings(
                new EngineTimings.Prefill(chunk, context, empty, behind),
                new EngineTimings.Decode(
                        SHORT_CONTEXT + (decodeSteps - 1) / 2.0, atShort, context + (decodeSteps - 1) / 2.0, atLong),
                passes,
                load,
                bytesPerToken,
                maskedTimings,
                outputs);
    }

    /** Rows of the long pass {@link #outputTimings} times (a decode step of that many sequences, at most). */
    static final int OUTPUT_ROWS = 8;

    /**
     * Passes of 2 and {@value #OUTPUT_ROWS} rows behind sequence 0's short context, each timed in pairs: with the last
     * row's logits only, then right after with every row's ({@link EngineTimings.Outputs}); medians of each side.
     */
    private EngineTimings.Outputs outputTimings() {
        int pairs = Math.max(RUNS, decodeSteps);
        double[] fo = new double[pairs], fa = new double[pairs], mo = new double[pairs], ma = new double[pairs];
        try (LlamaBatch b = ctx.newBatch()) {
            for (int i = 0; i < pairs; i++) {
                fo[i] = timedRows(b, 2, false);
                fa[i] = timedRows(b, 2, true);
                mo[i] = timedRows(b, OUTPUT_ROWS, false);
                ma[i] = timedRows(b, OUTPUT_ROWS, true);
            }
        }
        return new EngineTimings.Outputs(2, median(fo), median(fa), OUTPUT_ROWS, median(mo), median(ma));
    }

    /** A pass of {@code rows} tokens of sequence 0 after its short context, every row's logits or the last's (removed again). */
    private double timedRows(LlamaBatch b, int rows, boolean all) {
        b.clear();
        for (int i = 0; i < rows; i++) b.add(toks[SHORT_CONTEXT + i], SHORT_CONTEXT + i, 0, all || i == rows - 1);
        long t0 = System.nanoTime();
        ctx.decode(b);
        double s = (System.nanoTime() - t0) / 1e9;
        ctx.removeSeq(0, SHORT_CONTEXT, -1);
        return s;
    }

    /**
     * The long context's decode step and chunk, each timed in pairs: with {@link #masked} cells of sequence 1 in the
     * stream (restored from its state before each run, a millisecond or so) and right after without them, so that the
     * difference is the masked cells' and not the machine's drift between two moments; medians of each side. Sequence 0
     * holds the long context; sequence 1 is gone after.
     */
    private EngineTimings.Masked maskedTimings() {
        try (Arena a = Arena.ofConfined()) {
            ctx.prefill(1, toks, 0, masked, 0);
            MemorySegment filler = ctx.state(1, a);
            ctx.removeSeq(1, -1, -1);
            int steps = Math.max(RUNS, decodeSteps);
            double[] dm = new double[steps], da = new double[steps];
            double[] cm = new double[MASKED_PAIRS], ca = new double[MASKED_PAIRS];
            for (int i = 0; i < steps; i++) {
                ctx.restore(1, filler);
                dm[i] = timedStep(context);
                ctx.removeSeq(1, -1, -1);
                da[i] = timedStep(context);
            }
            for (int i = 0; i < MASKED_PAIRS; i++) {
                ctx.restore(1, filler);
                cm[i] = timedRun(context, chunk);
                ctx.removeSeq(1, -1, -1);
                ca[i] = timedRun(context, chunk);
            }
            return new EngineTimings.Masked(
                    masked, median(dm), median(da), median(cm), median(ca), timedPass(context, FA_TILE_ROWS + 1));
        }
    }

    /** One decode step of sequence 0 after the {@code at} tokens it holds (removed again). */
    private double timedStep(int at) {
        try (LlamaBatch b = ctx.newBatch()) {
            b.add(toks[at], at, 0, true);
            long t0 = System.nanoTime();
            ctx.decode(b);
            ctx.logits(0);
            double s = (System.nanoTime() - t0) / 1e9;
            ctx.removeSeq(0, at, -1);
            return s;
        }
    }

    /** One pass of {@code n} tokens of sequence 0 after the {@code at} it holds (removed again). */
    private double timedRun(int at, int n) {
        long t0 = System.nanoTime();
        ctx.prefill(0, toks, at, at + n, at);
        double s = (System.nanoTime() - t0) / 1e9;
        ctx.removeSeq(0, at, -1);
        return s;
    }

    /** A pass of {@code n} tokens of sequence 0 after the {@code at} it holds (removed again after each run). */
    private double timedPass(int at, int n) {
        double[] s = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t0 = System.nanoTime();
            ctx.prefill(0, toks, at, at + n, at);
            s[i] = (System.nanoTime() - t0) / 1e9;
            ctx.removeSeq(0, at, -1);
        }
        return median(s);
    }

    /** {@code decodeSteps} steps of sequence 0 after the {@code at} tokens it holds (removed again). */
    private double decodeSteps(int at) {
        double[] s = new double[decodeSteps];
        try (LlamaBatch b = ctx.newBatch()) {
            for (int i = 0; i < decodeSteps; i++) {
                b.clear();
                b.add(toks[at + i], at + i, 0, true);
                long t0 = System.nanoTime();
                ctx.decode(b);
                ctx.logits(0);
                s[i] = (System.nanoTime() - t0) / 1e9;
            }
        }
        ctx.removeSeq(0, at, -1);
        return median(s);
    }

    /**
     * What a fetch does with {@code blocks} once they arrived (as {@link KvTiers} does): assemble (an I/O thread's part)
     * into a buffer the sequence keeps across fetches (touched before, as a cell's is after its first fetch: a fresh
     * allocation's page faults were half of the assembly's time, 1.6 of 3.5 ms for 4,096 tokens), restore, share;
     * medians of the whole and of the assembly (s).
     */
    private double[] timedLoad(KvStateCodec.Parsed parsed, List<MemorySegment> blocks) {
        double[] s = new double[RUNS], asm = new double[RUNS];
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(parsed.layout().stateBytes(blocks.size() * blockTokens), 64);
            KvStateCodec.assemble(parsed.layout(), blockTokens, blocks, 0, st);
            for (int i = 0; i < RUNS; i++) {
                long t0 = System.nanoTime();
                KvStateCodec.assemble(parsed.layout(), blockTokens, blocks, 0, st);
                long t1 = System.nanoTime();
                ctx.restore(1, st);
                ctx.copySeq(1, 0, -1, -1);
                ctx.removeSeq(1, -1, -1);
                s[i] = (System.nanoTime() - t0) / 1e9;
                asm[i] = (t1 - t0) / 1e9;
                ctx.clear();
            }
        }
        return new double[] {median(s), median(asm)};
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
