package dev.kvlab.harness.core;

import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.WorkloadPlan;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModel;

/**
 * A validated run config with everything derived from it resolved: catalog entries, KV sizing, roofline,
 * parsed sizes and durations. What the serving model and both clocks run from.
 *
 * @param config            the bound config
 * @param model             the model
 * @param hardware          the GPU with the config's efficiency overrides applied
 * @param kv                KV sizing for the config's dtype and TP
 * @param roofline          GPU time model of one instance
 * @param workload          the workload spec, arrival process and namespace
 * @param blockTokens       tokens per KV block
 * @param hbmKvBlocks       KV blocks one instance's HBM holds after the weights
 * @param dramBlocks        blocks of the per-instance DRAM tier (0 = none)
 * @param cacheBlocks       most blocks one instance's HBM prefix cache keeps (0 = every free block)
 * @param storeCapacity     bytes of the shared store
 * @param leaseTtlNanos     lease of a read
 * @param lookupNanos       sim: metadata round trip
 * @param intervalNanos     interval histogram length
 * @param spinNanos         live: spun tail of a wait
 * @param link              link per GPU (the instance has TP of them)
 * @param transportName     the transport's name when {@code transport} names one (tcp, shm, rdma-emu, local), else null
 * @param transportModel    what a transfer on one instance's link costs (sim: the data path; live: the auto policy's estimate)
 * @param handoffPath       sim, {@code pd: disaggregated}: the legs a prompt's handover from its prefill to its decode
 *                          instance takes in turn when its path is not the store's link (a real engine's twin: the
 *                          direct path its cell measured, one leg; or through a store, a put and then a get), each a
 *                          link the handovers on it share; null or empty: one transfer on {@code transportModel}
 */
public record CellPlan(
        RunConfig config,
        ModelSpec model,
        HardwareSpec hardware,
        KvSizing kv,
        Roofline roofline,
        WorkloadPlan workload,
        int blockTokens,
        long hbmKvBlocks,
        long dramBlocks,
        long cacheBlocks,
        long storeCapacity,
        long leaseTtlNanos,
        long lookupNanos,
        long intervalNanos,
        long spinNanos,
        LinkSpec link,
        String transportName,
        TransportModel transportModel,
        java.util.List<TransportModel> handoffPath) {

    public CellPlan {
        handoffPath = handoffPath == null ? java.util.List.of() : java.util.List.copyOf(handoffPath);
    }

    /** The part of this plan every target's cell has. */
    public CellSpec spec() {
        return new CellSpec(config, workload, blockTokens, intervalNanos);
    }

    /**
     * The store master's settings from the run config, for every clock (sim's master, the live embedded store's,
     * a fault cell's): seed, lease TTL, high watermark, eviction ratio. Client liveness is the caller's.
     */
    public MasterConfig masterConfig() {
        var st = config.store();
        return MasterConfig.defaults()
                .withSeed(config.seed())
                .withLeaseTtl(java.time.Duration.ofNanos(leaseTtlNanos))
                .withHighWatermark(st.highWatermark())
                .withEvictionRatio(st.evictionRatio());
    }

    /** The same plan with another transport model (a sim twin of a live cell runs on the link the live cell measured). */
    public CellPlan withTransportModel(TransportModel tm, long lookup) {
        return new CellPlan(
                config,
                model,
                hardware,
                kv,
                roofline,
                workload,
                blockTokens,
                hbmKvBlocks,
                dramBlocks,
                cacheBlocks,
                storeCapacity,
                leaseTtlNanos,
                lookup,
                intervalNanos,
                spinNanos,
                link,
                transportName,
                tm,
                handoffPath);
    }

    /** The same plan with the PD handover on the legs {@code handoff} (null or empty: on the transport model). */
    public CellPlan withHandoffPath(java.util.List<TransportModel> handoff) {
        return new CellPlan(
                config,
                model,
                hardware,
                kv,
                roofline,
                workload,
                blockTokens,
                hbmKvBlocks,
                dramBlocks,
                cacheBlocks,
                storeCapacity,
                leaseTtlNanos,
                lookupNanos,
                intervalNanos,
                spinNanos,
                link,
                transportName,
                transportModel,
                handoff);
    }

    /** Bytes of one block as the store holds it (KV counted once). */
    public long blockBytes() {
        return kv.blockBytes(blockTokens);
    }

    /** Bytes of one block over all TP ranks of an instance (what moves into an instance). */
    public long blockBytesAllRanks() {
        return kv.bytesPerTokenAllRanks() * blockTokens;
    }

    /** The instance's link: the per-GPU link times the TP degree (each rank fetches its share over its own NICs). */
    public LinkSpec instanceLink() {
        return new LinkSpec(link.links() * kv.tp(), link.bitsPerSecondPerLink(), link.latency());
    }
}
