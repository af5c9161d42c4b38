package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.RunValidator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The link as an axis: when a factor of the searched cells changes nothing but the link a cell's KV crosses (this
 * machine's calibrated loopback, stated RDMA profiles), capacity against link bandwidth per tier setup, and the
 * break-even link of every remote tier setup: the slowest link at which it sustains more load than no cache
 * ({@code tiers: none} with the same other levels). Between the last link it loses on and the first it wins on, the
 * break-even is interpolated on the log of the bandwidth (the capacity as a straight line in it); where it already
 * wins on the slowest link, or loses on the fastest, that is said instead.
 */
final class LinkSweep {

    /** {@code capacity.json}'s section. */
    static final String JSON = "link_sweep";
    /** The break-even links by tier setup, top level of {@code capacity.json}. */
    static final String BREAKEVEN = "breakeven_link";

    private LinkSweep() {}

    /** Effective bytes per second a cell's remote transfers get: 1 GiB in one request, alone on the link. */
    static double bytesPerSecond(MatrixCell cell) {
        CellPlan p = RunValidator.plan(cell.runs().get(0).config(), k -> null);
        if (p.transportModel() == null)
            return p.link() == null ? Double.NaN : p.link().bytesPerSecond();
        double gib = 1L << 30;
        return gib
                / (p.transportModel().batchSeconds(1L << 30, 1, 1)
                        - p.transportModel().batchSeconds(0, 1, 1));
    }

    /** The factor whose levels differ only in link bandwidth among the searched cells, or null. */
    static String factor(MatrixSpec spec, Map<String, Double> bw) {
        for (String f : spec.factors().keySet()) {
            if (spec.factors().get(f).size() < 2 || f.equals("tiers")) continue;
            Map<String, List<Double>> groups = new LinkedHashMap<>();
            for (MatrixCell c : spec.cells()) {
                if (!bw.containsKey(c.id())) continue;
                Map<String, String> rest = new LinkedHashMap<>(c.factors());
                rest.remove(f);
                groups.computeIfAbsent(rest.toString(), k -> new ArrayList<>()).add(bw.get(c.id()));
            }
            boolean sweeps = false, only = true;
            for (List<Double> g : groups.values()) {
                if (g.size() > 1) sweeps = true;
                if (g.stream().distinct().count() != g.size()) only = false;
            }
            if (sweeps && only) return f;
        }
        return null;
    }

    /** Adds {@code link_sweep} and {@code breakeven_link} to {@code capacity.json}, when the matrix sweeps a link. */
    static void add(MatrixSpec spec, ArrayNode summary, CapacityResults out) {
        Map<String, MatrixCell> byId = new LinkedHashMap<>();
        Map<String, Double> bw = bandwidths(spec, byId);
        if (bw == null) return;
        String f = factor(spec, bw);
        if (f == null) return;
        Map<String, JsonNode> capOf = new LinkedHashMap<>();
        for (JsonNode s : summary) capOf.put(s.path("cell").asText(), s.path("capacity"));
        ObjectNode sweep = JsonNodeFactory.instance.objectNode();
        sweep.put("factor", f);
        sweep.put(
                "how",
                "capacity per link level; break-even: the slowest link at which the tier setup's mean capacity exceeds tiers=none's "
                        + "(same other levels), interpolated on log bandwidth between the two levels around it");
        ArrayNode groups = sweep.putArray("groups");
        ObjectNode breakeven = JsonNodeFactory.instance.objectNode();
        for (List<MatrixCell> cells : bySetup(byId, f).values()) {
            if (cells.size() < 2) continue;
            cells.sort((a, b) -> Double.compare(bw.get(a.id()), bw.get(b.id())));
            MatrixCell none = noCache(byId, cells.get(0), f);
            ObjectNode g = groups.addObject();
            String tiers = cells.get(0).factors().get("tiers");
            g.put("tiers", tiers);
            ObjectNode levels = g.putObject("levels");
            cells.get(0).factors().forEach((k, v) -> {
                if (!k.equals(f)) levels.put(k, v);
            });
            double[] x = new double[cells.size()], y = new double[cells.size()];
            points(g.putArray("points"), cells, f, bw, capOf, x, y);
            if (none == null) continue;
            double ref = capOf.containsKey(none.id())
                    ? capOf.get(none.id()).path("mean").asDouble(Double.NaN)
                    : Double.NaN;
            g.put("reference", none.id());
            g.set("reference_capacity", CapacityResults.num(ref));
            ObjectNode be = g.putObject("breakeven");
            breakeven(be, cells, f, tiers, none, ref, x, y);
            String key = tiers
                    + (cells.get(0).factors().containsKey(ConfigKeys.CACHE_STATE)
                            ? " " + cells.get(0).factors().get(ConfigKeys.CACHE_STATE)
                            : "");
            breakeven.set(key, be.deepCopy());
        }
        out.extra(JSON, sweep);
        out.extra(BREAKEVEN, breakeven);
    }

    /** The bytes per second of each searched cell with a {@code tiers} level (those put in {@code byId}); null when one cannot be planned. */
    private static Map<String, Double> bandwidths(MatrixSpec spec, Map<String, MatrixCell> byId) {
        Map<String, Double> bw = new LinkedHashMap<>();
        for (MatrixCell c : spec.cells()) {
            if (!spec.capacity().searches(c.factors()) || !c.factors().containsKey("tiers")) continue;
            try {
                bw.put(c.id(), bytesPerSecond(c));
                byId.put(c.id(), c);
            } catch (RuntimeException e) {
                return null; // a cell that cannot be planned here (live-only keys): no sweep
            }
        }
        return bw;
    }

    /** The cells with a remote tier, grouped by their levels other than the swept factor {@code f}. */
    private static Map<String, List<MatrixCell>> bySetup(Map<String, MatrixCell> byId, String f) {
        Map<String, List<MatrixCell>> bySetup = new LinkedHashMap<>();
        for (MatrixCell c : byId.values()) {
            if (c.factors().get("tiers").equals("none")) continue;
            Map<String, String> rest = new LinkedHashMap<>(c.factors());
            rest.remove(f);
            bySetup.computeIfAbsent(rest.toString(), k -> new ArrayList<>()).add(c);
        }
        return bySetup;
    }

    /** The {@code tiers: none} cell with the same other levels as {@code cell} (the last such), or null. */
    private static MatrixCell noCache(Map<String, MatrixCell> byId, MatrixCell cell, String f) {
        MatrixCell none = null;
        for (MatrixCell c : byId.values()) {
            if (!c.factors().get("tiers").equals("none")) continue;
            boolean same = true;
            for (var e : cell.factors().entrySet())
                if (!e.getKey().equals(f)
                        && !e.getKey().equals("tiers")
                        && !e.getValue().equals(c.factors().get(e.getKey()))) same = false;
            if (same) none = c;
        }
        return none;
    }

    /** One point per cell (its link level, bandwidth and capacity); fills {@code x} (bytes per second) and {@code y} (mean capacity). */
    private static void points(
            ArrayNode pts,
            List<MatrixCell> cells,
            String f,
            Map<String, Double> bw,
            Map<String, JsonNode> capOf,
            double[] x,
            double[] y) {
        for (int i = 0; i < cells.size(); i++) {
            MatrixCell c = cells.get(i);
            ObjectNode p = pts.addObject();
            p.put("cell", c.id());
            p.put(f, c.factors().get(f));
            x[i] = bw.get(c.id());
            p.put("gbps", x[i] * 8 / 1e9);
            JsonNode cap = capOf.get(c.id());
            y[i] = cap == null ? Double.NaN : cap.path("mean").asDouble(Double.NaN);
            p.set("capacity", cap == null ? JsonNodeFactory.instance.nullNode() : cap.deepCopy());
        }
    }

    /** The slowest link at which the setup beats no cache ({@code ref}), interpolated on log bandwidth; or why there is none. */
    private static void breakeven(
            ObjectNode be,
            List<MatrixCell> cells,
            String f,
            String tiers,
            MatrixCell none,
            double ref,
            double[] x,
            double[] y) {
        int first = -1;
        for (int i = 0; i < y.length; i++)
            if (y[i] > ref) {
                first = i;
                break;
            }
        if (!Double.isFinite(ref)) be.put("text", "no capacity of " + none.id() + " to compare with");
        else if (first < 0) {
            be.putNull("gbps");
            be.put(
                    "text",
                    tiers + " never beats no cache up to " + fmt(x[x.length - 1] * 8 / 1e9)
                            + " Gbps (the fastest link swept)");
        } else if (first == 0) {
            be.put("at_most_gbps", x[0] * 8 / 1e9);
            be.putNull("gbps");
            be.put(
                    "text",
                    tiers + " beats no cache already on the slowest link swept, "
                            + cells.get(0).factors().get(f) + " (" + fmt(x[0] * 8 / 1e9) + " Gbps)");
        } else {
            int a = first - 1, b = first;
            double t = (ref - y[a]) / (y[b] - y[a]);
            double gbps = Math.exp(Math.log(x[a]) + t * (Math.log(x[b]) - Math.log(x[a]))) * 8 / 1e9;
            be.put("gbps", gbps);
            ArrayNode between = be.putArray("between");
            between.add(cells.get(a).factors().get(f));
            between.add(cells.get(b).factors().get(f));
            be.put(
                    "text",
                    String.format(
                            java.util.Locale.ROOT,
                            "%s beats no cache from about %s Gbps per GPU (between %s, capacity %s, and %s, capacity %s; no cache %s)",
                            tiers,
                            fmt(gbps),
                            cells.get(a).factors().get(f),
                            fmt(y[a]),
                            cells.get(b).factors().get(f),
                            fmt(y[b]),
                            fmt(ref)));
        }
    }

    private static String fmt(double v) {
        return Double.isFinite(v) ? String.format(java.util.Locale.ROOT, "%.3g", v) : "-";
    }
}
