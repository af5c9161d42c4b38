package dev.kvlab.harness.internal.openai;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counters of a Prometheus text exposition ({@code GET /metrics}), summed over their label sets: the engine's own
 * view of its caches, scraped before and after a measured phase and read as differences.
 */
record PromMetrics(Map<String, Double> values) {

    static final PromMetrics NONE = new PromMetrics(Map.of());

    /** Parses {@code text} (null: no metrics); malformed lines are skipped. */
    static PromMetrics parse(String text) {
        if (text == null) return NONE;
        Map<String, Double> v = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) continue;
            int brace = line.indexOf('{'), space;
            String name;
            if (brace > 0) {
                name = line.substring(0, brace);
                int close = line.lastIndexOf('}');
                if (close < 0) continue;
                space = close + 1;
            } else {
                space = line.indexOf(' ');
                if (space <= 0) continue;
                name = line.substring(0, space);
            }
            String[] rest = line.substring(space).strip().split("\\s+");
            if (rest.length == 0) continue;
            try {
                v.merge(name, Double.parseDouble(rest[0]), Double::sum);
            } catch (NumberFormatException e) {
                // not a sample
            }
        }
        return new PromMetrics(v);
    }

    /** The first of {@code names} present, or null. */
    Double get(String... names) {
        for (String n : names) {
            Double d = values.get(n);
            if (d != null) return d;
        }
        return null;
    }

    /** {@code after - before} of the first of {@code names} both have, or null. */
    static Double delta(PromMetrics before, PromMetrics after, String... names) {
        for (String n : names) {
            Double a = after.values.get(n), b = before.values.get(n);
            if (a != null && b != null) return a - b;
        }
        return null;
    }

    /** Sums {@code m} over several endpoints. */
    static PromMetrics sum(Iterable<PromMetrics> ms) {
        Map<String, Double> v = new LinkedHashMap<>();
        for (PromMetrics m : ms) m.values.forEach((k, x) -> v.merge(k, x, Double::sum));
        return new PromMetrics(v);
    }
}
