package dev.kvlab.harness.report;

import dev.kvlab.harness.api.Columns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Recompute vs fetch measured on a real engine, next to the prediction: the cells of a sweep over the shared prefix
 * length with {@code policy} recompute and fetch (the other factors equal), each cell carrying what
 * {@code kvlab breakeven} predicts on its engine's calibration and the store path it measured
 * ({@link dev.kvlab.harness.api.Columns}). Per prefix length, the TTFT p50 of both policies (their difference is what fetching the
 * prefix saved) against the predicted recompute and fetch times of the prefix; the measured break-even is the
 * shortest swept length from which fetch's TTFT p50 is below recompute's at that and every longer length.
 *
 * @param group     the other factors' levels, e.g. {@code cache_state=hot, tiers=remote-only}
 * @param points    one per prefix length swept with both policies, shortest first
 * @param measured  the measured break-even: the first swept length from which fetch wins, 0 when it never does
 * @param below     the swept length before {@code measured} (0 when fetch already wins at the shortest)
 * @param predicted the predicted break-even (median over the group's cells)
 */
record EngineBreakeven(String group, List<Point> points, long measured, long below, double predicted) {

    /**
     * One prefix length.
     *
     * @param prefixTokens       the shared prefix (whole blocks)
     * @param ttftRecompute      TTFT p50 with policy recompute (ms, mean over replicates)
     * @param ttftFetch          TTFT p50 with policy fetch (ms)
     * @param predictedRecompute predicted recompute of the prefix (ms)
     * @param predictedFetch     predicted fetch of the prefix's KV (ms)
     * @param fetchP50           measured fetch p50 of the fetch cell (ms: fetch, verification, assembly and restore)
     * @param cells              the recompute and fetch cells' ids
     */
    record Point(
            long prefixTokens,
            double ttftRecompute,
            double ttftFetch,
            double predictedRecompute,
            double predictedFetch,
            double fetchP50,
            List<String> cells) {

        double measuredSaving() {
            return ttftRecompute - ttftFetch;
        }

        double predictedSaving() {
            return predictedRecompute - predictedFetch;
        }
    }

    /** Whether the predicted break-even lies where the measurement put it: in {@code (below, measured]}. */
    boolean agrees() {
        if (measured == 0) return predicted > points.getLast().prefixTokens();
        return predicted > below && predicted <= measured;
    }

    /**
     * The prediction at the swept lengths, as the measured break-even is found: the first swept length from which the
     * predicted fetch beats the predicted recompute at that and every longer swept length (0: at none). Where the
     * engine's cost is not monotonic in the prefix (a prompt whose last pass is short runs it on a slower kernel), this
     * can differ from {@link #predicted}, which is over every length.
     */
    long predictedOnSweep() {
        int from = points.size();
        while (from > 0 && points.get(from - 1).predictedSaving() > 0) from--;
        return from == points.size() ? 0 : points.get(from).prefixTokens();
    }

    /** Whether the prediction at the swept lengths is the measured break-even. */
    boolean agreesOnSweep() {
        return predictedOnSweep() == measured;
    }

    /** The measured break-even in words. */
    String measuredText() {
        if (measured == 0)
            return "fetch never won (up to " + Fmt.count(points.getLast().prefixTokens()) + " tokens)";
        if (below == 0) return "≤ " + Fmt.count(measured) + " tokens (fetch won at every length swept)";
        return "in (" + Fmt.count(below) + ", " + Fmt.count(measured) + "] tokens";
    }

    /** The sweeps in {@code cells}: groups with at least two prefix lengths run with both policies. */
    static List<EngineBreakeven> of(List<CellData> cells) {
        Map<String, TreeMap<Long, CellData[]>> groups = new LinkedHashMap<>();
        for (CellData c : cells) {
            String policy = c.factors().get("policy");
            double prefix = c.metric(Columns.SHARED_PREFIX_TOKENS.name()).mean();
            if (policy == null
                    || !Double.isFinite(prefix)
                    || !Double.isFinite(
                            c.metric(Columns.BREAKEVEN_PREDICTED_TOKENS.name()).mean())) continue;
            int slot = switch (policy) {
                case "recompute" -> 0;
                case "fetch" -> 1;
                default -> -1;
            };
            if (slot < 0) continue;
            List<String> key = new ArrayList<>();
            c.factors().forEach((k, v) -> {
                if (!k.equals("policy") && !k.endsWith("prefix_tokens")) key.add(k + "=" + v);
            });
            groups.computeIfAbsent(String.join(", ", key), k -> new TreeMap<>())
                    .computeIfAbsent(Math.round(prefix), k -> new CellData[2])[slot] = c;
        }
        List<EngineBreakeven> out = new ArrayList<>();
        groups.forEach((group, byPrefix) -> {
            List<Point> pts = new ArrayList<>();
            List<Double> predicted = new ArrayList<>();
            byPrefix.forEach((prefix, pair) -> {
                if (pair[0] == null || pair[1] == null) return;
                CellData r = pair[0], f = pair[1];
                predicted.add(
                        r.metric(Columns.BREAKEVEN_PREDICTED_TOKENS.name()).mean());
                predicted.add(
                        f.metric(Columns.BREAKEVEN_PREDICTED_TOKENS.name()).mean());
                pts.add(new Point(
                        prefix,
                        r.metric(Columns.TTFT_P50.name()).mean(),
                        f.metric(Columns.TTFT_P50.name()).mean(),
                        mean(
                                r.metric(Columns.PREDICTED_RECOMPUTE_MS.name()).mean(),
                                f.metric(Columns.PREDICTED_RECOMPUTE_MS.name()).mean()),
                        mean(
                                r.metric(Columns.PREDICTED_FETCH_MS.name()).mean(),
                                f.metric(Columns.PREDICTED_FETCH_MS.name()).mean()),
                        f.metric(Columns.FETCH_P50.name()).mean(),
                        List.of(r.id(), f.id())));
            });
            if (pts.size() < 2) return;
            // the shortest length from which fetch wins at every longer length too
            int from = pts.size();
            while (from > 0 && pts.get(from - 1).ttftFetch() < pts.get(from - 1).ttftRecompute()) from--;
            long measured = from == pts.size() ? 0 : pts.get(from).prefixTokens();
            long below = from == 0 || from == pts.size() ? 0 : pts.get(from - 1).prefixTokens();
            predicted.sort(null);
            out.add(new EngineBreakeven(group, List.copyOf(pts), measured, below, predicted.get(predicted.size() / 2)));
        });
        return out;
    }

    private static double mean(double a, double b) {
        if (!Double.isFinite(a)) return b;
        if (!Double.isFinite(b)) return a;
        return (a + b) / 2;
    }
}
