package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.harness.llama.internal.LlamaModel;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.StorePlan;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * A llama.cpp cell's twin calibrated without running the cell: its engine timed on a context made as its instances'
 * are ({@link EngineCalibration}, the same as the cell does before it serves, which then takes this one:
 * {@link SearchCalibrations}), and, when a tier of the cell fetches
 * from the store, the store path measured on the cell's own backend and transport ({@code LiveStore.probe}). What a
 * capacity search predicts the cell's capacity with before it measures it.
 */
final class LlamaCalibrator {

    private LlamaCalibrator() {}

    static TwinCalibration calibrate(RunConfig c, StorePlan storePlan) {
        LlamaTargetConfig.Resolved t = LlamaTarget.target(c, k -> null);
        GgufModelInfo info;
        try {
            info = Gguf.read(t.model());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        LlamaLibrary lib = LlamaLibrary.load();
        CellSpec probe = LlamaTarget.spec(c, k -> null, "probe", "f16");
        int[] most = WorkloadExtent.of(probe);
        EngineInstance.Shape shape =
                EngineInstance.Shape.of(t, c.tiers().local(), most[0], most[1], probe.blockTokens());
        EngineTwin twin = new EngineTwin(c, info, t.threads());
        try (LlamaModel model = LlamaModel.load(lib, t.model())) {
            LlamaContext.Options options = shape.options(t.threads(), t.flashAttention());
            KvStateLayout layout;
            try (LlamaContext ctx = model.newContext(options)) {
                layout = EngineInstance.probeLayout(ctx);
            }
            Dtype kv = LlamaCell.catalogDtype(
                    LlamaCell.dtype(layout.layers().getFirst().kType()));
            twin.shape(shape, most[0], most[1], probe.blockTokens());
            twin.calibrate(
                    model,
                    options,
                    shape.sequences(),
                    c.cluster().instances(),
                    t.calibrateTokens(),
                    probe.blockTokens(),
                    kv,
                    false);
            // the cell's engine plans its twin on this one rather than timing the engine again
            twin.keepForTheSearch();
            if (c.pd() == dev.kvlab.harness.api.config.Pd.DISAGGREGATED)
                twin.handover(directPath(c, storePlan, layout, probe, most[0]), !directHandover(c));
        }
        boolean storeHandover = c.pd() == dev.kvlab.harness.api.config.Pd.DISAGGREGATED && !directHandover(c);
        if (c.tiers().remote() || storeHandover) {
            var st = c.store();
            BackendOptions o = BackendOptions.defaults()
                    .withTransport(storePlan.transportName())
                    .withTenant(c.workload().tenant())
                    .withNodes(st.nodes())
                    .withSegmentBytes(storePlan.storeCapacity() / st.nodes())
                    .withTimeout(Duration.ofSeconds(10))
                    .withMaster(storePlan.masterConfig());
            LiveClock loop = TargetFramework.get().liveClock(50_000);
            try (AuditedStore b =
                    TargetFramework.get().audited(KvBackends.discover().open(st.backend(), o))) {
                twin.probeStart(loop, b);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("measuring the store path: " + e.getMessage(), e);
            }
        }
        return twin.twinCalibration(c.cluster().instances());
    }

    private static boolean directHandover(RunConfig c) {
        return LlamaCell.pdTransfer(c) == dev.kvlab.harness.api.config.PdTransfer.DIRECT;
    }

    /**
     * A disaggregated cell's direct handover path, measured as its cell measures it ({@link PdHandover#probe}: the same
     * transport and decode host, the model's block objects), or null for the store path.
     */
    private static dev.kvlab.harness.spi.LinkProbe directPath(
            RunConfig c, StorePlan storePlan, KvStateLayout layout, CellSpec probe, int mostPrompt) {
        if (!directHandover(c)) return null;
        try (PdHandover pd = LlamaCell.handover(
                c,
                storePlan,
                null,
                new PdHandover.Sizes(probe.blockTokens(), layout),
                1,
                mostPrompt,
                System::nanoTime,
                new RealKvTotals())) {
            return pd.probe(LlamaCell.HANDOVER_PROBE_ROUNDS);
        }
    }
}
