package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Csv;
import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.RequestSplit;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One run of a matrix from its request-split shards' copies of it ({@code cells/<cell>/r<k>/} of every shard): the
 * shards' interval histograms added interval by interval (intervals that start at the same time of the shards' own
 * clocks), {@code requests.csv} the union of the shards' rows in workload order, and {@code cell.json} with the
 * summary {@link SplitSummary} makes of them and the config without the shard's share. Written as
 * {@link CellFiles#write} writes a run: into a temporary directory renamed into place.
 */
public final class SplitCellMerge {

    private SplitCellMerge() {}

    /**
     * @param shardDirs the run's directory in every shard, in shard order
     * @param labels    the shards' labels
     * @param tree      the run's config tree as the whole matrix has it (no share)
     */
    public static void write(
            List<Path> shardDirs, List<String> labels, Path bundle, String cell, int replicate, ObjectNode tree)
            throws IOException {
        Path cellDir = bundle.resolve("cells").resolve(cell);
        Files.createDirectories(cellDir);
        Path tmp = cellDir.resolve(".r" + replicate + ".tmp");
        Durable.deleteTree(tmp);
        Files.createDirectory(tmp);
        List<ObjectNode> cells = new ArrayList<>();
        for (int i = 0; i < shardDirs.size(); i++) {
            ObjectNode c = (ObjectNode) BundleJson.read(shardDirs.get(i).resolve(CellFiles.CELL_JSON));
            String share = c.path("config").path("target").path("request_shard").asText("");
            if (!share.equals(labels.get(i))
                    || !RequestSplit.whole((ObjectNode) c.path("config")).equals(tree))
                throw new BadInputException("run " + cell + "/r" + replicate + " of shard " + labels.get(i)
                        + ": its config is not the matrix's with" + " key '" + RequestSplit.KEY + "' = " + labels.get(i)
                        + " (it has '" + share + "')");
            cells.add(c);
        }
        String clock = "live".equals(cells.getFirst().path("mode").asText()) ? "wall (live)" : "virtual (sim)";
        Map<Metric, Histogram> totals = new EnumMap<>(Metric.class);
        for (Metric m : Metric.values()) {
            Histogram total = new Histogram(3);
            List<IntervalHistogram> merged = intervals(m, shardDirs, total);
            totals.put(m, total);
            Durable.writeNew(tmp.resolve(m.id() + ".hlog"), HlogFile.write(m, merged, cell, replicate, clock));
        }
        SplitSummary.Counts counts = requests(shardDirs, tmp.resolve(CellFiles.REQUESTS_CSV));
        List<JsonNode> summaries = cells.stream().map(c -> c.path("summary")).toList();
        long said = summaries.stream()
                .mapToLong(s -> s.path(Columns.REQUESTS.name()).asLong())
                .sum();
        if (said != counts.requests())
            throw new BadInputException("run " + cell + "/r" + replicate + ": the shards' summaries count " + said
                    + " requests, their requests.csv " + counts.requests());
        ObjectNode out = cells.getFirst().deepCopy();
        ObjectNode summary = SplitSummary.merge(summaries, labels, totals, counts);
        out.set("summary", summary);
        ArrayNode extra = out.putArray("extra_fields");
        java.util.Set<String> extras = new java.util.LinkedHashSet<>();
        for (ObjectNode c : cells) c.path("extra_fields").forEach(e -> extras.add(e.asText()));
        for (String k : extras) if (summary.has(k)) extra.add(k);
        for (String k : List.of(SplitSummary.HOSTS, SplitSummary.STATEMENT, SplitSummary.SKEW, SplitSummary.NOT_ADDED))
            extra.add(k);
        ObjectNode d = (ObjectNode) out.path("describe");
        d.put("load", SplitSummary.statement(labels.size(), labels));
        if (d.has(ConfigKeys.CACHE_STATE))
            d.put(ConfigKeys.CACHE_STATE, perShard(cells, labels, ConfigKeys.CACHE_STATE));
        out.set("config", tree);
        Durable.writeNew(tmp.resolve(CellFiles.CELL_JSON), BundleJson.pretty(out));
        Durable.fsyncDir(tmp);
        Durable.moveDir(tmp, cellDir.resolve("r" + replicate));
        Durable.fsyncDir(cellDir);
    }

    /** The shards' intervals of {@code m} added by start time; {@code total} gets every value. */
    private static List<IntervalHistogram> intervals(Metric m, List<Path> shardDirs, Histogram total)
            throws IOException {
        TreeMap<Long, Histogram> byStart = new TreeMap<>();
        TreeMap<Long, Long> ends = new TreeMap<>();
        for (Path d : shardDirs)
            for (IntervalHistogram ih : HlogFile.read(m, d.resolve(m.id() + ".hlog"))) {
                Histogram h = ih.histogram();
                byStart.computeIfAbsent(ih.startNanos(), k -> new Histogram(3)).add(h);
                ends.merge(ih.startNanos(), ih.endNanos(), Math::max);
                total.add(h);
            }
        List<IntervalHistogram> out = new ArrayList<>();
        for (var e : byStart.entrySet()) {
            Histogram h = e.getValue();
            ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
            int n = h.encodeIntoByteBuffer(buf);
            out.add(new IntervalHistogram(
                    m,
                    e.getKey(),
                    ends.get(e.getKey()),
                    h.getTotalCount(),
                    Arrays.copyOf(buf.array(), n),
                    h.getMaxValueAsDouble()));
        }
        return out;
    }

    /** Writes the shards' rows to {@code out} in workload order (by id); a request id in two shards is refused. */
    private static SplitSummary.Counts requests(List<Path> shardDirs, Path out) throws IOException {
        TreeMap<Long, String> rows = new TreeMap<>();
        long completed = 0, failed = 0, good = 0, tokens = 0;
        for (Path d : shardDirs) {
            Path f = d.resolve(CellFiles.REQUESTS_CSV);
            try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                String header = r.readLine();
                if (!RequestRecord.CSV_HEADER.equals(header))
                    throw new BadInputException(f + ": not a requests.csv (header " + header + ")");
                String line;
                while ((line = r.readLine()) != null) {
                    while (quotes(line) % 2 != 0) {
                        String more = r.readLine();
                        if (more == null) throw new BadInputException(f + ": unterminated quoted field");
                        line = line + "\n" + more;
                    }
                    if (line.isEmpty()) continue;
                    List<String> fs = Csv.parse(line).getFirst();
                    long id = Long.parseLong(fs.get(0));
                    if (rows.put(id, line) != null)
                        throw new BadInputException(f + ": request " + id + " is in two shards");
                    boolean ok = "ok".equals(fs.get(17));
                    if (ok) {
                        completed++;
                        tokens += Long.parseLong(fs.get(5));
                    } else failed++;
                    if (Boolean.parseBoolean(fs.get(16))) good++;
                }
            }
        }
        StringBuilder sb = new StringBuilder(RequestRecord.CSV_HEADER).append('\n');
        for (String line : rows.values()) sb.append(line).append('\n');
        Durable.writeNew(out, sb.toString().getBytes(StandardCharsets.UTF_8));
        return new SplitSummary.Counts(rows.size(), completed, failed, good, tokens);
    }

    private static int quotes(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) == '"') n++;
        return n;
    }

    private static String perShard(List<ObjectNode> cells, List<String> labels, String key) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.size(); i++)
            sb.append(i == 0 ? "" : "; ")
                    .append(labels.get(i))
                    .append(": ")
                    .append(cells.get(i).path("describe").path(key).asText());
        return sb.toString();
    }
}
