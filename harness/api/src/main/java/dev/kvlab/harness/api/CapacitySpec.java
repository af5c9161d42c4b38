package dev.kvlab.harness.api;

import dev.kvlab.harness.api.run.ResolvedConfig;
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
 * @param maxReplicates    a searched cell whose capacity interval is wider than {@code halfWidth} gets more replicates
 *                         (seeds {@code seed + k} on), up to this many in all; 0 = never more than {@code replicates} [0]
 * @param halfWidth        the target of a searched cell's capacity: its Student-t 95% half-width at most this share of
 *                         its mean; a cell that misses it is flagged {@code wide}, in (0, 1) [0.10]
 * @param predict          every searched live cell whose target has a twin gets the twin's capacity searched on the sim
 *                         clock before its own (written to {@code twins/<cell>.json}), set beside the measured one [true]
 */
public record CapacitySpec(
        String knob,
        double start,
        double min,
        double max,
        double targetAttainment,
        String rule,
        double precision,
        int maxProbes,
        long minRequests,
        double minDurationSeconds,
        double budgetSeconds,
        boolean earlyStop,
        Map<String, Set<String>> cells,
        int maxPasses,
        int replicates,
        int maxReplicates,
        double halfWidth,
        boolean predict)
        implements ExperimentSpec {

    @Override
    public String key() {
        return "capacity";
    }

    /** A search: each probe's load follows from the last probe's result. */
    @Override
    public boolean adaptive() {
        return true;
    }

    /** The fewest measured requests before a live probe's first early-stop look. */
    public static final long EARLY_STOP_FIRST_LOOK = 50;

    /** The numeric load keys a search may vary. */
    public static final List<String> KNOBS =
            List.of(ResolvedConfig.RATE, ResolvedConfig.SPEEDUP, ResolvedConfig.USERS, ResolvedConfig.MAX_CONCURRENCY);

    /**
     * The sane bounds of a load, per knob: a load outside them is refused when the block is read (it would be an
     * absurd experiment, and a load's text names probe cells and their directories). Requests per second, trace
     * speed-up, closed-loop users and the open-loop concurrency cap: at most a million each; continuous knobs at least
     * a millionth, whole-number knobs at least 1.
     */
    public static final double MAX_LOAD = 1e6;

    public static final double MIN_CONTINUOUS_LOAD = 1e-6;
    /** Probes per search at most (a search from the smallest to the largest load and bisected to 12 digits needs ~80). */
    public static final int MAX_PROBES = 1000;
    /** {@code min_requests} at most. */
    public static final long MAX_MIN_REQUESTS = 1_000_000_000L;
    /** {@code min_duration} at most, seconds (a day). */
    public static final double MAX_MIN_DURATION_S = 86_400;
    /** {@code budget} at most, seconds (30 days). */
    public static final double MAX_BUDGET_S = 30 * 86_400;
    /** Default of {@code max_passes}. */
    public static final int MAX_PASSES = 8;
    /** {@code max_passes} at most (a probe's workload that many times over). */
    public static final int MAX_MAX_PASSES = 1024;
    /** {@code replicates} at most, per searched cell. */
    public static final int MAX_REPLICATES = 1000;
    /** Default of {@code half_width}: a capacity within +-10% of it is an answer to act on. */
    public static final double HALF_WIDTH = 0.10;

    public CapacitySpec {
        cells = Map.copyOf(cells);
        double lo = minLoad(knob);
        for (double x : new double[] {start, min, max})
            if (!(x >= lo && x <= MAX_LOAD))
                throw new IllegalArgumentException("capacity: load " + x + " outside [" + lo + ", " + MAX_LOAD + "]");
        if (maxProbes < 1 || maxProbes > MAX_PROBES)
            throw new IllegalArgumentException(
                    "capacity: max_probes " + maxProbes + " outside [1, " + MAX_PROBES + "]");
        if (maxPasses < 1 || maxPasses > MAX_MAX_PASSES)
            throw new IllegalArgumentException(
                    "capacity: max_passes " + maxPasses + " outside [1, " + MAX_MAX_PASSES + "]");
        if (replicates < 0 || replicates > MAX_REPLICATES)
            throw new IllegalArgumentException(
                    "capacity: replicates " + replicates + " outside [0, " + MAX_REPLICATES + "]");
        if (maxReplicates < 0 || maxReplicates > MAX_REPLICATES)
            throw new IllegalArgumentException(
                    "capacity: max_replicates " + maxReplicates + " outside [0, " + MAX_REPLICATES + "]");
        if (maxReplicates > 0 && maxReplicates < replicates)
            throw new IllegalArgumentException(
                    "capacity: max_replicates " + maxReplicates + " below replicates " + replicates);
        if (!(halfWidth > 0 && halfWidth < 1))
            throw new IllegalArgumentException("capacity: half_width " + halfWidth + " outside (0, 1)");
    }

    /**
     * The most replicates a searched cell runs, {@code initial} being the replicates it starts with ({@code replicates},
     * or the matrix's): {@code max_replicates}, or {@code initial} when it is not given (no replicates added).
     */
    public int replicateCap(int initial) {
        return Math.max(initial, maxReplicates);
    }

    /** Whether the search may add replicates to one of {@code cells} (a searched cell whose cap is above the replicates it has). */
    public boolean mayAddReplicates(List<MatrixCell> cells) {
        for (MatrixCell cell : cells)
            if (searches(cell.factors())
                    && replicateCap(cell.runs().size()) > cell.runs().size()) return true;
        return false;
    }

    /** The passes a probe's extension runs next after {@code passes}: double, at most {@code max_passes}. */
    public int nextPasses(int passes) {
        return (int) Math.min((long) passes * 2, maxPasses);
    }

    /** The smallest load the knob takes: 1 for whole-number knobs, {@link #MIN_CONTINUOUS_LOAD} else. */
    public static double minLoad(String knob) {
        return integral(knob) ? 1 : MIN_CONTINUOUS_LOAD;
    }

    static boolean integral(String knob) {
        return knob.endsWith(".users") || knob.endsWith(".max_concurrency");
    }

    /** Whether the knob takes whole numbers ({@code users}, {@code max_concurrency}). */
    public boolean integral() {
        return integral(knob);
    }

    /** Whether the cell with these factor levels is searched. */
    public boolean searches(Map<String, String> factors) {
        for (var e : cells.entrySet()) if (!e.getValue().contains(factors.get(e.getKey()))) return false;
        return true;
    }
}
