package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.ResolvedConfig;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.core.JsonOutput;
import dev.kvlab.harness.spi.TargetFramework;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The twin's capacity of one searched live cell, searched on the sim clock from the cell's calibration before the
 * cell's own search runs: each configured replicate (its seed) bracketed and bisected by the same rule as the live
 * search ({@link Bracket}: start, min, max, precision, max_probes, the target attainment, the validity gates), every
 * probe a twin run ({@link TargetFramework#twinRun}) of the cell's config with the knob set. Written to {@code twins/<cell>.json} before the live
 * search; read back on {@code --resume}.
 *
 * @param cell        the searched cell
 * @param off         why there is no prediction (null when there is one)
 * @param calibration the twin (null when off, or read back from a bundle whose calibration does not bind)
 * @param replicates  each replicate's twin search
 * @param json        the file as written
 */
record TwinPrediction(
        String cell, String off, TwinCalibration calibration, List<Replicate> replicates, ObjectNode json) {

    /** The bundle's folder of twin predictions. */
    static final String DIR = "twins";

    /**
     * One probe of the twin.
     *
     * @param load       the knob's value
     * @param requests   measured requests
     * @param attainment SLO attainment
     * @param passed     valid and at or above the target
     * @param ttftP50    TTFT p50 (ms)
     * @param itlP99     ITL p99 (ms)
     */
    record Probe(double load, long requests, double attainment, boolean passed, double ttftP50, double itlP99) {}

    /** One replicate's twin search: its capacity (NaN: none), first failing load, how it ended and its probes. */
    record Replicate(
            int replicate, long seed, double capacity, double firstFailing, String status, List<Probe> probes) {}

    /** A cell without a prediction, and why. */
    static TwinPrediction off(String cell, String why) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("cell", cell);
        o.put("off", why);
        return new TwinPrediction(cell, why, null, List.of(), o);
    }

    /** The twin searches of {@code runs} (a cell's configured replicates) on {@code t}; {@code calibrationSeconds} what calibrating took. */
    static TwinPrediction search(
            CapacitySpec c, String cell, List<CellRun> runs, TwinCalibration t, double calibrationSeconds) {
        List<Replicate> reps = new ArrayList<>();
        for (CellRun r : runs) reps.add(search(c, r, t));
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("cell", cell);
        o.put(
                "what",
                "the twin's capacity, searched on the sim clock from the cell's calibration before the live search (same rule, bounds and "
                        + "seeds; sim probes run in full, never extended)");
        o.put("engine", t.engine());
        o.put("calibration_seconds", calibrationSeconds);
        o.set("predicted_capacity", CapacityResults.num(mean(reps)));
        ArrayNode ra = o.putArray("replicates");
        for (Replicate r : reps) {
            ObjectNode e = ra.addObject();
            e.put("replicate", r.replicate());
            e.put("seed", r.seed());
            e.set("capacity", CapacityResults.num(r.capacity()));
            e.set("first_failing", CapacityResults.num(r.firstFailing()));
            e.put("status", r.status());
            ArrayNode pa = e.putArray("probes");
            for (Probe p : r.probes()) {
                ObjectNode q = pa.addObject();
                q.set("load", CapacityResults.num(p.load()));
                q.put(Columns.REQUESTS.name(), p.requests());
                q.set(Columns.SLO_ATTAINMENT.name(), CapacityResults.num(p.attainment()));
                q.put("passed", p.passed());
                q.set(Columns.TTFT_P50.name(), CapacityResults.num(p.ttftP50()));
                q.set(Columns.ITL_P99.name(), CapacityResults.num(p.itlP99()));
            }
        }
        try {
            o.set("calibration", JsonOutput.mapper().valueToTree(t));
        } catch (RuntimeException e) {
            o.put("calibration_not_written", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return new TwinPrediction(cell, null, t, List.copyOf(reps), o);
    }

    /** The mean of the replicates' predicted capacities (NaN when one has none). */
    static double mean(List<Replicate> reps) {
        if (reps.isEmpty()) return Double.NaN;
        double s = 0;
        for (Replicate r : reps) s += r.capacity();
        return s / reps.size();
    }

    double capacity() {
        return mean(replicates);
    }

    /** The twin's capacity search of one replicate ({@code base}'s seed) on {@code t}. */
    static Replicate search(CapacitySpec c, CellRun base, TwinCalibration t) {
        List<Bracket.Probe> verdicts = new ArrayList<>();
        List<Probe> probes = new ArrayList<>();
        while (true) {
            Bracket.Decision d = Bracket.next(c, verdicts);
            if (d.status() != Bracket.Status.PROBE)
                return new Replicate(
                        base.replicate(),
                        base.seed(),
                        Double.isFinite(d.lo()) ? d.lo() : Double.NaN,
                        d.hi(),
                        d.status().label(),
                        List.copyOf(probes));
            Probe p = probe(c, base, t, d.load());
            probes.add(p);
            verdicts.add(new Bracket.Probe(p.load(), p.passed()));
        }
    }

    /** The twin at {@code load} with {@code base}'s seed, judged by {@code c}'s gates and target. */
    static Probe probe(CapacitySpec c, CellRun base, TwinCalibration t, double load) {
        CellSummary s = TargetFramework.get().twinRun(at(c, base, load), t).summary();
        long n = s.get(Columns.REQUESTS);
        double att = s.get(Columns.SLO_ATTAINMENT);
        double secs = s.get(Columns.SIMULATED_SECONDS);
        boolean passed =
                n >= Math.max(1, c.minRequests()) && secs >= c.minDurationSeconds() && att >= c.targetAttainment();
        return new Probe(load, n, att, passed, s.p50Ms(Metric.TTFT), s.p99Ms(Metric.ITL));
    }

    /** {@code base}'s config with the knob at {@code load}. */
    static RunConfig at(CapacitySpec c, CellRun base, double load) {
        return new ResolvedConfig(
                        base.config(), base.tree(), base.label() + " (twin) at " + c.knob() + "=" + Bracket.label(load))
                .withLoad(c.knob(), load, c.integral())
                .checked();
    }

    /** The file's bytes. */
    byte[] bytes() {
        return BundleJson.pretty(json);
    }

    /** A prediction read back from its file ({@code --resume}); its calibration when it still binds. */
    static TwinPrediction read(JsonNode o) {
        String cell = o.path("cell").asText();
        if (o.hasNonNull("off"))
            return new TwinPrediction(cell, o.get("off").asText(), null, List.of(), (ObjectNode) o);
        TwinCalibration t = null;
        try {
            t = JsonOutput.mapper()
                    .copy()
                    .configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                    .treeToValue(
                            o.get("calibration"),
                            TwinCalibration
                                    .class); // derived figures written beside the components (mla) are not read back
        } catch (IOException | RuntimeException e) {
            // the capacities stand; the runs at the measured capacity are then NaN with the reason
        }
        List<Replicate> reps = new ArrayList<>();
        for (JsonNode r : o.path("replicates")) {
            List<Probe> ps = new ArrayList<>();
            for (JsonNode q : r.path("probes"))
                ps.add(new Probe(
                        q.path("load").asDouble(),
                        q.path(Columns.REQUESTS.name()).asLong(),
                        dbl(q.get(Columns.SLO_ATTAINMENT.name())),
                        q.path("passed").asBoolean(),
                        dbl(q.get(Columns.TTFT_P50.name())),
                        dbl(q.get(Columns.ITL_P99.name()))));
            reps.add(new Replicate(
                    r.path("replicate").asInt(),
                    r.path("seed").asLong(),
                    dbl(r.get("capacity")),
                    dbl(r.get("first_failing")),
                    r.path("status").asText(),
                    ps));
        }
        return new TwinPrediction(cell, null, t, reps, (ObjectNode) o);
    }

    static double dbl(JsonNode n) {
        return n == null || !n.isNumber() ? Double.NaN : n.asDouble();
    }
}
