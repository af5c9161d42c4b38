package dev.kvlab.harness.core.internal.sim;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.SchedulerConfig;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.transport.api.LinearTransportModel;

/**
 * One run of a live cell's twin on the sim clock from a {@link TwinCalibration} (no live cell needed): the cell's
 * config (its workload, seed, load, tiers, store) scheduled as the calibrated engine schedules, on the calibrated model
 * and "hardware", its data path costed by the measured store path. Deterministic: the same config and calibration
 * give the same result.
 */
public final class TwinRun {

    /** The block an engine's own prefix cache keeps in its twin (vLLM's default block size). */
    public static final int ENGINE_CACHE_BLOCK = 16;

    private TwinRun() {}

    /** {@code c} on the twin of {@code t}. */
    public static CellResult run(RunConfig c, TwinCalibration t) {
        if (t.tiers() != null) {
            // an engine's own prefix cache keeps prompts at its own granularity (vLLM's blocks of 16 tokens,
            // llama.cpp's
            // tokens), not the generator's default 512-token blocks: the twin's local tier keeps blocks of 16 unless
            // the
            // workload says its blocks
            var w = c.workload();
            if (w.generator() instanceof com.fasterxml.jackson.databind.node.ObjectNode g && !g.has("block_tokens")) {
                var g2 = g.deepCopy();
                g2.put("block_tokens", ENGINE_CACHE_BLOCK);
                c = c.withWorkload(new dev.kvlab.harness.api.config.WorkloadConfig(
                        w.trace(), g2, w.arrival(), w.limit(), w.blockTokens(), w.tenant(), w.lora(), w.passes()));
            }
            var cl = c.cluster();
            c = c.withTiersAndCluster(
                    dev.kvlab.harness.api.config.Tiers.parse(t.tiers()),
                    new dev.kvlab.harness.api.config.ClusterConfig(t.instances(), 1, cl.router(), 0, cl.cacheAware()));
        }
        if (t.cacheTokens() > 0) c = c.withLocal(c.local().withCacheTokens(t.cacheTokens()));
        RunConfig s = c.withScheduler(new SchedulerConfig(
                t.batchTokens(), t.sequences(), true, c.scheduler().kvMemoryFraction(), t.cacheChunks()));
        CellPlan plan = RunValidator.plan(s, k -> null, t.model(), t.hardware(), t.kvDtype());
        String transport = plan.transportName();
        double bw = t.hasLink() ? t.linkBytesPerSecond() : 1e12;
        double lat = t.hasLink() && Double.isFinite(t.linkLatencySeconds()) ? t.linkLatencySeconds() : 0;
        LinearTransportModel link = new LinearTransportModel(transport + "-measured", false, lat, 0, bw, bw);
        return SimTwin.run(plan, link, t.handoffPath(), Math.max(1, t.lookupNanos()));
    }
}
