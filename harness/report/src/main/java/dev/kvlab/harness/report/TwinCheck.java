package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.catalog.StepPrice;
import java.util.Locale;
import java.util.Map;

/**
 * A live cell × replicate against its sim twin: the errors of the twin's TTFT p50 and fetch p50, whether they are
 * within the tolerance (TTFT p50 within 20%, fetch p50 within 25%, either within 0.5 ms for figures of a few ms),
 * and when they are not, the likely cause read from the live cell's own overhead figures.
 *
 * @param ttft       live TTFT p50 (ms)
 * @param twinTtft   twin's TTFT p50 (ms)
 * @param fetch      live fetch p50 (ms), NaN when nothing was fetched
 * @param twinFetch  twin's fetch p50 (ms)
 * @param agrees     both within tolerance
 * @param cause      the likely cause when they do not agree, else ""
 */
public record TwinCheck(double ttft, double twinTtft, double fetch, double twinFetch, boolean agrees, String cause) {

    /** Relative tolerance of TTFT p50 and of fetch p50, and the absolute floor (ms). */
    public static final double TTFT_TOLERANCE = 0.20, FETCH_TOLERANCE = 0.25, FLOOR_MS = 0.5;

    /** The check of one summary row, or null when the row carries no twin. */
    public static TwinCheck of(Map<String, JsonNode> row) {
        double tt = Stat.num(row.get(Columns.TWIN_TTFT_P50.name()));
        if (!Double.isFinite(tt)) return null;
        double t = Stat.num(row.get(Columns.TTFT_P50.name()));
        double f = Stat.num(row.get(Columns.FETCH_P50.name())), tf = Stat.num(row.get(Columns.TWIN_FETCH_P50.name()));
        boolean ttftOk = within(t, tt, TTFT_TOLERANCE);
        boolean fetchOk = within(Double.isFinite(f) ? f : 0, Double.isFinite(tf) ? tf : 0, FETCH_TOLERANCE);
        String cause = ttftOk && fetchOk ? "" : cause(row, t, tt, f, tf, fetchOk);
        return new TwinCheck(t, tt, f, tf, ttftOk && fetchOk, cause);
    }

    static boolean within(double measured, double predicted, double rel) {
        return Math.abs(predicted - measured) <= Math.max(rel * Math.abs(measured), FLOOR_MS);
    }

    /** Relative error of the prediction, e.g. -0.12 for 12% below the measured figure. */
    static double error(double measured, double predicted) {
        return measured == 0 ? Double.NaN : (predicted - measured) / measured;
    }

    private static String cause(Map<String, JsonNode> row, double t, double tt, double f, double tf, boolean fetchOk) {
        double gc = Stat.num(row.get(Columns.GC_PAUSE_MS.name())),
                span = Stat.num(row.get(Columns.SIMULATED_SECONDS.name())) * 1e3;
        double lagP99 = Stat.num(row.get(Columns.EVENT_LAG_P99_US.name())) / 1e3,
                lagP50 = Stat.num(row.get(Columns.EVENT_LAG_P50_US.name())) / 1e3;
        double queue = Stat.num(row.get(Columns.QUEUE_P50.name()));
        double cpu = Stat.num(row.get(Columns.HARNESS_CPU_US_PER_REQUEST.name()));
        double share = Stat.num(row.get(Columns.TWIN_TTFT_P50_LIVE_SHARE.name()));
        double engine = Stat.num(row.get(Columns.ENGINE_PREFILL_TOKENS_PER_S.name()));
        double calibrated = Stat.num(row.get(Columns.ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S.name()));
        double steps = Stat.num(row.get(Columns.ENGINE_STEP_TIME_OVER_TWIN.name()));
        StringBuilder why = new StringBuilder();
        String stepReading = StepPrice.reading(steps);
        if (!stepReading.isEmpty()) why.append("the real engine: ").append(stepReading);
        else if (Double.isFinite(engine)
                && Double.isFinite(calibrated)
                && (engine < 0.8 * calibrated || engine > 1.25 * calibrated))
            why.append(String.format(
                    Locale.ROOT,
                    "the real engine prefilled at %.0f tokens/s over the cell's requests against %.0f tokens/s in "
                            + "the calibration its twin's roofline reproduces: the roofline does not scale this engine's prefill from the "
                            + "calibration's prefix to the cell's prompt and cached-context lengths",
                    engine,
                    calibrated));
        else if (fetchOk && Double.isFinite(share) && share >= 0.35 && share < 0.5)
            why.append(String.format(
                    Locale.ROOT,
                    "the TTFT p50 sits on the edge between two modes of the distribution (e.g. local hits and "
                            + "misses): %.0f%% of the live requests are at or below the twin's p50 (50%% would match), so a few late requests "
                            + "move it to the other mode%s",
                    share * 100,
                    Double.isFinite(lagP99) && lagP99 > 1.0
                            ? String.format(
                                    Locale.ROOT,
                                    "; here the loop ran events late (lag p99 %.2f ms): the machine is loaded",
                                    lagP99)
                            : ""));
        else if (Double.isFinite(gc) && Double.isFinite(span) && span > 0 && gc > 0.02 * span)
            why.append(String.format(Locale.ROOT, "GC: %.1f ms of pauses in %.0f ms measured", gc, span));
        else if (!fetchOk && Double.isFinite(f) && Double.isFinite(tf) && f > tf)
            why.append(String.format(
                    Locale.ROOT,
                    "loopback contention: fetches took %.2f ms against %.2f ms on the link measured at cell start "
                            + "(other transfers, write-backs and other processes share the loopback and the CPUs)",
                    f,
                    tf));
        else if (!fetchOk && Double.isFinite(f) && Double.isFinite(tf))
            why.append(String.format(
                    Locale.ROOT,
                    "the link measured at cell start was slower (%.2f ms predicted) than the fetches found it (%.2f ms)",
                    tf,
                    f));
        else if (Double.isFinite(lagP99) && lagP99 > 1.0)
            why.append(String.format(
                    Locale.ROOT,
                    "queueing in the harness: the loop thread ran events late (lag p50 %.2f ms, p99 %.2f ms; "
                            + "%.0f us of harness CPU per request): the machine is loaded",
                    lagP50,
                    lagP99,
                    cpu));
        else if (t > tt)
            why.append(String.format(
                    Locale.ROOT,
                    "harness overhead per request (%.0f us of harness CPU, queue p50 %.2f ms) not in the model",
                    cpu,
                    queue));
        else
            why.append(
                    "the model overestimates this cell (the sim's GPU or link model is slower than the emulated waits and real transfers)");
        return why.toString();
    }
}
