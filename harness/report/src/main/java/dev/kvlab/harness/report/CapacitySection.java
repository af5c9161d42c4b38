package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.bundle.CapacityFile;
import dev.kvlab.harness.report.Html.Cell;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The report's first section, <i>Capacity under SLO</i>, from {@code capacity.json}: capacity per cell with its
 * interval and the gain over the baseline next to the hit ratios at capacity, attainment and goodput against offered
 * load, and every probe of every search.
 */
final class CapacitySection {

    private final Html h;
    private final JsonNode cap;
    private final Predicate<String> figure;

    CapacitySection(Html h, JsonNode cap, Predicate<String> figure) {
        this.h = h;
        this.cap = cap;
        this.figure = figure;
    }

    void render() {
        String knob = cap.path("knob").asText();
        h.raw("<h2 id=\"capacity\">Capacity under SLO</h2>\n");
        h.el(
                "p",
                String.format(
                        Locale.ROOT,
                        "The highest offered load (%s) each cell sustains with SLO attainment at or above %s (%s rule: %s). "
                                + "Each cell × replicate was searched: bracketed by doubling or halving from %s, then bisected to a relative precision of %s, "
                                + "every probe an ordinary cell run with the replicate's seed (common random numbers across cells). Capacity is the last "
                                + "passing load; the gain is paired, replicate by replicate, against the baseline cell, and its interval blocked by seed "
                                + "(the spread around cell and seed effects, pooled over the cells).",
                        knob,
                        Fmt.num(cap.path("target_attainment").asDouble()),
                        cap.path("rule").asText(),
                        "percentile".equals(cap.path("rule").asText())
                                ? "every SLO metric's percentile at the target within its SLO"
                                : "the share of measured requests meeting every SLO",
                        startText(),
                        Fmt.num(cap.path("precision").asDouble())));
        List<List<Cell>> rows = new ArrayList<>();
        for (JsonNode s : cap.path("summary")) {
            JsonNode k = s.path("capacity");
            List<Cell> r = new ArrayList<>();
            r.add(Cell.code(s.path("cell").asText()));
            r.add(Cell.num(Fmt.num(k.path("mean").asDouble(Double.NaN))));
            r.add(Cell.num(
                    k.path("ci95").isArray()
                            ? "[" + Fmt.num(k.path("ci95").get(0).asDouble()) + ", "
                                    + Fmt.num(k.path("ci95").get(1).asDouble()) + "]"
                            : Fmt.NONE));
            r.add(Cell.num(
                    s.path("replicates").isNumber()
                            ? Integer.toString(s.get("replicates").asInt())
                            : Fmt.NONE));
            r.add(Cell.num(cap.path("baseline").isTextual() ? gain(s.path("vs_baseline")) : Fmt.NONE));
            r.add(Cell.num(
                    Fmt.pct(s.path("local_hit_ratio_at_capacity").path("mean").asDouble(Double.NaN))));
            r.add(Cell.num(
                    Fmt.pct(s.path("remote_hit_ratio_at_capacity").path("mean").asDouble(Double.NaN))));
            r.add(Cell.num(
                    Fmt.num(s.path("goodput_rps_at_capacity").path("mean").asDouble(Double.NaN))));
            r.add(Cell.num(
                    Fmt.pct(s.path("slo_attainment_at_capacity").path("mean").asDouble(Double.NaN))));
            List<String> flags = new ArrayList<>();
            s.path("flags").forEach(x -> flags.add(x.asText()));
            r.add(Cell.of(flags.isEmpty() ? "" : String.join(", ", flags)));
            rows.add(r);
        }
        h.open("div", "class=\"scroll\"");
        h.table(
                "summary",
                List.of(
                        "cell",
                        "capacity (mean)",
                        "95% CI",
                        "replicates",
                        "vs baseline",
                        "local hit at capacity",
                        "remote hit at capacity",
                        "goodput at capacity (req/s)",
                        "SLO att. at capacity",
                        "flags"),
                rows);
        h.close("div");
        h.el(
                "p",
                "class=\"sub\"",
                "Flags: " + CapacityFile.UNDECIDED_MEANS.replaceFirst("^undecided: ", "undecided — ")
                        + "; "
                        + cap.path("wide_means").asText(CapacityFile.WIDE_MEANS).replaceFirst("^wide: ", "wide — ")
                        + "; non_monotone — attainment rose with load between two probes (both shown below); invalid — a probe missed min_requests or "
                        + "min_duration and counted as failing; below_min / above_max — no knee within [min, max]; max_probes / budget — the search "
                        + "stopped with a bracket: the capacity shown is its last passing load, the knee lies between it and the first failing one.");
        List<String> targets = new ArrayList<>();
        for (JsonNode s : cap.path("summary")) {
            JsonNode t = s.path("replicate_target");
            if (t.isObject()
                    && (!t.path("met").asBoolean(true)
                            || t.path("replicates").asInt()
                                    > t.path("started_with").asInt()))
                targets.add(s.path("cell").asText() + ": " + t.path("text").asText());
        }
        if (!targets.isEmpty())
            h.el("p", "class=\"sub\"", "Replicates against the half-width target: " + String.join("; ", targets) + ".");
        h.open("div", "class=\"pair\"");
        figure.test("capacity");
        figure.test("capacity-hits");
        h.close("div");
        figure.test("capacity-attainment");
        figure.test("capacity-goodput");
        if (cap.path("breakeven_link").isObject()) {
            List<String> be = new ArrayList<>();
            cap.path("breakeven_link")
                    .fields()
                    .forEachRemaining(e -> be.add(e.getValue().path("text").asText(e.getKey())));
            h.el("p", "", "The link as an axis: " + String.join("; ", be) + ".");
        }
        figure.test("capacity-link");
        cost();
        predicted();
        probes();
    }

    /** What a capacity costs, where the cells have a price: per million output tokens served within the SLO, and against the baseline. */
    private void cost() {
        List<List<Cell>> rows = new ArrayList<>();
        for (JsonNode s : cap.path("summary")) {
            JsonNode c = s.path(Columns.COST_PER_M_OUTPUT_TOKENS.name());
            if (!c.isObject()) continue;
            JsonNode v = s.path(Columns.COST_VS_BASELINE.name());
            String vs = v.path("mean").isNumber()
                    ? String.format(
                            Locale.ROOT, "%+.0f%%", 100 * (v.path("mean").asDouble() - 1))
                    : Fmt.NONE;
            if (v.path("ci95").isArray())
                vs += String.format(
                        Locale.ROOT,
                        " [%+.0f%%, %+.0f%%]",
                        100 * (v.path("ci95").get(0).asDouble() - 1),
                        100 * (v.path("ci95").get(1).asDouble() - 1));
            rows.add(List.of(
                    Cell.code(s.path("cell").asText()),
                    Cell.num(Fmt.num(s.path("price_per_hour").asDouble(Double.NaN))),
                    Cell.num(Fmt.num(c.path("mean").asDouble(Double.NaN))),
                    Cell.num(vs)));
        }
        if (rows.isEmpty()) return;
        h.raw("<h3 id=\"capacity-cost\">Cost at the SLO</h3>\n");
        h.el(
                "p",
                "The price per hour of a cell's instances over the output tokens per hour it serves within the SLO at its capacity, per "
                        + "million tokens (mean over replicates), and what the cache changes in it against the baseline, paired by replicate.");
        h.table(
                null,
                List.of("cell", "price per hour", "cost per 1M output tokens within the SLO", "vs baseline"),
                rows);
    }

    /** "capacity (error)" of the twin searched at the engine's measured speed; "—" where it was not run. */
    private static String atEngineSpeed(JsonNode a) {
        if (!a.path("capacity").isNumber()) return Fmt.NONE;
        return Fmt.num(a.path("capacity").asDouble())
                + (a.path("error").isNumber()
                        ? String.format(
                                Locale.ROOT, " (%+.0f%%)", 100 * a.path("error").asDouble())
                        : "");
    }

    /** The twins' capacities beside the measured ones, where the searched cells had a prediction. */
    private void predicted() {
        List<List<Cell>> rows = new ArrayList<>();
        List<String> causes = new ArrayList<>();
        for (JsonNode s : cap.path("summary")) {
            JsonNode p = s.path("predicted");
            if (!p.isObject()) continue;
            String cell = s.path("cell").asText();
            if (p.path("off").isTextual()) {
                causes.add(cell + ": no prediction: " + p.path("off").asText());
                continue;
            }
            JsonNode at = p.path("at_measured_capacity");
            rows.add(List.of(
                    Cell.code(cell),
                    Cell.num(Fmt.num(s.path("capacity").path("mean").asDouble(Double.NaN))),
                    Cell.num(Fmt.num(p.path("capacity").asDouble(Double.NaN))),
                    Cell.num(
                            p.path("error").isNumber()
                                    ? String.format(
                                            Locale.ROOT,
                                            "%+.0f%%",
                                            100 * p.path("error").asDouble())
                                    : Fmt.NONE),
                    Cell.num(pair(at.path(Columns.TTFT_P50.name()))),
                    Cell.num(pair(at.path(Columns.ITL_P99.name()))),
                    Cell.num(Fmt.num(
                            at.path(Columns.ENGINE_STEP_TIME_OVER_TWIN.name()).asDouble(Double.NaN))),
                    Cell.num(atEngineSpeed(p.path("at_engine_speed"))),
                    Cell.of(
                            !p.path("within_tolerance").isBoolean()
                                    ? Fmt.NONE
                                    : p.path("within_tolerance").asBoolean()
                                            ? "within ±"
                                                    + Math.round(100
                                                            * p.path("tolerance")
                                                                    .asDouble()) + "%"
                                            : "off")));
            if (p.path("cause").isTextual())
                causes.add(cell + ": " + p.path("cause").asText());
        }
        if (rows.isEmpty() && causes.isEmpty()) return;
        h.raw("<h3 id=\"capacity-predicted\">Predicted vs measured capacity</h3>\n");
        h.el(
                "p",
                "Before each live cell's search, its twin (the sim on the engine's calibration: a roofline fitted to the engine's own prefill, "
                        + "decode and KV loads, its scheduling, and the store path measured on this machine) was searched for its capacity on the sim clock "
                        + "by the same rule, bounds and seeds, and written to twins/<cell>.json; then the engine's capacity was measured. Error = "
                        + "predicted / measured − 1. TTFT p50 and ITL p99 are the twin's and the engine's at the measured capacity (predicted / measured, ms). "
                        + "Engine steps / twin's price: the engine's step time at the capacity over what the twin's calibration charges for "
                        + "those very steps (engine_step_time_over_twin; 1 when the calibration held during the search, off 1 when the machine "
                        + "ran faster or slower than when it was calibrated). Twin at the engine's speed: the twin searched again after the "
                        + "measurement with every step priced that many times (not a prediction): what is left of its error is the model's, the "
                        + "rest the machine's drift.");
        if (!rows.isEmpty()) {
            h.open("div", "class=\"scroll\"");
            h.table(
                    null,
                    List.of(
                            "cell",
                            "measured capacity",
                            "predicted",
                            "error",
                            "TTFT p50 at capacity",
                            "ITL p99 at capacity",
                            "engine steps / twin's price",
                            "twin at the engine's speed (error)",
                            "verdict"),
                    rows);
            h.close("div");
        }
        for (String c : causes) h.el("p", "class=\"sub\"", c);
    }

    private static String pair(JsonNode p) {
        return Fmt.num(p.path("predicted").asDouble(Double.NaN)) + " / "
                + Fmt.num(p.path("measured").asDouble(Double.NaN));
    }

    private String startText() {
        return Fmt.num(cap.path("min").asDouble()) + " ≤ load ≤ "
                + Fmt.num(cap.path("max").asDouble()) + ", the configured start";
    }

    private static String gain(JsonNode vb) {
        if (!vb.isObject()) return "baseline";
        if (!vb.path("searched").asBoolean(true)) return vb.path("text").asText("baseline not searched");
        JsonNode r = vb.path("ratio");
        double m = r.path("mean").asDouble(Double.NaN);
        if (!Double.isFinite(m)) return Fmt.NONE;
        String s = String.format(Locale.ROOT, "%+.0f%%", 100 * (m - 1));
        if (r.path("ci95").isArray())
            s += String.format(
                    Locale.ROOT,
                    " [%+.0f%%, %+.0f%%]",
                    100 * (r.path("ci95").get(0).asDouble() - 1),
                    100 * (r.path("ci95").get(1).asDouble() - 1));
        return s;
    }

    private void probes() {
        h.raw("<details><summary>")
                .text("Every probe of every search (load, attainment with its Wilson 95% interval, verdict, run)")
                .raw("</summary>\n");
        List<List<Cell>> rows = new ArrayList<>();
        for (JsonNode e : cap.path("cells")) {
            String search = e.path("cell").asText() + "/r" + e.path("replicate").asInt();
            int i = 0;
            for (JsonNode p : e.path("probes")) {
                String verdict = !p.path("valid").asBoolean()
                        ? "invalid"
                        : p.path("passed").asBoolean() ? "pass" : "fail";
                if (p.path("undecided").asBoolean()) verdict += " (undecided)";
                rows.add(List.of(
                        Cell.code(i == 0 ? search : ""),
                        Cell.num(Integer.toString(++i)),
                        Cell.num(Fmt.num(p.path("load").asDouble())),
                        Cell.num(Fmt.pct(p.path("attainment").asDouble(Double.NaN))),
                        Cell.num("[" + Fmt.pct(p.path("wilson").path(0).asDouble()) + ", "
                                + Fmt.pct(p.path("wilson").path(1).asDouble()) + "]"),
                        Cell.num(Long.toString(p.path(Columns.REQUESTS.name()).asLong())),
                        Cell.of(verdict),
                        Cell.code(p.path("run").asText())));
            }
            rows.add(List.of(
                    Cell.of(""),
                    Cell.of(""),
                    Cell.of(""),
                    Cell.of(""),
                    Cell.of(""),
                    Cell.of(""),
                    Cell.of(e.path("status_text").asText()),
                    Cell.of(String.join(", ", flagList(e)))));
        }
        h.open("div", "class=\"scroll\"");
        h.table(null, List.of("search", "#", "load", "attainment", "Wilson 95%", "requests", "verdict", "run"), rows);
        h.close("div");
        h.raw("</details>\n");
    }

    private static List<String> flagList(JsonNode e) {
        List<String> out = new ArrayList<>();
        e.path("flags").forEach(x -> out.add(x.asText()));
        return out;
    }
}
