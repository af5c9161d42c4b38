package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.input.BadInputException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Per-cell differences between two bundles: cells are matched by their factor values (cell ids may differ), and
 * for every metric both bundles have, {@code B - A} with Welch's 95% interval across the replicates (the bundles
 * are independent runs), the relative change and whether the interval excludes zero; when both bundles searched
 * capacities ({@code capacity.json}), the same for the capacity of every searched cell ({@code capacity}).
 */
public final class BundleComparison {

    private BundleComparison() {}

    /**
     * {@link #compare} of the bundles {@code a} and {@code b}, directories or {@code .tar.gz} archives (extracted for it),
     * refusing ({@link BadInputException}) two with no cell in common.
     */
    public static ObjectNode compareBundles(Path a, Path b) throws IOException {
        try (OpenedBundle ba = OpenedBundle.open(a);
                OpenedBundle bb = OpenedBundle.open(b)) {
            ObjectNode r = compare(ba.dir(), bb.dir());
            if (r.path("cells").isEmpty() && r.path("capacity").path("cells").isEmpty())
                throw new BadInputException("no cell of " + a + " matches a cell of " + b
                        + " (cells are matched by their factor values; only in A: " + r.path("only_in_a")
                        + ", only in B: " + r.path("only_in_b") + ")");
            return r;
        }
    }

    /** Bundles {@code a} and {@code b} (directories) compared cell by cell. */
    public static ObjectNode compare(Path a, Path b) throws IOException {
        JsonNode sa = BundleJson.read(a.resolve(PartialBundle.SUMMARY_JSON));
        JsonNode sb = BundleJson.read(b.resolve(PartialBundle.SUMMARY_JSON));
        Map<Map<String, String>, String> cellsA = cells(sa), cellsB = cells(sb);
        Map<String, Map<String, List<Double>>> va = values(sa), vb = values(sb);
        Set<String> metrics = new LinkedHashSet<>(metricNames(sa));
        metrics.retainAll(metricNames(sb));
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("a", sa.path("run_id").asText());
        o.put("b", sb.path("run_id").asText());
        o.put("a_path", a.toString());
        o.put("b_path", b.toString());
        o.put("interval", "Welch t, 95%, across replicates; diff = B - A");
        ArrayNode out = o.putArray("cells");
        ArrayNode onlyA = f.arrayNode(), onlyB = f.arrayNode();
        for (var e : cellsA.entrySet()) {
            String idB = cellsB.get(e.getKey());
            if (idB == null) {
                onlyA.add(e.getValue());
                continue;
            }
            ObjectNode c = out.addObject();
            ObjectNode fac = c.putObject("factors");
            e.getKey().forEach(fac::put);
            c.put("cell_a", e.getValue());
            c.put("cell_b", idB);
            ObjectNode ms = c.putObject("metrics");
            for (String m : metrics) {
                List<Double> xa = va.get(e.getValue()).getOrDefault(m, List.of()),
                        xb = vb.get(idB).getOrDefault(m, List.of());
                ReplicateStats.Estimate ea = ReplicateStats.mean(xa),
                        eb = ReplicateStats.mean(xb),
                        d = ReplicateStats.welch(xa, xb);
                ObjectNode mo = ms.putObject(m);
                mo.set("a", Rows.toJson(ea.mean()));
                mo.set("b", Rows.toJson(eb.mean()));
                mo.set("diff", Rows.toJson(d.mean()));
                mo.set("rel", Rows.toJson(ea.mean() != 0 ? d.mean() / Math.abs(ea.mean()) : Double.NaN));
                if (d.hasInterval()) {
                    ArrayNode ci = mo.putArray("ci95");
                    ci.add(Rows.toJson(d.lo()));
                    ci.add(Rows.toJson(d.hi()));
                } else mo.putNull("ci95");
                mo.put("n_a", ea.n());
                mo.put("n_b", eb.n());
                mo.put("significant", d.excludesZero());
            }
        }
        for (var e : cellsB.entrySet()) if (!cellsA.containsKey(e.getKey())) onlyB.add(e.getValue());
        o.set("only_in_a", onlyA);
        o.set("only_in_b", onlyB);
        ArrayNode warnings = o.putArray("warnings");
        Set<String> modesA = modes(sa), modesB = modes(sb);
        if (!modesA.equals(modesB))
            warnings.add("the clocks differ: A is " + String.join("+", modesA) + ", B is " + String.join("+", modesB)
                    + "; differences mix the model's prediction with a measurement");
        boolean hasA = CapacityFile.exists(a), hasB = CapacityFile.exists(b);
        if (hasA && hasB)
            o.set(
                    "capacity",
                    capacity(
                            CapacityFile.read(a).orElseThrow(),
                            CapacityFile.read(b).orElseThrow(),
                            warnings));
        else if (hasA || hasB)
            warnings.add("only " + (hasA ? "A" : "B") + " searched capacities (capacity.json): no capacity to compare");
        return o;
    }

    /**
     * Capacities cell by cell: the searched cells of both {@code capacity.json} matched by their factor values, and per
     * cell the mean capacity of each bundle over its replicates, {@code B - A} with Welch's 95% interval, B / A, and
     * whether the interval excludes zero. A replicate whose search found no capacity is left out (its n says so).
     */
    static ObjectNode capacity(JsonNode ca, JsonNode cb, ArrayNode warnings) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        for (String k : List.of("knob", "rule", "target_attainment")) {
            if (!ca.path(k).equals(cb.path(k)))
                warnings.add("the capacity searches differ in " + k + ": A " + ca.path(k) + ", B " + cb.path(k)
                        + "; their capacities measure different things");
        }
        o.set("knob_a", ca.path("knob").deepCopy());
        o.set("knob_b", cb.path("knob").deepCopy());
        o.set("target_a", ca.path("target_attainment").deepCopy());
        o.set("target_b", cb.path("target_attainment").deepCopy());
        o.put("interval", "Welch t, 95%, across replicates; diff = B - A; ratio = mean B / mean A");
        Map<Map<String, String>, String> idsA = new LinkedHashMap<>(), idsB = new LinkedHashMap<>();
        Map<String, List<Double>> va = capacities(ca, idsA), vb = capacities(cb, idsB);
        ArrayNode cells = o.putArray("cells");
        ArrayNode onlyA = o.putArray("only_in_a");
        for (var e : idsA.entrySet()) {
            String idB = idsB.get(e.getKey());
            if (idB == null) {
                onlyA.add(e.getValue());
                continue;
            }
            ObjectNode c = cells.addObject();
            ObjectNode fac = c.putObject("factors");
            e.getKey().forEach(fac::put);
            c.put("cell_a", e.getValue());
            c.put("cell_b", idB);
            List<Double> xa = va.get(e.getValue()), xb = vb.get(idB);
            ReplicateStats.Estimate ea = ReplicateStats.mean(xa),
                    eb = ReplicateStats.mean(xb),
                    d = ReplicateStats.welch(xa, xb);
            c.set("a", Rows.toJson(ea.mean()));
            c.set("b", Rows.toJson(eb.mean()));
            c.set("diff", Rows.toJson(d.mean()));
            if (d.hasInterval()) {
                ArrayNode ci = c.putArray("ci95");
                ci.add(Rows.toJson(d.lo()));
                ci.add(Rows.toJson(d.hi()));
            } else c.putNull("ci95");
            c.set("ratio", Rows.toJson(ea.mean() > 0 ? eb.mean() / ea.mean() : Double.NaN));
            c.put("n_a", ea.n());
            c.put("n_b", eb.n());
            c.put("significant", d.excludesZero());
        }
        ArrayNode onlyB = o.putArray("only_in_b");
        for (var e : idsB.entrySet()) if (!idsA.containsKey(e.getKey())) onlyB.add(e.getValue());
        return o;
    }

    /** Cell id → capacities by replicate (NaN where a search found none); fills {@code ids} with factor values → cell id. */
    private static Map<String, List<Double>> capacities(JsonNode cap, Map<Map<String, String>, String> ids) {
        Map<String, List<Double>> out = new LinkedHashMap<>();
        for (JsonNode e : cap.path("cells")) {
            String id = e.path("cell").asText();
            Map<String, String> f = new LinkedHashMap<>();
            e.path("factors")
                    .fields()
                    .forEachRemaining(x -> f.put(x.getKey(), x.getValue().asText()));
            if (f.isEmpty()) f.put("cell", id.replaceFirst("^c\\d+-", ""));
            ids.putIfAbsent(f, id);
            out.computeIfAbsent(id, k -> new ArrayList<>())
                    .add(e.path("capacity").isNumber() ? e.get("capacity").asDouble() : Double.NaN);
        }
        return out;
    }

    private static Map<Map<String, String>, String> cells(JsonNode s) {
        Map<Map<String, String>, String> m = new LinkedHashMap<>();
        for (JsonNode c : s.path("cells")) {
            Map<String, String> f = new LinkedHashMap<>();
            c.path("factors")
                    .fields()
                    .forEachRemaining(e -> f.put(e.getKey(), e.getValue().asText()));
            if (f.isEmpty()) f.put("cell", c.path("cell").asText().replaceFirst("^c\\d+-", ""));
            m.put(f, c.path("cell").asText());
        }
        return m;
    }

    private static Set<String> modes(JsonNode s) {
        Set<String> m = new java.util.TreeSet<>();
        for (JsonNode r : s.path("rows"))
            if (r.path("mode").isTextual()) m.add(r.path("mode").asText());
        return m;
    }

    private static List<String> metricNames(JsonNode s) {
        Set<String> names = new LinkedHashSet<>();
        for (JsonNode c : s.path("cells")) c.path("metrics").fieldNames().forEachRemaining(names::add);
        return new ArrayList<>(names);
    }

    private static Map<String, Map<String, List<Double>>> values(JsonNode s) {
        Map<String, Map<String, List<Double>>> out = new LinkedHashMap<>();
        for (JsonNode r : s.path("rows")) {
            Map<String, List<Double>> m = out.computeIfAbsent(r.path("cell").asText(), k -> new LinkedHashMap<>());
            r.fields().forEachRemaining(e -> {
                if (e.getValue().isNumber() || e.getValue().isNull())
                    m.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                            .add(
                                    e.getValue().isNull()
                                            ? Double.NaN
                                            : e.getValue().asDouble());
            });
        }
        return out;
    }
}
