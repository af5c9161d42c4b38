package dev.kvlab.harness.api;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A matrix's {@code capacity:} block, validated: every searched cell × replicate becomes a search for the highest
 * offered load at which SLO attainment stays at or above {@code targetAttainment} — bracket by doubling (or
 * halving) from {@code start}, then bisect; every probe an ordinary cell run with the replicate's own seed (common
 * random numbers across cells and loads). Keys in {@code docs/bundle-format.md} ("Capacity search").
 *
 * @param knob             the load key, normalised ({@code workload.arrival.rate|speedup|users|max_concurrency})
 * @param start            first probe
 * @param min              give up below (the cell meets the SLO at no load within the bound)
 * @param max              give up above (the cell never saturates within the bound)
 * @param targetAttainment pass: attainment &gt;= this, in (0, 1]
 * @param rule             {@code attainment} (share of requests meeting every SLO, DistServe) or {@code percentile}
 *                         (every SLO metric's p&lt;100·target&gt; within its SLO, MLPerf-style: the lowest per-metric share)
 * @param precision        stop when (first failing − last passing) / last passing &lt;= this
 * @param maxProbes        probes per search at most
 * @param minRequests      a probe with fewer measured requests is invalid (counts as failing)
 * @param minDurationSeconds a probe whose measured phase is shorter is invalid (counts as failing)
 * @param budgetSeconds    wall-clock budget of one search (its probes' wall time); 0 = none; a search out of budget reports its bracket
 * @param earlyStop        live probes stop sending once their verdict is decided at 95% (binomial, first look after
 *                         max(min_requests, {@value #EARLY_STOP_FIRST_LOOK}) requests; {@code rule: attainment} only) [true]
 * @param cells            which cells are searched: factor → levels (every cell when empty); other cells run once at their own load
 * @param maxPasses        a sim probe whose Wilson interval straddles the target is run again on its workload 2, 4, ... times
 *                         over ({@code workload.passes}, the same stream made longer) until the interval excludes the target
 *                         or this many passes (the cap) were run; 1 = never extended [8]
 * @param replicates       replicates of every searched cell (seeds {@code seed + k}); 0 = the matrix's {@code replicates} [0]
 */
public record CapacitySpec(String knob, double start, double min, double max, double targetAttainment, String rule,
                           double precision, int maxProbes, long minRequests, double minDurationSeconds, double budgetSeconds,
                           boolean earlyStop, Map<String, Set<String>> cells, int maxPasses, int replicates) {

    /** The fewest measured requests before a live probe's first early-stop look. */
    public static final long EARLY_STOP_FIRST_LOOK = 50;

    /** The numeric load keys a search may vary. */
    public static final List<String> KNOBS = List.of("workload.arrival.rate", "workload.arrival.speedup", "workload.arrival.users",
            "workload.arrival.max_concurrency");

    /** Default of {@code max_passes}. */
    public static final int MAX_PASSES = 8;

    public CapacitySpec {
        cells = Map.copyOf(cells);
        if (maxPasses < 1) throw new IllegalArgumentException("max_passes must be >= 1, got " + maxPasses);
        if (replicates < 0) throw new IllegalArgumentException("replicates must be >= 0, got " + replicates);
    }

    /** The passes a probe's extension runs next after {@code passes}: double, at most {@code max_passes}. */
    public int nextPasses(int passes) {
        return (int) Math.min((long) passes * 2, maxPasses);
    }

    /** Whether the knob takes whole numbers ({@code users}, {@code max_concurrency}). */
    public boolean integral() {
        return knob.endsWith(".users") || knob.endsWith(".max_concurrency");
    }

    /** Whether the cell with these factor levels is searched. */
    public boolean searches(Map<String, String> factors) {
        for (var e : cells.entrySet()) if (!e.getValue().contains(factors.get(e.getKey()))) return false;
        return true;
    }
}
