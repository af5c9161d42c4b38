package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Csv;
import dev.kvlab.harness.api.config.SloConfig;
import dev.kvlab.harness.core.Wilson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One probe of a capacity search, judged from its recorded files: the attainment the rule counts (share of measured
 * requests meeting every SLO, or for {@code percentile} the lowest per-metric share), its Wilson 95% interval, the
 * validity gates ({@code min_requests}, {@code min_duration}) and the verdict.
 *
 * @param load          the knob's value
 * @param run           the probe's run id ({@code <cell>@<load>/r<k>})
 * @param requests      measured requests
 * @param good          of which counted good by the rule
 * @param attainment    good / requests (the rule's attainment)
 * @param sloAttainment the run's own {@code slo_attainment} column (every SLO jointly)
 * @param wilson        95% interval of {@code attainment}
 * @param valid         the gates held
 * @param passed        valid and {@code attainment >= target}
 * @param undecided     the interval straddles the target
 * @param wallSeconds   the run's wall time
 * @param summary       the run's summary row
 * @param passes        the workload's passes in this run (1: the probe as first run; more: extended, the same stream longer)
 * @param maxPasses     the cap: the most passes this probe could run (1: not extendable, a live or trace probe)
 * @param passesRun     the runs made at this load, by passes, this one last (1, 2, 4, ...)
 * @param steers        its verdict could move the capacity by more than the precision (bracketing, or a bisection bracket
 *                      wider than twice the precision); an undecided probe that steers leaves the answer open
 */
public record ProbeResult(
        double load,
        String run,
        long requests,
        long good,
        double attainment,
        double sloAttainment,
        Wilson wilson,
        boolean valid,
        boolean passed,
        boolean undecided,
        double wallSeconds,
        JsonNode summary,
        int passes,
        int maxPasses,
        List<Integer> passesRun,
        boolean steers) {

    /** The probe's verdict: {@code pass}, {@code fail}, or {@code undecided} (its interval still straddles the target at its cap). */
    public String verdict() {
        return undecided ? "undecided" : passed ? "pass" : "fail";
    }

    /** The measured requests the probe would take at its cap ({@code requests} scaled to {@code maxPasses}). */
    public long capRequests() {
        return passes == 0 ? requests : requests / passes * maxPasses;
    }

    static ProbeResult judge(CapacitySpec c, CellRun probe, double load, JsonNode summary, Path dir) {
        return judge(c, probe, load, summary, dir, 1, 1, List.of(1), true);
    }

    static ProbeResult judge(
            CapacitySpec c,
            CellRun probe,
            double load,
            JsonNode summary,
            Path dir,
            int passes,
            int maxPasses,
            List<Integer> passesRun,
            boolean steers) {
        long n = summary.path(Columns.REQUESTS.name()).asLong();
        double joint = summary.path(Columns.SLO_ATTAINMENT.name()).asDouble(Double.NaN);
        long good = "percentile".equals(c.rule())
                ? perMetricMin(probe.config().slo(), dir, n)
                : Double.isFinite(joint) ? Math.round(joint * n) : 0;
        double att = n == 0 ? 0 : (double) good / n;
        Wilson w = Wilson.of(good, n);
        double secs = summary.path(Columns.SIMULATED_SECONDS.name()).asDouble(0);
        boolean valid = n >= Math.max(1, c.minRequests()) && secs >= c.minDurationSeconds();
        boolean passed = valid && att >= c.targetAttainment();
        return new ProbeResult(
                load,
                probe.label(),
                n,
                good,
                att,
                joint,
                w,
                valid,
                passed,
                w.straddles(c.targetAttainment()),
                summary.path(Columns.WALL_SECONDS.name()).asDouble(0),
                summary,
                passes,
                maxPasses,
                passesRun,
                steers);
    }

    /**
     * MLPerf-style percentile rule: for each SLO metric given, the requests whose value is within it (a failed request
     * meets none); the least of these counts. {@code p<100·target> <= SLO} for every metric exactly when it is at
     * least {@code target · n}.
     */
    static long perMetricMin(SloConfig slo, Path runDir, long n) {
        List<List<String>> rows;
        try (java.io.BufferedReader r = dev.kvlab.harness.bundle.RunFiles.requests(runDir)) {
            if (r == null)
                throw new java.nio.file.NoSuchFileException(
                        runDir + "/requests.csv(.gz): the percentile rule reads every probe's requests");
            StringBuilder sb = new StringBuilder();
            char[] buf = new char[1 << 16];
            for (int k; (k = r.read(buf)) > 0; ) sb.append(buf, 0, k);
            rows = Csv.parse(sb.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the requests of " + runDir + ": " + e.getMessage(), e);
        }
        if (rows.isEmpty()) return 0;
        List<String> h = rows.get(0);
        String[] cols = {"ttft_ms", "tpot_ms", "tbt_ms", "e2el_ms"};
        Double[] limits = {slo.ttftMs(), slo.tpotMs(), slo.tbtMs(), slo.e2elMs()};
        int status = h.indexOf("status");
        long least = Long.MAX_VALUE;
        for (int m = 0; m < cols.length; m++) {
            if (limits[m] == null) continue;
            int ci = h.indexOf(cols[m]);
            long ok = 0;
            for (int i = 1; i < rows.size(); i++) {
                List<String> r = rows.get(i);
                if (r.size() != h.size() || !"ok".equals(r.get(status))) continue;
                String v = r.get(ci);
                double x = v.isEmpty() ? Double.NaN : Double.parseDouble(v);
                if (Double.isNaN(x) || x <= limits[m])
                    ok++; // no value (one output token): nothing to miss, as the joint rule
            }
            least = Math.min(least, ok);
        }
        return least == Long.MAX_VALUE ? 0 : Math.min(least, n);
    }
}
