package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.catalog.StepPrice;
import dev.kvlab.harness.bundle.ReplicateStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A searched live cell's predicted capacity against its measured one, as {@code capacity.json}'s summary entry carries
 * it ({@code predicted}): the twin's capacity (mean over the configured replicates), {@code error} = predicted /
 * measured − 1, whether it is within {@value #TOLERANCE_PERCENT}%, the twin run at each replicate's measured capacity
 * (TTFT p50, ITL p99, SLO attainment: predicted beside measured) and, for a miss, the likely cause read from those
 * figures and from the engine's own rates at capacity, as {@code TwinCheck} names it for fixed-load cells.
 */
final class PredictionCheck {

    /** A prediction within this share of the measured capacity agrees. */
    static final double TOLERANCE = 0.20;

    static final int TOLERANCE_PERCENT = 20;

    private PredictionCheck() {}

    static ObjectNode json(
            CapacitySpec c,
            TwinPrediction tp,
            ObjectNode summaryEntry,
            List<ObjectNode> entries,
            CapacitySearch.Searches searches) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        if (tp.off() != null) {
            o.putNull("capacity");
            o.putNull("error");
            o.put("off", tp.off());
            return o;
        }
        double measured = summaryEntry.path("capacity").path("mean").asDouble(Double.NaN);
        double predicted = tp.capacity();
        double error = predicted / measured - 1;
        o.set("capacity", CapacityResults.num(predicted));
        o.set("error", CapacityResults.num(Double.isFinite(error) ? error : Double.NaN));
        boolean within = Double.isFinite(error) && Math.abs(error) <= TOLERANCE;
        if (Double.isFinite(error)) o.put("within_tolerance", within);
        else
            o.putNull(
                    "within_tolerance"); // no error to judge (no measured capacity, or none predicted): the cause says
        // which
        o.put("tolerance", TOLERANCE);
        ArrayNode per = o.putArray("replicates");
        for (TwinPrediction.Replicate r : tp.replicates()) {
            ObjectNode e = per.addObject();
            e.put("replicate", r.replicate());
            e.set("capacity", CapacityResults.num(r.capacity()));
            e.set("first_failing", CapacityResults.num(r.firstFailing()));
            e.put("status", r.status());
            e.put("probes_used", r.probes().size());
        }
        o.put("twin", TwinPrediction.DIR + "/" + tp.cell() + ".json");
        o.set(
                "search_started_at",
                CapacityResults.num(
                        searches == null
                                        || searches.traces().isEmpty()
                                        || searches.traces().getFirst().probes().isEmpty()
                                ? Double.NaN
                                : searches.traces()
                                        .getFirst()
                                        .probes()
                                        .getFirst()
                                        .load()));
        o.put("engine", tp.json().path("engine").asText(""));
        // the twin at each replicate's measured capacity, that replicate's seed
        List<Double> pt = new ArrayList<>(),
                mt = new ArrayList<>(),
                pi = new ArrayList<>(),
                mi = new ArrayList<>(),
                pa = new ArrayList<>(),
                ma = new ArrayList<>(),
                engineRate = new ArrayList<>(),
                calibratedRate = new ArrayList<>(),
                stepOverTwin = new ArrayList<>();
        String noRun = null;
        for (ObjectNode e : entries) {
            double cap = e.path("capacity").asDouble(Double.NaN);
            if (!e.path("capacity").isNumber()) continue;
            int k = e.path("replicate").asInt();
            CapacitySearch.Trace trace =
                    searches == null || k >= searches.traces().size()
                            ? null
                            : searches.traces().get(k);
            if (trace == null) continue;
            for (ProbeResult p : trace.probes())
                if (p.load() == cap) {
                    engineRate.add(p.summary()
                            .path(Columns.ENGINE_PREFILL_TOKENS_PER_S.name())
                            .asDouble(Double.NaN));
                    calibratedRate.add(p.summary()
                            .path(Columns.ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S.name())
                            .asDouble(Double.NaN));
                    stepOverTwin.add(p.summary()
                            .path(Columns.ENGINE_STEP_TIME_OVER_TWIN.name())
                            .asDouble(Double.NaN));
                }
            mt.add(e.path(Columns.TTFT_P50.name()).asDouble(Double.NaN));
            mi.add(e.path(Columns.ITL_P99.name()).asDouble(Double.NaN));
            ma.add(e.path(Columns.SLO_ATTAINMENT.name()).asDouble(Double.NaN));
            if (tp.calibration() == null) {
                noRun = "the calibration in " + TwinPrediction.DIR + "/" + tp.cell() + ".json could not be read back";
                continue;
            }
            TwinPrediction.Probe q = TwinPrediction.probe(c, trace.base(), tp.calibration(), cap);
            pt.add(q.ttftP50());
            pi.add(q.itlP99());
            pa.add(q.attainment());
        }
        ObjectNode at = o.putObject("at_measured_capacity");
        at.set("load", CapacityResults.num(measured));
        pair(at, Columns.TTFT_P50.name(), mean(pt), mean(mt));
        pair(at, Columns.ITL_P99.name(), mean(pi), mean(mi));
        pair(at, Columns.SLO_ATTAINMENT.name(), mean(pa), mean(ma));
        at.set(Columns.ENGINE_STEP_TIME_OVER_TWIN.name(), CapacityResults.num(mean(stepOverTwin)));
        if (noRun != null) at.put("twin_not_run", noRun);
        atEngineSpeed(o, c, tp, searches, mean(stepOverTwin), measured);
        if (!within && Double.isFinite(error))
            o.put(
                    "cause",
                    cause(
                                    error,
                                    mean(pt),
                                    mean(mt),
                                    mean(pi),
                                    mean(mi),
                                    mean(pa),
                                    mean(ma),
                                    mean(engineRate),
                                    mean(calibratedRate),
                                    mean(stepOverTwin),
                                    c)
                            + atSpeedReading(o.path("at_engine_speed")));
        else if (!Double.isFinite(error))
            o.put(
                    "cause",
                    !Double.isFinite(measured)
                            ? "no measured capacity to compare with"
                            : "the twin found no capacity within the bounds");
        return o;
    }

    /**
     * The twin searched again at the speed the engine ran while it was measured ({@code at_engine_speed}: every step
     * priced {@code engine_step_time_over_twin} times, the mean at the measured capacity): its capacity and error. A
     * prediction it is not (it uses the measurement); it splits a miss into the machine's drift since the calibration
     * and the model's own error. Written only where there is a ratio and a calibration to run.
     */
    private static void atEngineSpeed(
            ObjectNode o,
            CapacitySpec c,
            TwinPrediction tp,
            CapacitySearch.Searches searches,
            double stepOverTwin,
            double measured) {
        if (!Double.isFinite(stepOverTwin)
                || !(stepOverTwin > 0)
                || tp.calibration() == null
                || searches == null
                || searches.traces().isEmpty()) return;
        ObjectNode a = o.putObject("at_engine_speed");
        a.set(Columns.ENGINE_STEP_TIME_OVER_TWIN.name(), CapacityResults.num(stepOverTwin));
        double cap;
        try {
            var scaled = tp.calibration().atSpeed(stepOverTwin);
            List<TwinPrediction.Replicate> reps = new ArrayList<>();
            int n = Math.min(
                    Math.max(1, tp.replicates().size()), searches.traces().size());
            for (int k = 0; k < n; k++)
                reps.add(TwinPrediction.search(c, searches.traces().get(k).base(), scaled));
            cap = TwinPrediction.mean(reps);
        } catch (RuntimeException e) { // a diagnostic: it never fails the run
            a.putNull("capacity");
            a.putNull("error");
            a.put("off", "the twin could not be searched again: " + e.getMessage());
            return;
        }
        a.set("capacity", CapacityResults.num(cap));
        double e = cap / measured - 1;
        a.set("error", CapacityResults.num(Double.isFinite(e) ? e : Double.NaN));
        a.put(
                "what",
                "the twin searched again after the measurement with every engine step priced "
                        + String.format(Locale.ROOT, "%.2f", stepOverTwin)
                        + "x (the speed the engine ran at, at the measured capacity): not a prediction; what is left of"
                        + " its error is the model's, the rest the machine's drift since the calibration");
    }

    /** The cause's last clause: the twin at the engine's speed ({@code at_engine_speed}), when it was run. */
    static String atSpeedReading(com.fasterxml.jackson.databind.JsonNode a) {
        if (!a.path("error").isNumber()) return "";
        double e = a.path("error").asDouble();
        return String.format(
                Locale.ROOT,
                "; searched again at the speed the engine ran, the twin finds %.3g (%+.0f%%): %s",
                a.path("capacity").asDouble(),
                e * 100,
                Math.abs(e) <= TOLERANCE
                        ? "the miss is the machine's speed, not the model"
                        : "the model misses by that much besides the machine's speed");
    }

    private static void pair(ObjectNode at, String name, double predicted, double measured) {
        ObjectNode p = at.putObject(name);
        p.set("predicted", CapacityResults.num(predicted));
        p.set("measured", CapacityResults.num(measured));
        p.set("error", CapacityResults.num(measured != 0 ? predicted / measured - 1 : Double.NaN));
    }

    /** The mean of the finite values (NaN: none). */
    private static double mean(List<Double> v) {
        return ReplicateStats.mean(v).mean();
    }

    /** The likely cause of a prediction off by more than the tolerance, in words. */
    static String cause(
            double error,
            double twinTtft,
            double ttft,
            double twinItl,
            double itl,
            double twinAtt,
            double att,
            double engineRate,
            double calibratedRate,
            double stepOverTwin,
            CapacitySpec c) {
        String dir = error > 0 ? "optimistic" : "pessimistic";
        String steps = StepPrice.reading(stepOverTwin);
        if (!steps.isEmpty())
            return String.format(
                    Locale.ROOT,
                    "the twin is %s (%+.0f%%): at capacity %s, and a capacity moves with the step time",
                    dir,
                    error * 100,
                    steps);
        if (Double.isFinite(engineRate)
                && Double.isFinite(calibratedRate)
                && (engineRate < 0.8 * calibratedRate || engineRate > 1.25 * calibratedRate))
            return String.format(
                    Locale.ROOT,
                    "the twin is %s (%+.0f%%): at capacity the engine prefilled at %.0f tokens/s against %.0f tokens/s in the "
                            + "calibration the twin's roofline reproduces: the roofline does not scale this engine's prefill from the calibration's passes "
                            + "to the batches it runs under load",
                    dir,
                    error * 100,
                    engineRate,
                    calibratedRate);
        boolean ttftOff =
                Double.isFinite(twinTtft) && Double.isFinite(ttft) && Math.abs(twinTtft - ttft) > TOLERANCE * ttft;
        boolean itlOff = Double.isFinite(twinItl) && Double.isFinite(itl) && Math.abs(twinItl - itl) > TOLERANCE * itl;
        if (ttftOff && (!itlOff || Math.abs(twinTtft / ttft - 1) >= Math.abs(twinItl / itl - 1)))
            return String.format(
                    Locale.ROOT,
                    "the twin is %s (%+.0f%%): at the measured capacity its TTFT p50 is %.1f ms against %.1f ms measured: "
                            + "the prefill (or the queue before it) is %s in the twin than on the engine",
                    dir,
                    error * 100,
                    twinTtft,
                    ttft,
                    twinTtft < ttft ? "cheaper" : "dearer");
        if (itlOff)
            return String.format(
                    Locale.ROOT,
                    "the twin is %s (%+.0f%%): at the measured capacity its ITL p99 is %.1f ms against %.1f ms measured: "
                            + "a decode step beside prompt chunks is %s in the twin than on the engine",
                    dir,
                    error * 100,
                    twinItl,
                    itl,
                    twinItl < itl ? "cheaper" : "dearer");
        return String.format(
                Locale.ROOT,
                "the twin is %s (%+.0f%%) although its TTFT p50 and ITL p99 at the measured capacity agree within %d%% "
                        + "(SLO attainment %.2f predicted, %.2f measured): near the knee the attainment changes slowly with load, so a small difference in "
                        + "the tail moves the capacity by more; the live search's own resolution is %.0f%% (precision) with probes decided at 95%%",
                dir,
                error * 100,
                TOLERANCE_PERCENT,
                twinAtt,
                att,
                c.precision() * 100);
    }
}
