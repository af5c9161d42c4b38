package dev.kvlab.harness.llama.internal.realkv;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.kvlab.harness.api.config.PdTransfer;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaModel;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code kvlab bench handover}: one PD handover of a {@code tokens}-token prompt's state over the direct path, part by
 * part, as the llama.cpp target does it ({@link PdHandover}: the prefill sequence's state written by llama.cpp into
 * the staging buffer, its pieces sealed, the WRITE into the decode side's registered slot, verification of every
 * piece, the state framed in the slot and restored into the decode context), set
 * against the same transport's own WRITE of the same bytes (an engine pair of its own, a buffer into a segment: what
 * {@code kvlab bench transport --op write} measures; interleaved with the handovers, so both meet the same load) and the decode side's restore path alone (verification, assembly and
 * restore of the prompt's block objects from local memory, as the remote tier restores them). Medians over {@code reps} after a warm-up of at least
 * {@link #WARMUP_NANOS} and {@value #MIN_WARMUP_ROUNDS} rounds (JMH's rule: code the JIT has not compiled yet is not
 * measured).
 */
public final class HandoverBench {

    /**
     * @param model       GGUF model
     * @param tokens      prompt tokens handed over
     * @param blockTokens tokens per block object
     * @param transport   tcp, shm, local or rdma-emu
     * @param link        rdma-emu's emulated NIC (and the engines' link setting)
     * @param reps        measured handovers
     * @param threads     threads per context
     */
    public record Settings(
            Path model, int tokens, int blockTokens, String transport, String link, int reps, int threads) {
        public Settings {
            if (!Files.isRegularFile(model)) throw new BadInputException("--model: no such file " + model);
            if (tokens < 1 || tokens > 1 << 16)
                throw new BadInputException("--tokens: must be in [1, 65536], got " + tokens);
            if (blockTokens < 1 || blockTokens > tokens)
                throw new BadInputException("--block-tokens: must be in [1, --tokens], got " + blockTokens);
            if (reps < 1 || reps > 10_000) throw new BadInputException("--reps: must be in [1, 10000], got " + reps);
            if (threads < 1 || threads > 256)
                throw new BadInputException("--threads: must be in [1, 256], got " + threads);
            if (!Transports.discover().names().contains(transport))
                throw new BadInputException(
                        "--transport: one of " + Transports.discover().names() + ", got '" + transport + "'");
            try {
                LinkSpec.parse(link);
            } catch (IllegalArgumentException e) {
                throw new BadInputException("--link: " + e.getMessage());
            }
        }
    }

    /**
     * Medians (ms) and what they moved.
     *
     * @param bytes           bytes handed over (pieces' headers and the state's KV part)
     * @param objects         pieces (one per block of the prompt)
     * @param stageMs         the prefill sequence's state into the staging buffer ({@code llama_state_seq_get_data})
     * @param transferMs      the handover's WRITE
     * @param sealMs          the sender's headers (CRC32C) and audit digest of the pieces (before the WRITE)
     * @param verifyMs        header and CRC32C of every piece on the decode side
     * @param restoreMs       framing in the slot and {@code llama_state_seq_set_data} on the decode side
     * @param handoverMs      the whole handover (staging, sealing, WRITE, verification, restore)
     * @param rawTransferMs   the transport's own WRITE of the same bytes
     * @param restorePathMs   verification, assembly and restore of the prompt's block objects from local memory
     * @param emulated        the transport is emulated (rdma-emu)
     */
    public record Result(
            String transport,
            int tokens,
            long bytes,
            int objects,
            double stageMs,
            double transferMs,
            double sealMs,
            double verifyMs,
            double restoreMs,
            double handoverMs,
            double rawTransferMs,
            double restorePathMs,
            boolean emulated) {
        /** The handover's WRITE rate against the transport's own for the same bytes (1: as fast). */
        public double transferRatio() {
            return rawTransferMs / transferMs;
        }

        /** What the handover adds to the decode side's restore path, as a share of it: (transfer + verify + restore) / restore path - 1. */
        public double addedToRestorePath() {
            return (transferMs + verifyMs + restoreMs) / restorePathMs - 1;
        }

        public double gbPerS(double ms) {
            return bytes / ms / 1e6;
        }

        /** The transport as {@code kvlab bench handover} names it (an emulated NIC said). */
        public String transportName() {
            return transport + (emulated ? " (emulated NIC)" : "");
        }

        /** The result as {@code kvlab bench handover --json} prints it. */
        public Figures figures() {
            return new Figures(
                    transportName(),
                    tokens,
                    bytes,
                    objects,
                    stageMs,
                    transferMs,
                    sealMs,
                    verifyMs,
                    restoreMs,
                    handoverMs,
                    rawTransferMs,
                    restorePathMs,
                    gbPerS(transferMs),
                    gbPerS(rawTransferMs),
                    transferRatio(),
                    addedToRestorePath());
        }

        /** The result as {@code kvlab bench handover} prints it: four lines. */
        public String text() {
            StringBuilder b = new StringBuilder();
            b.append(String.format(
                    Locale.ROOT,
                    "handover of %d tokens (%d bytes in %d objects) over %s, medians:%n",
                    tokens,
                    bytes,
                    objects,
                    transportName()));
            b.append(String.format(
                    Locale.ROOT,
                    "  staged %.3f ms, sealed (headers, CRC32C, audit digest) %.3f ms, WRITE %.3f ms (%.2f GB/s), verify %.3f ms, restore %.3f ms: %.3f ms in all%n",
                    stageMs,
                    sealMs,
                    transferMs,
                    gbPerS(transferMs),
                    verifyMs,
                    restoreMs,
                    handoverMs));
            b.append(String.format(
                    Locale.ROOT,
                    "  the transport's own WRITE of the same bytes (its own engine pair, interleaved) %.3f ms (%.2f GB/s): the handover's moves at %.2fx%n",
                    rawTransferMs,
                    gbPerS(rawTransferMs),
                    transferRatio()));
            b.append(String.format(
                    Locale.ROOT,
                    "  restore path of the block objects from local memory (verify + assemble + restore) %.3f ms: the handover (WRITE + verify + frame + restore) adds %.0f%%%n",
                    restorePathMs,
                    100 * addedToRestorePath()));
            return b.toString();
        }
    }

    /**
     * The result as {@code kvlab bench handover --json} prints it: the medians (ms) and what they moved, the WRITE rates
     * (GB/s), the handover's WRITE against the transport's own and what it adds to the restore path.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Figures(
            String transport,
            int tokens,
            long bytes,
            int objects,
            double stageMs,
            double transferMs,
            double sealMs,
            double verifyMs,
            double restoreMs,
            double handoverMs,
            double rawTransferMs,
            double restorePathMs,
            double transferGbPerS,
            double rawTransferGbPerS,
            double transferVsRaw,
            double addedToRestorePath) {}

    /**
     * The least warm-up (2 s) and rounds (50) before the measured handovers: the JIT compiles the split, verification
     * and assembly loops only after many rounds. Measured on a 2-core machine, 2,048 tokens: after 2 warm-up rounds
     * the restore path's median was 1.4-2.1 ms, after 400 rounds 0.63-0.73 ms.
     */
    static final long WARMUP_NANOS = 2_000_000_000L;

    static final int MIN_WARMUP_ROUNDS = 50, MAX_WARMUP_ROUNDS = 5_000;

    private HandoverBench() {}

    /** Whether the round after {@code warmed} warm-up rounds is one more: fewer than the least, or time left, below the most. */
    static boolean warmingUp(int warmed, long warmEndNanos) {
        return warmed < MAX_WARMUP_ROUNDS && (warmed < MIN_WARMUP_ROUNDS || System.nanoTime() < warmEndNanos);
    }

    public static Result run(Settings s, PrintStream log) {
        var lib = dev.kvlab.harness.llama.internal.LlamaLibrary.load();
        int cells = (s.tokens() + 2 + 255) / 256 * 256;
        LlamaContext.Options opt =
                new LlamaContext.Options(cells * 2, 512, 2, s.threads(), LlamaContext.FlashAttention.DISABLED);
        TransportConfig tc = TransportConfig.defaults().withLink(LinkSpec.parse(s.link()));
        try (LlamaModel m = LlamaModel.load(lib, s.model());
                LlamaContext a = m.newContext(opt);
                LlamaContext b = m.newContext(opt)) {
            KvStateLayout layout = EngineInstance.probeLayout(a);
            EngineInstance.probeLayout(b);
            RealKvTotals totals = new RealKvTotals();
            KvNamespace ns = new KvNamespace(
                    "bench", LlamaCell.dtype(layout.layers().getFirst().kType()), layout.vTrans(), s.blockTokens());
            KvBlockStore none = new KvBlockStore(null, ns, layout.bytesPerToken() * s.blockTokens(), 1, totals);
            RemotePrefix from = new RemotePrefix(a, layout, none, totals, 1, s.blockTokens());
            RemotePrefix into = new RemotePrefix(b, layout, none, totals, 1, s.blockTokens());
            int[] toks = new int[s.tokens()];
            for (int i = 0; i < toks.length; i++)
                toks[i] = PromptTokens.FIRST + (i * 7919) % Math.max(1, m.vocabSize() - PromptTokens.FIRST - 1);
            log.println("kvlab: prefilling " + s.tokens() + " tokens on the prefill context ...");
            a.prefill(0, toks, 0, toks.length, 0);
            PdHandover.Sizes sizes = new PdHandover.Sizes(s.blockTokens(), layout);
            EngineInstance.Events events = EngineInstance.Events.IGNORED;
            int n = s.reps();
            double[] stage = new double[n],
                    transfer = new double[n],
                    verify = new double[n],
                    restore = new double[n],
                    total = new double[n],
                    raw = new double[n],
                    path = new double[n];
            long bytes = 0;
            int objects = 0;
            boolean emulated;
            double[] seal = new double[n];
            Transports tr = Transports.discover();
            // the transport's own WRITE of the same bytes, on a pair of its own, interleaved with the handovers (the
            // same conditions)
            try (PdHandover pd = new PdHandover(
                            PdTransfer.DIRECT,
                            s.transport(),
                            tc,
                            null,
                            sizes,
                            1,
                            1,
                            s.tokens(),
                            System::nanoTime,
                            totals,
                            1,
                            null);
                    TransferEngine target = tr.create(s.transport(), tc);
                    TransferEngine init = tr.create(s.transport(), tc);
                    java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                long slot = pd.slotBytes();
                Segment seg = target.registerSegment("kvlab-bench-handover", slot);
                RemoteSegment rs = init.openSegment(seg.handle());
                MemorySegment buf = init.allocateBuffer(slot);
                emulated = pd.emulated();
                PdHandover.Staging st = pd.buffers();
                // the restore path's objects: the prompt's block objects in local memory, as the remote tier holds them
                int nObj = (s.tokens() + s.blockTokens() - 1) / s.blockTokens();
                int lastTokens = s.tokens() - (nObj - 1) * s.blockTokens();
                MemorySegment[] local = new MemorySegment[nObj];
                long[] localKeys = new long[nObj], localLengths = new long[nObj];
                for (int k = 0; k < nObj; k++) {
                    localKeys[k] = 0x6b766c6162L + k;
                    localLengths[k] = sizes.objectBytes(k == nObj - 1 ? lastTokens : s.blockTokens());
                    local[k] = arena.allocate(sizes.objectBytes(s.blockTokens()), 64);
                }
                from.splitRun(0, localKeys, s.tokens(), local);
                long warmEnd = System.nanoTime() + WARMUP_NANOS;
                int warmed = 0, i = 0;
                while (i < n) {
                    PdHandover.Parcel p = pd.reserve(null, events, s.tokens(), 0, 0);
                    long t0 = System.nanoTime();
                    pd.stage(p, from, 0, st);
                    if (p.error != null) throw new IllegalStateException(p.error);
                    long t1 = System.nanoTime();
                    pd.send(p, st);
                    if (p.error != null) throw new IllegalStateException(p.error);
                    long t2 = System.nanoTime();
                    String why = pd.verify(p);
                    if (why != null) throw new IllegalStateException("the handover arrived wrong: " + why);
                    long t3 = System.nanoTime();
                    b.removeSeq(0, -1, -1);
                    if (!into.restoreAssembled(0, 0, p.tokens, pd.stateOf(p, into, null)))
                        throw new IllegalStateException("llama.cpp refused the handed-over state");
                    long t4 = System.nanoTime();
                    pd.release(p);
                    pd.done(p);
                    // the restore path alone: the same objects from the prefill side's (local) memory
                    long t5 = System.nanoTime();
                    b.removeSeq(0, -1, -1);
                    for (int k = 0; k < nObj; k++)
                        if (KvBlockObject.verify(
                                        local[k],
                                        localLengths[k],
                                        localKeys[k],
                                        k == nObj - 1 ? lastTokens : s.blockTokens(),
                                        localLengths[k] - KvBlockObject.HEADER_BYTES)
                                != null) throw new IllegalStateException("local object " + k + " is wrong");
                    if (!into.restore(0, 0, nObj, lastTokens, local))
                        throw new IllegalStateException("llama.cpp refused the state");
                    long t6 = System.nanoTime();
                    TransferBatch batch = new TransferBatch(1);
                    batch.add(Opcode.WRITE, buf, 0, rs, 0, p.bytes);
                    long t7 = System.nanoTime();
                    try {
                        init.submit(batch).get(60, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException("the transport's own WRITE failed: " + e.getMessage(), e);
                    }
                    long t8 = System.nanoTime();
                    if (!batch.allOk()) throw new IllegalStateException("WRITE ended " + batch.status(0));
                    if (warmingUp(warmed, warmEnd)) {
                        warmed++;
                        continue;
                    }
                    raw[i] = (t8 - t7) / 1e6;
                    stage[i] = (t1 - t0) / 1e6;
                    transfer[i] = p.transferNanos / 1e6;
                    seal[i] = (t2 - t1 - p.transferNanos) / 1e6;
                    verify[i] = (t3 - t2) / 1e6;
                    restore[i] = (t4 - t3) / 1e6;
                    total[i] = (t4 - t0) / 1e6;
                    path[i] = (t6 - t5) / 1e6;
                    bytes = p.bytes;
                    objects = p.objects;
                    i++;
                }
                log.println("kvlab: " + warmed + " warm-up handovers (at least " + MIN_WARMUP_ROUNDS + " and "
                        + WARMUP_NANOS / 1_000_000_000 + " s), then " + n + " measured");
                rs.close();
                seg.close();
            }
            return new Result(
                    s.transport(),
                    s.tokens(),
                    bytes,
                    objects,
                    median(stage),
                    median(transfer),
                    median(seal),
                    median(verify),
                    median(restore),
                    median(total),
                    median(raw),
                    median(path),
                    emulated);
        }
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }
}
