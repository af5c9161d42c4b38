package dev.kvlab.harness.openai.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The samples of a Prometheus text exposition ({@code GET /metrics}) of one or more endpoints, each series (endpoint,
 * name, label set) kept apart: the engine's own view of its caches, scraped before and after a measured phase and read
 * as differences ({@link #delta}), split by a label where the engine splits its counters (SGLang's
 * {@code cache_source}). A series that went backwards between two scrapes is a counter reset (the engine restarted),
 * never a negative count.
 */
record PromMetrics(Map<Series, Double> values) {

    static final PromMetrics NONE = new PromMetrics(Map.of());

    /** One time series: the endpoint it was scraped from (its index), the metric's name and its labels (sorted). */
    record Series(int endpoint, String name, Map<String, String> labels) {}

    /** Parses {@code text} of endpoint 0 (null: no metrics); malformed lines are skipped. */
    static PromMetrics parse(String text) {
        return parse(text, 0);
    }

    /** Parses {@code text} scraped from endpoint {@code endpoint} (null: no metrics); malformed lines are skipped. */
    static PromMetrics parse(String text, int endpoint) {
        if (text == null) return NONE;
        Map<Series, Double> v = new LinkedHashMap<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int brace = line.indexOf('{'), space;
            String name;
            Map<String, String> labels = Map.of();
            if (brace > 0) {
                name = line.substring(0, brace);
                int close = line.lastIndexOf('}');
                if (close < brace) continue;
                labels = labels(line.substring(brace + 1, close));
                if (labels == null) continue;
                space = close + 1;
            } else {
                space = line.indexOf(' ');
                if (space <= 0) continue;
                name = line.substring(0, space);
            }
            String[] rest = line.substring(space).strip().split("\\s+");
            if (rest.length == 0) continue;
            try {
                v.merge(new Series(endpoint, name, labels), Double.parseDouble(rest[0]), Double::sum);
            } catch (NumberFormatException e) {
                // not a sample
            }
        }
        return new PromMetrics(v);
    }

    /** {@code a="x",b="y"} as a sorted map; null when malformed. */
    private static Map<String, String> labels(String s) {
        Map<String, String> m = new TreeMap<>();
        int i = 0, n = s.length();
        while (i < n) {
            while (i < n && (s.charAt(i) == ',' || s.charAt(i) == ' ')) i++;
            if (i >= n) break;
            int eq = s.indexOf('=', i);
            if (eq < 0 || eq + 1 >= n || s.charAt(eq + 1) != '"') return null;
            String key = s.substring(i, eq).strip();
            StringBuilder val = new StringBuilder();
            int j = eq + 2;
            for (; j < n && s.charAt(j) != '"'; j++) {
                char c = s.charAt(j);
                if (c == '\\' && j + 1 < n) {
                    char e = s.charAt(++j);
                    val.append(e == 'n' ? '\n' : e);
                } else val.append(c);
            }
            if (j >= n) return null;
            m.put(key, val.toString());
            i = j + 1;
        }
        return m;
    }

    /** Whether any series of the first of {@code names} present is here. */
    boolean has(String... names) {
        return first(names) != null;
    }

    /** The first of {@code names} this scrape has a series of, or null. */
    String first(String... names) {
        for (String n : names) for (Series s : values.keySet()) if (s.name().equals(n)) return n;
        return null;
    }

    /** The sum over the series of {@code name}, or null when it has none. */
    Double sum(String name) {
        Double t = null;
        for (var e : values.entrySet()) if (e.getKey().name().equals(name)) t = (t == null ? 0 : t) + e.getValue();
        return t;
    }

    /**
     * The growth of a counter over a phase, series by series: {@code after - before} of each series of {@code name}
     * (a series that appears only after the phase started counts from 0, as a labelled child is created at its first
     * increment), or a reset when a series went backwards or vanished.
     *
     * @param total  the growth over every series (NaN on a reset)
     * @param byLabel the growth by the value of the label asked for ({@code ""} where a series lacks it)
     * @param reset  why the counter cannot be differenced (a series went backwards or vanished), or null
     */
    record Delta(double total, Map<String, Double> byLabel, String reset) {}

    /**
     * The {@link Delta} of the first of {@code names} that {@code after} has, split by {@code label} (null: no split);
     * null when neither scrape has any of them.
     */
    static Delta delta(PromMetrics before, PromMetrics after, String label, String... names) {
        String name = after.first(names);
        if (name == null) {
            String was = before.first(names);
            return was == null
                    ? null
                    : new Delta(
                            Double.NaN,
                            Map.of(),
                            "the counter " + was + " vanished from /metrics during the phase (the engine restarted?)");
        }
        double total = 0;
        Map<String, Double> by = new LinkedHashMap<>();
        List<String> backwards = new ArrayList<>();
        for (var e : after.values.entrySet()) {
            Series s = e.getKey();
            if (!s.name().equals(name)) continue;
            Double b = before.values.get(s);
            double d = e.getValue() - (b == null ? 0 : b);
            if (d < 0) backwards.add(s.name() + s.labels() + " " + fmt(b) + " -> " + fmt(e.getValue()));
            total += d;
            if (label != null) by.merge(s.labels().getOrDefault(label, ""), d, Double::sum);
        }
        for (Series s : before.values.keySet())
            if (s.name().equals(name) && !after.values.containsKey(s))
                backwards.add(s.name() + s.labels() + " vanished");
        if (!backwards.isEmpty())
            return new Delta(
                    Double.NaN,
                    Map.of(),
                    "counter reset during the phase (the engine restarted?): " + String.join(", ", backwards));
        return new Delta(total, by, null);
    }

    private static String fmt(Double d) {
        return d == null
                ? "absent"
                : d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString(d.longValue()) : d.toString();
    }

    /** The scrapes of several endpoints, one per endpoint in order, kept apart series by series. */
    static PromMetrics of(List<PromMetrics> perEndpoint) {
        Map<Series, Double> v = new LinkedHashMap<>();
        for (int i = 0; i < perEndpoint.size(); i++)
            for (var e : perEndpoint.get(i).values.entrySet())
                v.put(new Series(i, e.getKey().name(), e.getKey().labels()), e.getValue());
        return new PromMetrics(v);
    }
}
