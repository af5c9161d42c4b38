package dev.kvlab.harness.bundle;

import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Reads one run's files ({@code cells/<cell>/r<k>/}) in either layout of docs/bundle-format.md: a fixed-load run's
 * {@code <metric>.hlog} files and plain {@code requests.csv}, or a capacity-search probe's one tagged
 * {@code run.hlog} and {@code requests.csv.gz} (which a probe may not keep: {@code bundle.requests}). Every reader of
 * a run's metrics or requests goes through here, so none depends on the layout.
 */
public final class RunFiles {

    private RunFiles() {}

    /** True when {@code dir} holds a probe's compact layout (one tagged {@code run.hlog}). */
    public static boolean compact(Path dir) {
        return Files.isRegularFile(dir.resolve(CellFiles.RUN_HLOG));
    }

    /** The intervals of {@code metric} (by its id, e.g. {@code ttft}), times relative to the measured phase; empty when the run has none. */
    public static List<HlogFile.TimedHistogram> timed(Path dir, String metric) throws IOException {
        Path f = dir.resolve(metric + ".hlog");
        if (Files.isRegularFile(f)) return HlogFile.parse(f, Files.readAllBytes(f));
        Path run = dir.resolve(CellFiles.RUN_HLOG);
        if (Files.isRegularFile(run)) return HlogFile.parseTagged(run, Files.readAllBytes(run), metric);
        return List.of();
    }

    /** The intervals of {@code metric} as recorded (per-metric log or the tagged run log); empty when neither exists. */
    public static List<IntervalHistogram> intervals(Path dir, Metric metric) throws IOException {
        Path f = dir.resolve(metric.id() + ".hlog");
        if (Files.isRegularFile(f)) return HlogFile.read(metric, f);
        Path run = dir.resolve(CellFiles.RUN_HLOG);
        if (Files.isRegularFile(run)) return HlogFile.readTagged(metric, run);
        return List.of();
    }

    /** The run's request records file ({@code requests.csv} or {@code requests.csv.gz}), or null when it kept none. */
    public static Path requestsFile(Path dir) {
        Path plain = dir.resolve(CellFiles.REQUESTS_CSV);
        if (Files.isRegularFile(plain)) return plain;
        Path gz = dir.resolve(CellFiles.REQUESTS_CSV_GZ);
        return Files.isRegularFile(gz) ? gz : null;
    }

    /** The run's request records as text (decompressed when gzipped), or null when the run kept none. */
    public static BufferedReader requests(Path dir) throws IOException {
        Path f = requestsFile(dir);
        if (f == null) return null;
        if (f.getFileName().toString().endsWith(".gz"))
            return new BufferedReader(new InputStreamReader(
                    new GZIPInputStream(Files.newInputStream(f), 1 << 16), StandardCharsets.UTF_8));
        return Files.newBufferedReader(f, StandardCharsets.UTF_8);
    }

    /** True when {@code dir} holds a finished run (its {@code cell.json}, or a probe's {@code run.hlog}). */
    public static boolean recorded(Path dir) {
        return Files.isRegularFile(dir.resolve(CellFiles.CELL_JSON)) || compact(dir);
    }

    /**
     * The run's record ({@code cell.json}: cell, replicate, seed, mode, factors, summary, extra_fields, describe, and for a
     * fixed run config): the file, or a probe's {@code #kvlab-cell} comment line in {@code run.hlog}.
     *
     * @throws IOException when the run has neither, or the record is not JSON
     */
    public static com.fasterxml.jackson.databind.JsonNode cellJson(Path dir) throws IOException {
        Path cj = dir.resolve(CellFiles.CELL_JSON);
        if (Files.isRegularFile(cj)) return BundleJson.read(cj);
        Path run = dir.resolve(CellFiles.RUN_HLOG);
        if (!Files.isRegularFile(run))
            throw new java.nio.file.NoSuchFileException(cj + " (nor " + run.getFileName() + ")");
        String prefix = "#" + CellFiles.CELL_COMMENT;
        try (BufferedReader r = Files.newBufferedReader(run, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith(prefix)) return BundleJson.mapper().readTree(line.substring(prefix.length()));
                if (!line.startsWith("#")) break; // comments come before the legend and the intervals
            }
        }
        throw new IOException(run + ": no '" + prefix.strip() + "' record line");
    }

    /** The file holding the run's record: {@code cell.json}, or a probe's {@code run.hlog}. */
    public static String recordFile(Path dir) {
        return compact(dir) && !Files.isRegularFile(dir.resolve(CellFiles.CELL_JSON))
                ? CellFiles.RUN_HLOG
                : CellFiles.CELL_JSON;
    }
}
