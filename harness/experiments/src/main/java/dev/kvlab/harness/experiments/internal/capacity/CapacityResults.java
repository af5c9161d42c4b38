package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Csv;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.bundle.CapacityFile;
import dev.kvlab.harness.bundle.ReplicateStats;
import dev.kvlab.harness.bundle.Rows;
import dev.kvlab.harness.bundle.SummaryTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code capacity.json} ({@link CapacityFile}) and {@code capacity.csv}: per searched cell × replicate the capacity (highest passing load),
 * the first failing load, the figures of the run at capacity (goodput, attainment, latency percentiles, hit ratios,
 * fetched bytes), flags and every probe; per cell across replicates the mean capacity with its 95% interval and the
 * paired difference and ratio against the baseline cell. Built from the recorded probes only.
 */
public final class CapacityResults {

    public static final String CSV = "capacity.csv";
    public static final int SCHEMA = 1;
    /** Figures of the run at capacity, copied from its summary row (a result column's name is defined once: there). */
    public static final List<String> AT_CAPACITY = Columns.names(List.of(
            Columns.GOODPUT_RPS,
            Columns.SLO_ATTAINMENT,
            Columns.TTFT_P50,
            Columns.TTFT_P99,
            Columns.TPOT_P50,
            Columns.TPOT_P99,
            Columns.ITL_P50,
            Columns.ITL_P99,
            Columns.LOCAL_HIT_RATIO,
            Columns.REMOTE_HIT_RATIO,
            Columns.FETCHED_BYTES));

    private final MatrixSpec spec;
    private final List<ObjectNode> entries;
    private final Map<String, IntervalTarget> targets;
    private final Map<String, JsonNode> extra = new LinkedHashMap<>();
    private final Map<String, Double> prices = new LinkedHashMap<>();
    private PerCell perCell = (cell, summaryEntry, cellEntries) -> {};

    /** Adds figures to a cell's summary entry ({@code predicted}, ...), given the entry so far and the cell's replicate entries. */
    public interface PerCell {
        void add(String cell, ObjectNode summaryEntry, List<ObjectNode> cellEntries);
    }

    /** Sets what adds to each cell's summary entry. */
    public void perCell(PerCell p) {
        this.perCell = p;
    }

    /**
     * The price per hour of each cell's instances (cell id → price; a cell without one has none): each summary entry then has
     * {@link Columns#COST_PER_M_OUTPUT_TOKENS} and, against the baseline, {@link Columns#COST_VS_BASELINE}.
     */
    public void prices(Map<String, Double> byCell) {
        prices.putAll(byCell);
    }

    private CapacityResults(MatrixSpec spec, List<ObjectNode> entries, Map<String, IntervalTarget> targets) {
        this.spec = spec;
        this.entries = entries;
        this.targets = targets;
    }

    /** From every searched cell's searches (cell id → its replicates' searches and its interval judged). */
    public static CapacityResults of(MatrixSpec spec, Map<String, CapacitySearch.Searches> searches) {
        List<ObjectNode> out = new ArrayList<>();
        Map<String, IntervalTarget> targets = new LinkedHashMap<>();
        searches.forEach((cell, s) -> {
            for (CapacitySearch.Trace t : s.traces()) out.add(entry(spec.capacity(), t));
            if (s.target() != null) targets.put(cell, s.target());
        });
        return new CapacityResults(spec, out, targets);
    }

    private static ObjectNode entry(CapacitySpec c, CapacitySearch.Trace t) {
        ObjectNode e = JsonNodeFactory.instance.objectNode();
        e.put("cell", t.base().cell());
        e.put("replicate", t.base().replicate());
        e.put("seed", t.base().seed());
        e.put("mode", t.base().mode().label());
        ObjectNode f = e.putObject("factors");
        t.base().factors().forEach(f::put);
        e.put("knob", c.knob());
        Bracket.Decision d = t.decision();
        String status = t.finished() ? d.status().label() : "unfinished";
        // a search stopped with a bracket (by max_probes or by its budget) reports its last passing load, flagged
        boolean point = t.finished() && Double.isFinite(d.lo());
        e.set("capacity", point ? num(d.lo()) : JsonNodeFactory.instance.nullNode());
        e.set("first_failing", num(d.hi()));
        ArrayNode br = e.putArray("bracket");
        br.add(num(d.lo()));
        br.add(num(d.hi()));
        e.put("status", status);
        e.put("status_text", statusText(c, t, status));
        ProbeResult atCap = null;
        for (ProbeResult p : t.probes()) if (Double.isFinite(d.lo()) && p.load() == d.lo()) atCap = p;
        for (String col : AT_CAPACITY)
            e.set(
                    col,
                    atCap == null
                            ? JsonNodeFactory.instance.nullNode()
                            : atCap.summary().path(col).deepCopy());
        if (atCap != null) { // read by the cost figures; removed from the file when no cell has a price
            for (String col : Columns.names(List.of(Columns.OUTPUT_TOKENS_PER_S, Columns.THROUGHPUT_RPS)))
                e.set(col, atCap.summary().path(col).deepCopy());
        }
        e.set(
                "capacity_run",
                atCap == null ? JsonNodeFactory.instance.nullNode() : JsonNodeFactory.instance.textNode(atCap.run()));
        e.put("probes_used", t.probes().size());
        e.put(
                "runs_used",
                t.probes().stream().mapToInt(p -> p.passesRun().size()).sum());
        ProbeResult knee = knee(t);
        e.set(
                "knee_probe",
                knee == null ? JsonNodeFactory.instance.nullNode() : JsonNodeFactory.instance.textNode(knee.run()));
        ArrayNode flags = e.putArray("flags");
        List<String> fl = flags(t, c, e);
        fl.forEach(flags::add);
        ArrayNode ps = e.putArray("probes");
        for (ProbeResult p : t.probes()) {
            ObjectNode o = ps.addObject();
            o.set("load", num(p.load()));
            o.put("run", p.run());
            o.put(Columns.REQUESTS.name(), p.requests());
            o.put("good", p.good());
            o.set(Columns.SLO_ATTAINMENT.name(), num(p.sloAttainment()));
            o.set("attainment", num(p.attainment()));
            ArrayNode w = o.putArray("wilson");
            w.add(num(p.wilson().lo()));
            w.add(num(p.wilson().hi()));
            o.put("valid", p.valid());
            o.put("passed", p.passed());
            o.put("undecided", p.undecided());
            o.put("verdict", p.verdict());
            o.put("passes", p.passes());
            o.put("max_passes", p.maxPasses());
            o.put("cap_requests", p.capRequests());
            o.put("steers", p.steers());
            if (p.passesRun().size() > 1) {
                ArrayNode ext = o.putArray("extended_from");
                for (int n : p.passesRun().subList(0, p.passesRun().size() - 1)) ext.add(n);
            }
            o.set(
                    Columns.GOODPUT_RPS.name(),
                    p.summary().path(Columns.GOODPUT_RPS.name()).deepCopy());
            o.set(
                    Columns.SIMULATED_SECONDS.name(),
                    p.summary().path(Columns.SIMULATED_SECONDS.name()).deepCopy());
            o.set(Columns.WALL_SECONDS.name(), num(p.wallSeconds()));
        }
        return e;
    }

    /** undecided, invalid, non_monotone (with both probes), and the give-ups. */
    private static List<String> flags(CapacitySearch.Trace t, CapacitySpec c, ObjectNode e) {
        List<String> fl = new ArrayList<>();
        List<ProbeResult> ps = t.probes();
        // a sim probe undecided at its cap ends the search as the knee (below); undecided stays for probes that could
        // not be
        // made longer (live probes, trace replays) and straddle the target
        if (ps.stream().anyMatch(p -> p.undecided() && p.maxPasses() <= 1)) fl.add("undecided");
        if (ps.stream().anyMatch(p -> !p.valid())) fl.add("invalid");
        ArrayNode nm = JsonNodeFactory.instance.arrayNode();
        for (ProbeResult a : ps)
            for (ProbeResult b : ps) {
                if (!(b.load() > a.load())) continue;
                boolean verdict = b.passed() && !a.passed() && a.valid();
                boolean share = a.valid()
                        && b.valid()
                        && b.wilson().lo() > a.wilson().hi(); // attainment rose with load, beyond chance
                if (verdict || share) {
                    ObjectNode pair = nm.addObject();
                    pair.set("lower", num(a.load()));
                    pair.set("higher", num(b.load()));
                    pair.put("lower_run", a.run());
                    pair.put("higher_run", b.run());
                    pair.put(
                            "why",
                            verdict
                                    ? "passes at the higher load, fails at the lower"
                                    : "attainment higher at the higher load (95% intervals disjoint)");
                }
            }
        if (!nm.isEmpty()) {
            fl.add("non_monotone");
            e.set("non_monotone", nm);
        }
        switch (t.decision().status()) {
            case BELOW_MIN -> fl.add("below_min");
            case ABOVE_MAX -> fl.add("above_max");
            case MAX_PROBES -> fl.add("max_probes");
            case BUDGET -> fl.add("budget");
            default -> {}
        }
        return fl;
    }

    private static String statusText(CapacitySpec c, CapacitySearch.Trace t, String status) {
        Bracket.Decision d = t.decision();
        return switch (status) {
            case "converged" ->
                knee(t) != null
                        ? "capacity " + fmt(d.lo())
                                + ": the knee itself, its SLO attainment equal to the target within its 95% interval after "
                                + knee(t).requests() + " requests (first decided failure " + fmt(d.hi()) + ")"
                        : "capacity " + fmt(d.lo()) + " (first failing " + fmt(d.hi()) + ")";
            case "below_min" ->
                "fails the SLO at every load down to min " + fmt(c.min()) + ": no capacity within the bound";
            case "above_max" ->
                "meets the SLO up to max " + fmt(c.max()) + ": never saturates within the bound (capacity >= "
                        + fmt(c.max()) + ")";
            case "max_probes" ->
                "stopped after max_probes " + c.maxProbes() + " with the bracket [" + fmt(d.lo()) + ", " + fmt(d.hi())
                        + "]";
            case "budget" ->
                "out of budget (" + fmt(c.budgetSeconds()) + " s) with the bracket [" + fmt(d.lo()) + ", " + fmt(d.hi())
                        + "]";
            default -> "unfinished";
        };
    }

    /** The probe the search ended at as the knee (a sim probe undecided at its cap), or null. */
    static ProbeResult knee(CapacitySearch.Trace t) {
        if (t.probes().isEmpty()) return null;
        ProbeResult last = t.probes().get(t.probes().size() - 1);
        return t.finished()
                        && last.undecided()
                        && last.maxPasses() > 1
                        && last.load() == t.decision().lo()
                ? last
                : null;
    }

    private static String fmt(double x) {
        return Double.isFinite(x) ? Bracket.format(x) : "-";
    }

    /** A number as JSON: whole values as integers (a load of 4 reads back as {@code --set knob=4}), NaN as null. */
    static JsonNode num(double x) {
        if (Double.isFinite(x) && x == Math.rint(x) && Math.abs(x) < 1e15)
            return JsonNodeFactory.instance.numberNode((long) x);
        return Rows.toJson(x);
    }

    /**
     * Per replicate, the price per million output tokens served within the SLO at its capacity: the cell's price per hour
     * over the good output tokens per hour of the run at capacity (goodput × output tokens per completed request); NaN
     * without a price, a capacity or a good token.
     */
    private List<Double> costs(String cell, List<ObjectNode> es) {
        Double price = prices.get(cell);
        List<Double> v = new ArrayList<>();
        for (ObjectNode e : es) {
            int k = e.get("replicate").asInt();
            while (v.size() <= k) v.add(Double.NaN);
            double good = e.path(Columns.GOODPUT_RPS.name()).asDouble(Double.NaN);
            double tokens = e.path(Columns.OUTPUT_TOKENS_PER_S.name()).asDouble(Double.NaN);
            double served = e.path(Columns.THROUGHPUT_RPS.name()).asDouble(Double.NaN);
            double goodTokensPerS = good * tokens / served;
            v.set(
                    k,
                    price == null || !(price >= 0) || !(goodTokensPerS > 0)
                            ? Double.NaN
                            : price / (goodTokensPerS * 3600) * 1e6);
        }
        return v;
    }

    /** Per cell across replicates: mean capacity with 95% CI, hit ratios at capacity, and paired diff and ratio vs the baseline. */
    public ArrayNode summary() {
        Map<String, List<ObjectNode>> byCell = new LinkedHashMap<>();
        for (ObjectNode e : entries)
            byCell.computeIfAbsent(e.get("cell").asText(), k -> new ArrayList<>())
                    .add(e);
        String baseline = spec.baseline();
        List<Double> base = baseline == null || !byCell.containsKey(baseline) ? null : caps(byCell.get(baseline));
        List<Double> baseCost =
                baseline == null || !byCell.containsKey(baseline) ? null : costs(baseline, byCell.get(baseline));
        Map<String, List<Double>> capsByCell = new LinkedHashMap<>();
        byCell.forEach((cell, es) -> capsByCell.put(cell, caps(es)));
        // the gain's interval: every cell's seed k shares replicate k's seed, so the design is blocked by seed and the
        // spread around it is pooled over the cells (two replicates alone give t(1) = 12.7: an interval that decides
        // nothing)
        ReplicateStats.Blocked gains = base == null ? null : ReplicateStats.blockedRatios(capsByCell, baseline);
        // the cost's ratio is blocked by seed the same way, over the cells with a price
        Map<String, List<Double>> costsByCell = new LinkedHashMap<>();
        byCell.forEach((cell, es) -> {
            if (prices.containsKey(cell)) costsByCell.put(cell, costs(cell, es));
        });
        ReplicateStats.Blocked costRatios =
                baseCost == null ? null : ReplicateStats.blockedRatios(costsByCell, baseline);
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (var ce : byCell.entrySet()) {
            ObjectNode o = out.addObject();
            List<ObjectNode> es = ce.getValue();
            o.put("cell", ce.getKey());
            o.set("factors", es.get(0).get("factors").deepCopy());
            o.put("replicates", es.size());
            List<Double> caps = caps(es);
            o.set("capacity", SummaryTable.estimate(ReplicateStats.mean(caps), "mean"));
            for (String col : Columns.names(List.of(
                    Columns.GOODPUT_RPS,
                    Columns.SLO_ATTAINMENT,
                    Columns.LOCAL_HIT_RATIO,
                    Columns.REMOTE_HIT_RATIO,
                    Columns.FETCHED_BYTES))) {
                List<Double> v = new ArrayList<>();
                for (ObjectNode e : es)
                    v.add(e.path(col).isNumber() ? e.get(col).asDouble() : Double.NaN);
                o.set(col + "_at_capacity", SummaryTable.estimate(ReplicateStats.mean(v), "mean"));
            }
            List<String> flags = new ArrayList<>();
            for (ObjectNode e : es)
                e.get("flags").forEach(x -> {
                    if (!flags.contains(x.asText())) flags.add(x.asText());
                });
            IntervalTarget target = targets.get(ce.getKey());
            if (target == null)
                target = IntervalTarget.judge(
                        spec.capacity(), initialReplicates(), caps); // unfinished: judged as far as it went
            if (target.wide()) flags.add("wide");
            ArrayNode fa = o.putArray("flags");
            flags.forEach(fa::add);
            o.set("replicate_target", target.json());
            if (prices.containsKey(ce.getKey())) {
                List<Double> cost = costs(ce.getKey(), es);
                o.put("price_per_hour", prices.get(ce.getKey()));
                o.set(
                        Columns.COST_PER_M_OUTPUT_TOKENS.name(),
                        SummaryTable.estimate(ReplicateStats.mean(cost), "mean"));
                if (baseCost != null && !ce.getKey().equals(baseline)) {
                    // a ratio, on the log scale and blocked by seed as the capacity gain is
                    ReplicateStats.Estimate cr = costRatios.byCell().get(ce.getKey());
                    ObjectNode cj = ratioJson(cr);
                    cj.put("interval", costRatios.method());
                    cj.put("df", costRatios.dfOf(cr));
                    o.set(Columns.COST_VS_BASELINE.name(), cj);
                }
            }
            perCell.add(ce.getKey(), o, es);
            if (baseline == null || ce.getKey().equals(baseline)) {
                o.putNull("vs_baseline"); // no baseline, or this is it
                continue;
            }
            if (base == null) { // the baseline ran at its own load only: there is no capacity to compare with
                ObjectNode vb = o.putObject("vs_baseline");
                vb.put("baseline", baseline);
                vb.put("searched", false);
                vb.put("text", CapacityFile.NOT_SEARCHED);
                continue;
            }
            ObjectNode vb = o.putObject("vs_baseline");
            vb.put("baseline", baseline);
            // paired by seed: replicate k of the cell with replicate k of the baseline, over the replicates both ran
            // (a cell given more replicates than the baseline pairs its first ones; its own interval uses all)
            ReplicateStats.Estimate diff = ReplicateStats.paired(caps, base);
            // the gain as a ratio is estimated on the log scale: its geometric mean over the pairs, and an interval
            // that stays
            // positive (the arithmetic mean of two ratios with a t interval went below 0)
            ReplicateStats.Estimate ratio = gains.byCell().get(ce.getKey());
            vb.set("diff", SummaryTable.estimate(diff, "mean_diff"));
            ObjectNode rj = ratioJson(ratio);
            rj.put("interval", gains.method());
            rj.put("df", gains.dfOf(ratio));
            vb.set("ratio", rj);
            vb.put("pairs", diff.n());
            vb.put("text", gainText(ce.getKey(), baseline, ratio));
        }
        return out;
    }

    /** A ratio estimated on the log scale ({@link ReplicateStats#ratio}): {mean (geometric), log_stdev, n, ci95, scale: log}. */
    static ObjectNode ratioJson(ReplicateStats.Estimate ratio) {
        ObjectNode rn = SummaryTable.estimate(ratio, "mean");
        rn.remove("stdev");
        rn.set("log_stdev", Rows.toJson(ratio.stdev()));
        rn.put("scale", "log");
        return rn;
    }

    /** "c04-combined sustains +38% [+31%, +45%] over c01-none" (the interval: across replicates, paired). */
    static String gainText(String cell, String baseline, ReplicateStats.Estimate ratio) {
        if (!Double.isFinite(ratio.mean())) return cell + ": no capacity to compare with " + baseline;
        String ci = ratio.hasInterval()
                ? String.format(Locale.ROOT, " [%+.0f%%, %+.0f%%]", 100 * (ratio.lo() - 1), 100 * (ratio.hi() - 1))
                : "";
        return String.format(
                Locale.ROOT, "%s sustains %+.0f%%%s over %s", cell, 100 * (ratio.mean() - 1), ci, baseline);
    }

    /** The replicates every searched cell starts with: {@code capacity.replicates}, else the matrix's. */
    private int initialReplicates() {
        return spec.capacity().replicates() > 0 ? spec.capacity().replicates() : spec.replicates();
    }

    /** Capacities by replicate index (NaN where a replicate has none). */
    private static List<Double> caps(List<ObjectNode> es) {
        List<Double> v = new ArrayList<>();
        for (ObjectNode e : es) {
            int k = e.get("replicate").asInt();
            while (v.size() <= k) v.add(Double.NaN);
            v.set(k, e.path("capacity").isNumber() ? e.get("capacity").asDouble() : Double.NaN);
        }
        return v;
    }

    /** Adds a top-level section to {@code capacity.json} (after {@code summary}). */
    public void extra(String key, JsonNode value) {
        extra.put(key, value);
    }

    public List<ObjectNode> entries() {
        return entries;
    }

    /** {@code {schema, run_id, knob, rule, target_attainment, precision, baseline, cells: [...], summary: [...]}}. */
    public byte[] json(String runId) {
        CapacitySpec c = spec.capacity();
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("schema", SCHEMA);
        o.put("run_id", runId);
        o.put("knob", c.knob());
        o.put("rule", c.rule());
        o.put("target_attainment", c.targetAttainment());
        o.put("precision", c.precision());
        o.set("min", num(c.min()));
        o.set("max", num(c.max()));
        o.put("max_probes", c.maxProbes());
        o.put("min_requests", c.minRequests());
        o.put("min_duration_s", c.minDurationSeconds());
        o.put("budget_s", c.budgetSeconds());
        o.put("early_stop", c.earlyStop());
        o.put("max_passes", c.maxPasses());
        o.put("undecided_means", CapacityFile.UNDECIDED_MEANS);
        o.put("replicates", initialReplicates());
        o.put("max_replicates", c.replicateCap(initialReplicates()));
        o.put("half_width", c.halfWidth());
        o.put(
                "wide_means",
                CapacityFile.wideMeans(c.halfWidth(), c.replicateCap(initialReplicates()) > initialReplicates()));
        o.put(
                "interval",
                "per probe: Wilson 95% on the share of measured requests meeting the SLO; across replicates: Student t 95%; the gain over the baseline on the log scale, blocked by seed (replicate k of every cell shares its seed), the residual pooled over the cells");
        if (spec.baseline() == null) o.putNull("baseline");
        else o.put("baseline", spec.baseline());
        ArrayNode cells = o.putArray("cells");
        ArrayNode summary = summary();
        for (ObjectNode e : entries) {
            ObjectNode w = e.deepCopy();
            if (prices.isEmpty()) w.remove(Columns.names(List.of(Columns.OUTPUT_TOKENS_PER_S, Columns.THROUGHPUT_RPS)));
            cells.add(w);
        }
        o.set("summary", summary);
        extra.forEach(o::set);
        return BundleJson.compactFile(o); // one line: a search's capacity.json holds every probe of every search
    }

    /** One row per cell × replicate: ids, factors, the search's figures, the figures at capacity. */
    public byte[] csv() {
        List<String> factorKeys = new ArrayList<>(spec.factors().keySet());
        List<String> cols = new ArrayList<>(List.of("cell", "replicate", "seed", "mode"));
        cols.addAll(factorKeys);
        cols.addAll(List.of("knob", "capacity", "first_failing", "status", "probes_used", "flags"));
        cols.addAll(AT_CAPACITY);
        cols.add("capacity_run");
        StringBuilder sb = new StringBuilder();
        Csv.appendRow(sb, cols);
        for (ObjectNode e : entries) {
            List<Object> row = new ArrayList<>();
            row.add(e.get("cell").asText());
            row.add(e.get("replicate").asLong());
            row.add(e.get("seed").asLong());
            row.add(e.get("mode").asText());
            for (String f : factorKeys) row.add(e.path("factors").path(f).asText(""));
            row.add(e.get("knob").asText());
            row.add(Rows.fromJson(e.get("capacity")));
            row.add(Rows.fromJson(e.get("first_failing")));
            row.add(e.get("status").asText());
            row.add(e.get("probes_used").asLong());
            List<String> fl = new ArrayList<>();
            e.get("flags").forEach(x -> fl.add(x.asText()));
            row.add(String.join(" ", fl));
            for (String col : AT_CAPACITY) row.add(Rows.fromJson(e.get(col)));
            row.add(e.get("capacity_run").isNull() ? "" : e.get("capacity_run").asText());
            Csv.appendRow(sb, row);
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
