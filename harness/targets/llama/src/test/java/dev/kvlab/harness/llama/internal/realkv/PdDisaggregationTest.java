package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaModel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prefill/decode disaggregation on the llama.cpp target, on a tiny synthesized model: a prompt's KV (its shorter tail
 * included) split on one context and restored on another continues exactly as the prefill context would; a
 * disaggregated cell's decode instance computes no prompt token when its handovers succeed, over the transfer
 * engine and through the store, and hands over the model's KV bytes per token plus the block headers; a corrupted
 * handover is recomputed on the decode instance, never used; the keys are refused where they do not apply. Skipped
 * with the reason where the pinned llama.cpp library is unavailable; with {@code KVLAB_CI=1} that fails instead.
 */
class PdDisaggregationTest {

    @TempDir
    static Path dir;

    static Path model;
    static long kvBytesPerToken;

    @BeforeAll
    static void model() throws Exception {
        RealKvTestSupport.library();
        SynthSpec spec = new SynthSpec(2, 256, 4, 2, 688, 32000, WeightType.F16, 5, 2048);
        model = Gguf.synth(spec, dir.resolve("tiny.gguf")).path();
        kvBytesPerToken = spec.kvBytesPerToken();
    }

    /** Prompts of 288 + 37 = 325 tokens: 10 blocks of 32 and a tail of 5. */
    static RunConfig config(String... sets) {
        ConfigTree t = ConfigTree.parse("""
                mode: live
                seed: 2
                target: {kind: llama.cpp, model: %s, threads: 1, calibrate_tokens: 0, flash_attn: "off"}
                cluster: {instances: 2, router: round-robin}
                store: {backend: bundled, nodes: 2, capacity: 64MiB}
                transport: tcp
                tiers: none
                cache_state: cold
                workload:
                  generator: {kind: shared-prefix, groups: 6, prompts_per_group: 1, prefix_tokens: 288, suffix_tokens: 37, output_tokens: 6, block_tokens: 32}
                  arrival: {process: constant, rate: 8}
                slo: {ttft_ms: 10000}
                """.formatted(model), "pd.yaml", null);
        for (String set : sets) t.set(set);
        return t.bind();
    }

    static double num(CellResult r, String key) {
        Object v = r.json().get(key);
        assertThat(v).as(key).isInstanceOf(Number.class);
        return ((Number) v).doubleValue();
    }

    /** The handover's codecs of a prefill context {@code a} and a decode context {@code b}, no store behind them. */
    record Codecs(KvStateLayout layout, RealKvTotals totals, RemotePrefix from, RemotePrefix into) {}

    static Codecs codecs(LlamaContext a, LlamaContext b, int block) {
        KvStateLayout layout = EngineInstance.probeLayout(a);
        RealKvTotals totals = new RealKvTotals();
        KvNamespace ns = new KvNamespace("test", "f16", layout.vTrans(), block);
        KvBlockStore none = new KvBlockStore(null, ns, layout.bytesPerToken() * block, 1, totals);
        return new Codecs(
                layout,
                totals,
                new RemotePrefix(a, layout, none, totals, 1, block),
                new RemotePrefix(b, layout, none, totals, 1, block));
    }

    /** A prompt of {@code n} distinct-looking tokens. */
    static int[] prompt(int n) {
        int[] toks = new int[n];
        for (int i = 0; i < n; i++) toks[i] = PromptTokens.FIRST + (i * 7919) % 20000;
        return toks;
    }

    @Test
    void aPromptHandedOverWithItsTailContinuesAsOnThePrefillContext() {
        int block = 32, n = 3 * block + 11;
        try (LlamaModel m = LlamaModel.load(RealKvTestSupport.library(), model);
                LlamaContext a = m.newContext(LlamaContext.Options.of(1024).withSeqMax(2));
                LlamaContext b = m.newContext(LlamaContext.Options.of(1024).withSeqMax(2))) {
            Codecs c = codecs(a, b, block);
            KvStateLayout layout = c.layout();
            RemotePrefix from = c.from(), into = c.into();
            int[] toks = prompt(n);
            float[] first = a.prefill(0, toks, 0, n, 0);
            int next = LlamaContext.argmax(first);
            int objects = (n + block - 1) / block, tail = n - (objects - 1) * block;
            long[] keys = {11, 12, 13, 14};
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment[] bufs = new MemorySegment[objects];
                for (int i = 0; i < objects; i++)
                    bufs[i] = arena.allocate(KvBlockObject.objectBytes(layout.bytesPerToken() * block), 16);
                long bytes = from.splitRun(0, keys, n, bufs);
                assertThat(bytes)
                        .isEqualTo((long) n * layout.bytesPerToken() + (long) objects * KvBlockObject.HEADER_BYTES);
                for (int i = 0; i < objects; i++) {
                    int tk = i == objects - 1 ? tail : block;
                    long len = KvBlockObject.objectBytes(layout.bytesPerToken() * tk);
                    assertThat(KvBlockObject.verify(bufs[i], len, keys[i], tk, len - KvBlockObject.HEADER_BYTES))
                            .isNull();
                }
                assertThat(into.restore(0, 0, objects, tail, bufs)).isTrue();
                assertThat(b.maxPos(0)).isEqualTo(n - 1);
            }
            // the next token decoded on both contexts: the same logits up to rounding (a misplaced row moves them by
            // O(1))
            float[] la = a.prefill(0, new int[] {next}, 0, 1, n), lb = b.prefill(0, new int[] {next}, 0, 1, n);
            double d = 0;
            for (int i = 0; i < la.length; i++) d = Math.max(d, Math.abs(la[i] - lb[i]));
            assertThat(d).isLessThanOrEqualTo(0.02);
            assertThat(LlamaContext.argmax(lb)).isEqualTo(LlamaContext.argmax(la));
        }
    }

    /**
     * The direct handover as the target runs it ({@link PdHandover#stage}, send, verify, {@link PdHandover#stateOf},
     * restore), from a prefill sequence other than 0 into decode sequence 0: the state's KV part alone, framed in the
     * slot, when the sequence's cells hold its positions in order (a stream per sequence, V transposed); the whole
     * state when they do not (a unified context whose freed cells took the sequence's later positions, V not
     * transposed). Either way the decode context continues as the prefill context does.
     */
    @Test
    void aDirectHandoverRestoresTheKvPartFramedInTheSlotOrTheWholeState() {
        for (boolean scattered : new boolean[] {false, true}) {
            LlamaContext.Options o = new LlamaContext.Options(
                    1024,
                    512,
                    3,
                    1,
                    scattered ? LlamaContext.FlashAttention.ENABLED : LlamaContext.FlashAttention.DISABLED,
                    scattered);
            int block = 32, n = 3 * block + 11;
            try (LlamaModel m = LlamaModel.load(RealKvTestSupport.library(), model);
                    LlamaContext a = m.newContext(o);
                    LlamaContext b = m.newContext(o)) {
                Codecs c = codecs(a, b, block);
                KvStateLayout layout = c.layout();
                assertThat(layout.vTrans()).isEqualTo(!scattered);
                RemotePrefix from = c.from(), into = c.into();
                int[] toks = prompt(n);
                int seq = 2;
                float[] first;
                if (scattered) { // cells 0-9 of sequence 0 freed, then taken by positions 60… of the prompt
                    a.prefill(0, toks, 0, 10, 0);
                    a.prefill(1, toks, 0, 10, 0);
                    a.prefill(seq, toks, 0, 60, 0);
                    a.removeSeq(0, -1, -1);
                    first = a.prefill(seq, toks, 60, n, 60);
                } else {
                    first = a.prefill(seq, toks, 0, n, 0);
                }
                int next = LlamaContext.argmax(first);
                try (PdHandover pd = new PdHandover(
                        dev.kvlab.harness.api.config.PdTransfer.DIRECT,
                        "tcp",
                        dev.kvlab.transport.api.TransportConfig.defaults(),
                        null,
                        new PdHandover.Sizes(block, layout),
                        1,
                        1,
                        n,
                        System::nanoTime,
                        c.totals(),
                        1,
                        null)) {
                    PdHandover.Staging st = pd.buffers();
                    PdHandover.Parcel p = pd.reserve(null, EngineInstance.Events.IGNORED, n, next, 0);
                    pd.stage(p, from, seq, st);
                    assertThat(p.error).isNull();
                    assertThat(p.whole).as("the whole state sent").isEqualTo(scattered);
                    pd.send(p, st);
                    assertThat(p.error).isNull();
                    long kv = scattered ? layout.stateBytes(n) : layout.kvPartBytes(n);
                    assertThat(p.bytes).isEqualTo(4L * KvBlockObject.HEADER_BYTES + kv);
                    assertThat(pd.check(p)).isNull();
                    assertThat(into.restoreAssembled(0, 0, n, pd.stateOf(p, into, null)))
                            .isTrue();
                    assertThat(b.maxPos(0)).isEqualTo(n - 1);
                }
                float[] la = a.prefill(seq, new int[] {next}, 0, 1, n), lb = b.prefill(0, new int[] {next}, 0, 1, n);
                double d = 0;
                for (int i = 0; i < la.length; i++) d = Math.max(d, Math.abs(la[i] - lb[i]));
                assertThat(d).as(scattered ? "whole state" : "KV part framed").isLessThanOrEqualTo(0.02);
            }
        }
    }

    /**
     * Issue 33: a decode step that waited for a core is counted. With more spinning threads than the machine has cores
     * beside it, the engine thread loses its core in scheduler slices, so many decoding steps take 1 ms or more beyond
     * their CPU time.
     */
    @Test
    void decodeStepsThatWaitForACoreAreCounted() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.List<Thread> spinners = new java.util.ArrayList<>();
        for (int i = 0; i <= Runtime.getRuntime().availableProcessors(); i++)
            spinners.add(Thread.ofPlatform().daemon().start(() -> {
                while (!stop.get()) Thread.onSpinWait(); // runnable all along: it holds a core until preempted
            }));
        CellResult r;
        try {
            r = new CellRunner()
                    .run(config("pd=colocated", "cluster.instances=1", "workload.generator.output_tokens=40"));
        } finally {
            stop.set(true);
            for (Thread t : spinners) t.join();
        }
        assertThat(r.summary().get(Columns.FAILED)).isZero();
        assertThat(num(r, Columns.DECODE_STEPS_DESCHEDULED_SHARE.name())).isGreaterThan(0.05);
    }

    @Test
    void decodeInstancesComputeNoPromptTokenWhenTheHandoverSucceedsOnBothPaths() {
        CellResult col = new CellRunner().run(config("pd=colocated"));
        assertThat(num(col, Columns.HANDOVER_BYTES.name())).isZero();
        assertThat(num(col, Columns.DECODE_PREFILL_TOKENS.name())).isEqualTo(6 * 325);
        assertThat(num(col, LlamaColumns.HANDOVER_TRANSFER_MS_MEAN.name())).isNaN();
        assertThat(col.handovers())
                .as("colocated: nothing handed over, no handovers.csv")
                .isEmpty();
        for (String path : new String[] {"direct", "store"}) {
            CellResult r = new CellRunner()
                    .run(config("pd=disaggregated", "cluster.prefill_instances=1", "pd_transfer=" + path));
            var s = r.summary();
            assertThat(s.get(Columns.FAILED)).as(path).isZero();
            assertThat(s.get(Columns.COMPLETED)).as(path).isEqualTo(6);
            assertThat(s.get(Columns.WRONG_HITS_USED)).as(path).isZero();
            assertThat(s.get(Columns.PD)).isEqualTo("disaggregated");
            assertThat(num(r, Columns.DECODE_PREFILL_TOKENS.name())).as(path).isZero();
            assertThat(num(r, Columns.PD_FALLBACKS.name())).as(path).isZero();
            assertThat(num(r, Columns.DECODE_STEPS_WITH_PROMPT_SHARE.name()))
                    .as(path)
                    .isZero();
            assertThat(num(r, Columns.DECODE_STEPS_DESCHEDULED_SHARE.name()))
                    .as(path)
                    .isBetween(0.0, 1.0); // the machine's share, measured: a number, not NaN
            assertThat(num(r, Columns.HANDOVER_TOKENS.name())).as(path).isEqualTo(6 * 325);
            // 11 objects (store) or pieces (direct) per prompt: the model's KV per token and a 32-byte header each;
            // direct sends the state's KV part as llama.cpp wrote it: with v_trans, n_layer and each layer's K and V
            // headers (12 bytes each), 2 layers
            double framing = path.equals("direct") ? 8 + 2 * 2 * 12 : 0;
            assertThat(num(r, Columns.HANDOVER_BYTES.name()))
                    .as(path)
                    .isEqualTo(6 * (325.0 * kvBytesPerToken + 11 * KvBlockObject.HEADER_BYTES + framing));
            assertThat(num(r, Columns.PD_RESTORE_MS_P50.name())).as(path).isPositive();
            // only the store path splits the state into objects (tiers none: nothing else splits); direct has no split
            // to time, so no split rate
            if (path.equals("direct"))
                assertThat(num(r, LlamaColumns.SPLIT_GB_PER_S.name())).as(path).isNaN();
            else assertThat(num(r, LlamaColumns.SPLIT_GB_PER_S.name())).as(path).isPositive();
            assertThat(r.json().get("pd_transfer")).isEqualTo(path);
            // per request (handovers.csv): every one handed over, its parts adding up to its TTFT
            assertThat(r.handovers()).as(path).hasSize(6).allSatisfy(h -> {
                assertThat(h.ok()).isTrue();
                assertThat(h.tokens()).isEqualTo(325);
                assertThat(h.prefillMs()).isPositive();
                assertThat(h.restoreWorkMs()).isPositive();
                assertThat(h.prefillQueueMs() + h.prefillMs() + h.handoverMs() + h.decodeQueueMs() + h.restoreMs())
                        .isCloseTo(h.ttftMs(), org.assertj.core.api.Assertions.within(1e-6));
            });
            assertThat(r.handovers().stream()
                            .mapToLong(dev.kvlab.harness.api.HandoverRecord::bytes)
                            .sum())
                    .as(path)
                    .isEqualTo((long) num(r, Columns.HANDOVER_BYTES.name()));
            // the first token came after the handover: the breakdown adds up to no more than the TTFT
            assertThat(num(r, Columns.PD_PREFILL_MS_P50.name()) + num(r, Columns.PD_HANDOVER_MS_P50.name()))
                    .isLessThanOrEqualTo(num(r, Columns.TTFT_P99.name()));
        }
    }

    @Test
    void aCorruptedHandoverIsRecomputedOnTheDecodeInstanceNeverUsed() {
        CellResult r = new CellRunner()
                .run(config(
                        "pd=disaggregated",
                        "cluster.prefill_instances=1",
                        "fault=corrupt",
                        "fault_at=0",
                        "fault_params.corrupt_fraction=1"));
        var s = r.summary();
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        double fallbacks = num(r, Columns.PD_FALLBACKS.name());
        assertThat(fallbacks).isPositive().isEqualTo(num(r, "handover_corrupted"));
        assertThat(r.handovers().stream().filter(h -> !h.ok()).count())
                .as("each recomputed handover is a row of handovers.csv with ok false")
                .isEqualTo((long) fallbacks);
        // every fallback's prompt was computed by the decode instance instead
        assertThat(num(r, Columns.DECODE_PREFILL_TOKENS.name())).isEqualTo(fallbacks * 325);
        assertThat(((Number) r.json().get("rejected_handover_checksum")).longValue())
                .isEqualTo((long) fallbacks);
    }

    @Test
    void theKeysAreRefusedWhereTheyDoNotApply() {
        assertThatThrownBy(() -> config("pd_transfer=direct"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'pd_transfer'")
                .hasMessageContaining("disaggregated");
        assertThatThrownBy(() -> config("cluster.prefill_instances=1"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'cluster.prefill_instances'");
        assertThatThrownBy(() -> config("pd=disaggregated", "cluster.prefill_instances=2"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'cluster.prefill_instances'");
        assertThatThrownBy(() -> config("pd=disaggregated", "pd_transfer=carrier-pigeon"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("pd_transfer");
        // a decode host only where handed-over bytes would cross its link, and only one that exists
        for (String[] sets : new String[][] {
            {"target.decode_netns=kvt-decode"},
            {"pd=disaggregated", "pd_transfer=store", "target.decode_netns=kvt-decode"}
        })
            assertThatThrownBy(() -> config(sets))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("'target.decode_netns'")
                    .hasMessageContaining("pd_transfer: direct");
        assertThatThrownBy(() -> config("pd=disaggregated", "transport=rdma-emu", "target.decode_netns=kvt-decode"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.decode_netns'")
                .hasMessageContaining("transport: tcp");
        assertThatThrownBy(() -> config("pd=disaggregated", "target.decode_netns=kvt-no-such-host"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.decode_netns'")
                .hasMessageContaining("no network namespace 'kvt-no-such-host'");
        assertThat(Map.of(
                        "ok",
                        config("pd=disaggregated", "pd_transfer=store")
                                .pdTransfer()
                                .label()))
                .containsEntry("ok", "store");
    }
}
