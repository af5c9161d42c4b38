package dev.kvlab.harness.core.internal.cell;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.core.internal.engine.WorkloadDriver;
import dev.kvlab.harness.core.internal.measure.EarlyStop;
import dev.kvlab.harness.core.internal.measure.Measurement;
import dev.kvlab.harness.core.internal.measure.ProgressView;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.RequestSource;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The steps every cell takes, written once for both clocks and every target: the cell's server on its loop, the
 * warm-up pass of a hot cell (unmeasured; of a cold one too where the target says that pass primes nothing), the measured phase (measurement behind the cell's fault hooks, the
 * workload driver), the check that nothing is left in flight, and the assembly of the row ({@link CellAssembly}). A
 * {@link TargetCell} (the SPI's, whatever the target: the emulated model's sim and live cells too) supplies what differs.
 */
public final class CellSteps {

    private CellSteps() {}

    public static CellResult run(CellSpec plan, TargetCell clock, CellObserver observer, long wallStartNanos) {
        var c = plan.config();
        Server model = clock.server();
        int bt = plan.blockTokens();
        long warmupRequests = 0;
        boolean warmup = c.cacheState() == CacheState.HOT || clock.warmsColdCells();
        long primed = warmup ? clock.primedBy() : -1;
        if (primed >= 0) warmupRequests = primed;
        else if (warmup) {
            ArrivalProcess wp = clock.warmupArrivals(clock.arrivals(
                    c.warmup().fraction() >= 1
                            ? plan.workload().open(c.seed())
                            : plan.workload().open(c.seed(), Math.max(1, (long)
                                    Math.ceil(requestCount(plan) * c.warmup().fraction())))));
            try (wp) {
                WorkloadDriver warm = new WorkloadDriver(
                        wp, model, clock.loop(), clock.phaseOrigin(true), true, ServingListener.NONE, bt);
                model.listener(warm);
                warm.start();
                clock.runPhase(warm);
                if (warm.error() != null) throw warm.error();
                warmupRequests = warm.released();
            }
        }
        // the cell's own bookkeeping first (a target may read its store's counters here): the moment the first request
        // is
        // spared is taken after it
        clock.measuredPhaseStarts();
        long origin = clock.phaseOrigin(false);
        EarlyStop earlyStop = null;
        Measurement m = new Measurement(c.slo(), plan.intervalNanos(), origin);
        ProgressView.watch(
                m,
                model,
                clock::wrongHitsUsed,
                clock::masterStats,
                clock::masterCalls,
                clock::engineCounters,
                observer,
                clock.storePath());
        ServingListener measured = clock.faultWrapped(m, origin, () -> requestCount(plan));
        try (ArrivalProcess p = clock.arrivals(plan.workload().open(c.seed()))) {
            WorkloadDriver driver = new WorkloadDriver(p, model, clock.loop(), origin, false, measured, bt);
            if (c.measurement().earlyStop().enabled()) {
                earlyStop = new EarlyStop(c.measurement().earlyStop());
                EarlyStop es = earlyStop;
                m.watchWaiting();
                // requests already past the TTFT SLO while waiting count as decided (they cannot meet it): an
                // overloaded probe
                // fails on its first look instead of after its queue has drained
                // and no look before the measured phase has run its minimum time (a probe stopped short of its capacity
                // search's min_duration would be invalid whatever its verdict)
                long firstLook = origin + c.measurement().earlyStop().minDurationNanos();
                driver.stopReleasingWhen(() -> clock.serverGone()
                        || (clock.loop().now() >= firstLook
                                && es.decided(
                                        m.good(),
                                        m.completed()
                                                + m.failed()
                                                + m.missedWhileWaiting(
                                                        clock.loop().now()))));
            } else {
                driver.stopReleasingWhen(clock::serverGone);
            }
            model.listener(driver);
            driver.start();
            clock.runPhase(driver);
            if (driver.error() != null) throw driver.error();
        }
        if (model.inFlight() != 0) {
            throw new IllegalStateException(
                    c.mode().label() + " cell ended with " + model.inFlight() + " requests in flight:" + model.state());
        }
        m.finish(clock.loop().now());
        double wall = (System.nanoTime() - wallStartNanos) / 1e9;
        Figures extras = new Figures();
        clock.extras(m, extras);
        if (earlyStop != null) {
            Columns.EARLY_STOP_VERDICT.put(extras, earlyStop.verdict().name().toLowerCase(java.util.Locale.ROOT));
            Columns.EARLY_STOP_DECIDED_AT.put(extras, earlyStop.decidedAt());
        }
        MasterStats ms = clock.masterStats();
        if (ms != null) {
            Columns.STORE_OBJECTS.put(extras, ms.objects());
            Columns.STORE_EVICTED_OBJECTS.put(extras, ms.evictedObjects());
            Columns.STORE_EVICTION_RUNS.put(extras, ms.evictionRuns());
            Columns.STORE_USAGE.put(extras, ms.usage());
        }
        Map<String, String> describe = new LinkedHashMap<>();
        describe.put("clock", clock.describe());
        return CellAssembly.assemble(plan, clock, m, warmupRequests, wall, extras, describe);
    }

    /** Requests in the cell's workload (a hot cell's partial warm-up and the faults' strike point count from it). */
    public static long requestCount(CellSpec plan) {
        long n = 0;
        try (RequestSource s = plan.workload().requests(plan.config().seed())) {
            while (s.hasNext()) {
                s.next();
                n++;
            }
        }
        return n;
    }
}
