package dev.kvlab.harness.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** Numeric columns of a replicate's {@code requests.csv} (RFC 4180; quoted fields may hold commas). */
final class RequestsCsv {

    private RequestsCsv() {}

    /** Column → values (NaN where unparsable) for {@code columns} of the run in {@code dir}; empty lists when it kept no requests. */
    static Map<String, double[]> read(Path dir, List<String> columns) {
        Map<String, List<Double>> acc = new HashMap<>();
        for (String c : columns) acc.put(c, new ArrayList<>());
        forEach(dir, columns, row -> {
            for (int i = 0; i < row.length; i++) acc.get(columns.get(i)).add(row[i]);
        });
        Map<String, double[]> out = new HashMap<>();
        acc.forEach(
                (k, v) -> out.put(k, v.stream().mapToDouble(Double::doubleValue).toArray()));
        return out;
    }

    /**
     * Streams {@code columns} of every row of the requests of the run in {@code dir} ({@code requests.csv}, or a probe's
     * {@code requests.csv.gz}: {@link dev.kvlab.harness.bundle.RunFiles}) (NaN where absent or unparsable) to
     * {@code each}, one row at a time (the array is reused); nothing when the run kept no requests. Memory does not grow
     * with the file.
     */
    static void forEach(Path dir, List<String> columns, Consumer<double[]> each) {
        Path file = dir;
        if (dev.kvlab.harness.bundle.RunFiles.requestsFile(dir) != null) {
            try (BufferedReader r = dev.kvlab.harness.bundle.RunFiles.requests(dir)) {
                String header = r.readLine();
                if (header != null) {
                    List<String> head = split(header);
                    int[] idx = new int[columns.size()];
                    for (int i = 0; i < idx.length; i++) idx[i] = head.indexOf(columns.get(i));
                    double[] row = new double[idx.length];
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (line.isEmpty()) continue;
                        List<String> f = split(line);
                        for (int i = 0; i < idx.length; i++)
                            row[i] = idx[i] >= 0 && idx[i] < f.size() ? parse(f.get(idx[i])) : Double.NaN;
                        each.accept(row);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
    }

    private static double parse(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted) {
                if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (ch == '"') quoted = false;
                else cur.append(ch);
            } else if (ch == '"') quoted = true;
            else if (ch == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else cur.append(ch);
        }
        out.add(cur.toString());
        return out;
    }
}
