package dev.kvlab.harness.api.config;

import dev.kvlab.harness.api.catalog.Dtype;
import java.util.List;

/**
 * One run (one cell), as bound from YAML by {@link ConfigTree}: snake_case keys, unknown keys are errors, every
 * value validated before anything runs. Paths are absolute once bound.
 *
 * @param mode        {@code sim} or {@code live}
 * @param seed        seed of every random choice of the run
 * @param catalog     extra model/hardware catalog files or directories
 * @param model       model from the catalog
 * @param hardware    GPU from the catalog
 * @param kvDtype     KV cache dtype
 * @param efficiency  overrides of the hardware's efficiency factors
 * @param cluster     instances, TP, router
 * @param scheduler   continuous batching
 * @param local       the per-instance tier
 * @param store       the shared store
 * @param workload    the requests
 * @param warmup      the warm-up pass of a hot cache
 * @param cacheState  factor: {@code cold} | {@code hot}
 * @param tiers       factor: {@code none} | {@code local-only} | {@code remote-only} | {@code combined}
 * @param policy      factor: {@code recompute} | {@code fetch} | {@code auto}
 * @param transport   factor: live {@code tcp|shm|rdma-emu|local}; sim a link per GPU ({@code 4x200gbps}), a calibrated
 *                    profile ({@code lab.yaml#tcp}), or a transport name (modelled by {@code transport_profile}, else {@code link})
 * @param transportProfile a profile written by {@code kvlab calibrate} whose models stand for transport names (sim; and
 *                    the live {@code auto} policy's estimate), or null
 * @param link        link per GPU behind a transport name without a profile (sim model, rdma-emu NIC, auto's estimate)
 * @param pd          factor: {@code colocated} | {@code disaggregated}
 * @param pdTransfer  factor, with {@code pd: disaggregated} only: how the KV is handed over, {@code direct} (transfer engine
 *                    into the decode side's registered buffer) | {@code store} (put and get through kvlab's store); null: direct
 * @param slo         the SLOs goodput counts against
 * @param measurement interval histograms
 * @param live        live clock settings
 * @param fault       factor: the fault injected ({@code none} | {@code node-crash} | {@code corrupt} | {@code lease-expiry} |
 *                    {@code link-delay} | {@code link-loss} | {@code master-restart} | {@code master-failover} | {@code master-partition})
 * @param faultAt     when the fault strikes: the share of the measured requests that have arrived by then, in [0, 1]
 * @param faultParams the fault's settings
 * @param target      what serves the cell's requests: {@code {kind: emulated}} (the serving model above) or another
 *                    target's block, bound and validated by its {@link dev.kvlab.harness.spi.TargetProvider}
 */
public record RunConfig(
        Mode mode,
        long seed,
        List<String> catalog,
        String model,
        String hardware,
        Dtype kvDtype,
        Efficiency efficiency,
        ClusterConfig cluster,
        SchedulerConfig scheduler,
        LocalTierConfig local,
        StoreConfig store,
        WorkloadConfig workload,
        WarmupConfig warmup,
        CacheState cacheState,
        Tiers tiers,
        Policy policy,
        String transport,
        String transportProfile,
        String link,
        Pd pd,
        PdTransfer pdTransfer,
        SloConfig slo,
        MeasurementConfig measurement,
        LiveConfig live,
        Fault fault,
        double faultAt,
        FaultParams faultParams,
        com.fasterxml.jackson.databind.JsonNode target) {

    public RunConfig {
        catalog = catalog == null ? List.of() : List.copyOf(catalog);
    }

    /** This config with {@code t} as its tiers and {@code cl} as its cluster (a twin of an engine that says its own). */
    public RunConfig withTiersAndCluster(Tiers t, ClusterConfig cl) {
        return copy(seed, cl, scheduler, local, workload, t, measurement);
    }

    /** This config with {@code w} as its workload. */
    public RunConfig withWorkload(WorkloadConfig w) {
        return copy(seed, cluster, scheduler, local, w, tiers, measurement);
    }

    /** This config with {@code s} as its scheduler (a twin that schedules as the engine it models does). */
    public RunConfig withScheduler(SchedulerConfig s) {
        return copy(seed, cluster, s, local, workload, tiers, measurement);
    }

    /** This config with {@code l} as its per-instance tier (a twin of an engine whose prefix cache is bounded). */
    public RunConfig withLocal(LocalTierConfig l) {
        return copy(seed, cluster, scheduler, l, workload, tiers, measurement);
    }

    /** This config with {@code s} as its seed (a replicate: seed + k). */
    public RunConfig withSeed(long s) {
        return copy(s, cluster, scheduler, local, workload, tiers, measurement);
    }

    /** This config with {@code m} as its measurement settings (a live probe's early stop). */
    public RunConfig withMeasurement(MeasurementConfig m) {
        return copy(seed, cluster, scheduler, local, workload, tiers, m);
    }

    /** This config with the components the withers change at the given values: the one place that spells the constructor out. */
    private RunConfig copy(
            long seed,
            ClusterConfig cluster,
            SchedulerConfig scheduler,
            LocalTierConfig local,
            WorkloadConfig workload,
            Tiers tiers,
            MeasurementConfig measurement) {
        return new RunConfig(
                mode,
                seed,
                catalog,
                model,
                hardware,
                kvDtype,
                efficiency,
                cluster,
                scheduler,
                local,
                store,
                workload,
                warmup,
                cacheState,
                tiers,
                policy,
                transport,
                transportProfile,
                link,
                pd,
                pdTransfer,
                slo,
                measurement,
                live,
                fault,
                faultAt,
                faultParams,
                target);
    }
}
