package dev.kvlab.harness.internal.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * are independent runs), the relative change and whether the interval excludes zero.
 */
public final class BundleComparison {

    private BundleComparison() {}

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
                List<Double> xa = va.get(e.getValue()).getOrDefault(m, List.of()), xb = vb.get(idB).getOrDefault(m, List.of());
                ReplicateStats.Estimate ea = ReplicateStats.mean(xa), eb = ReplicateStats.mean(xb), d = ReplicateStats.welch(xa, xb);
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
        return o;
    }

    private static Map<Map<String, String>, String> cells(JsonNode s) {
        Map<Map<String, String>, String> m = new LinkedHashMap<>();
        for (JsonNode c : s.path("cells")) {
            Map<String, String> f = new LinkedHashMap<>();
            c.path("factors").fields().forEachRemaining(e -> f.put(e.getKey(), e.getValue().asText()));
            if (f.isEmpty()) f.put("cell", c.path("cell").asText().replaceFirst("^c\\d+-", ""));
            m.put(f, c.path("cell").asText());
        }
        return m;
    }

    private static Set<String> modes(JsonNode s) {
        Set<String> m = new java.util.TreeSet<>();
        for (JsonNode r : s.path("rows")) if (r.path("mode").isTextual()) m.add(r.path("mode").asText());
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
                    m.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue().isNull() ? Double.NaN : e.getValue().asDouble());
            });
        }
        return out;
    }
}
