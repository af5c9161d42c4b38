package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunRecords;
import dev.kvlab.harness.api.input.BadInputException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A bundle being written: {@code <out>/.<run-id>.partial/}, holding {@code matrix.sha256} (written first), the
 * finished cell × replicate directories, and two scratch files ({@code .run.json}: start time and command line;
 * {@code .lock}: held while a process writes here). {@link #finish} writes the summaries, the report and
 * {@code manifest.json} (last), removes the scratch files and renames the directory to {@code <out>/<run-id>/}.
 * A process killed at any point leaves either this hidden directory (which {@code --resume} continues) or a
 * complete bundle.
 */
public final class PartialBundle implements AutoCloseable {

    public static final String HASH_FILE = "matrix.sha256";
    public static final String MANIFEST = "manifest.json";
    public static final String SUMMARY_CSV = "summary.csv";
    public static final String SUMMARY_JSON = "summary.json";
    static final String RUN_STATE = ".run.json";
    static final String LOCK = ".lock";
    private static final String SUFFIX = ".partial";
    private static final DateTimeFormatter ID_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);

    /**
     * What renders {@code report.html} and {@code plots/} into a bundle directory; {@code manifest} is the
     * manifest about to be written, without its {@code files} list (for provenance on the page).
     */
    @FunctionalInterface
    public interface ReportStep {
        void render(Path bundleDir, JsonNode manifest) throws IOException;
    }

    private final Path out;
    private final Path dir;
    private final String runId;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final ObjectNode state;

    private PartialBundle(Path out, Path dir, String runId, ObjectNode state) throws IOException {
        this.out = out;
        this.dir = dir;
        this.runId = runId;
        this.state = state;
        this.lockChannel = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock l = lockChannel.tryLock();
        if (l == null) {
            lockChannel.close();
            throw new BadInputException(dir + ": another kvlab process is writing this run");
        }
        this.lock = l;
    }

    /** {@code <yyyyMMdd-HHmmss UTC>-<name>-<6 hex of the resolved matrix hash>}. */
    public static String runId(Instant start, MatrixSpec spec) {
        String name = spec.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
        if (name.length() > 60) name = name.substring(0, 60);
        return ID_TIME.format(start) + "-" + name + "-" + spec.sha256().substring(0, 6);
    }

    /** Starts a fresh run in {@code out}. */
    public static PartialBundle create(Path out, MatrixSpec spec, Instant start, List<String> commandLine)
            throws IOException {
        Files.createDirectories(out);
        String base = runId(start, spec);
        String id = base;
        for (int n = 2; Files.exists(out.resolve(id)) || Files.exists(out.resolve("." + id + SUFFIX)); n++)
            id = base + "-" + n;
        Path dir = out.resolve("." + id + SUFFIX);
        Files.createDirectory(dir);
        Durable.writeNew(dir.resolve(HASH_FILE), (spec.sha256() + "\n").getBytes(StandardCharsets.US_ASCII));
        ObjectNode st = JsonNodeFactory.instance.objectNode();
        st.put("started_at", start.toString());
        ArrayNode cl = st.putArray("command_line");
        commandLine.forEach(cl::add);
        st.putArray("resumed_at");
        Durable.writeNew(dir.resolve(RUN_STATE), BundleJson.pretty(st));
        Durable.fsyncDir(dir);
        Durable.fsyncDir(out);
        return new PartialBundle(out, dir, id, st);
    }

    /** The newest interrupted run of this very matrix in {@code out} (its hidden directory), or null. */
    public static Path interrupted(Path out, MatrixSpec spec) throws IOException {
        if (!Files.isDirectory(out)) return null;
        try (Stream<Path> s = Files.list(out)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                String n = p.getFileName().toString();
                if (n.startsWith(".")
                        && n.endsWith(SUFFIX)
                        && Files.isDirectory(p)
                        && spec.sha256().equals(hashOf(p))) return p;
            }
        }
        return null;
    }

    /** The newest interrupted run of this very matrix in {@code out}, opened to continue, or null. */
    public static PartialBundle resume(Path out, MatrixSpec spec, Instant now) throws IOException {
        Path dir = interrupted(out, spec);
        if (dir == null) return null;
        String n = dir.getFileName().toString();
        String id = n.substring(1, n.length() - SUFFIX.length());
        ObjectNode st;
        try {
            st = (ObjectNode) BundleJson.read(dir.resolve(RUN_STATE));
        } catch (IOException | RuntimeException e) {
            st = JsonNodeFactory.instance.objectNode();
            st.put("started_at", now.toString());
            st.putArray("command_line");
            st.putArray("resumed_at");
        }
        ((ArrayNode) st.withArray("resumed_at")).add(now.toString());
        PartialBundle pb = new PartialBundle(out, dir, id, st);
        Durable.replace(dir.resolve(RUN_STATE), BundleJson.pretty(st));
        return pb;
    }

    /** The newest finished bundle of this very matrix in {@code out}, or null. */
    public static Path finished(Path out, MatrixSpec spec) throws IOException {
        if (!Files.isDirectory(out)) return null;
        try (Stream<Path> s = Files.list(out)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                if (p.getFileName().toString().startsWith(".") || !Files.isRegularFile(p.resolve(MANIFEST))) continue;
                if (spec.sha256().equals(hashOf(p))) return p;
            }
        }
        return null;
    }

    private static String hashOf(Path dir) {
        try {
            return Files.readString(dir.resolve(HASH_FILE), StandardCharsets.US_ASCII)
                    .strip();
        } catch (IOException e) {
            return null;
        }
    }

    public String runId() {
        return runId;
    }

    public Path dir() {
        return dir;
    }

    public Instant startedAt() {
        return Instant.parse(state.path("started_at").asText(Instant.now().toString()));
    }

    public boolean done(CellRun r) {
        return RunFiles.recorded(CellFiles.dir(dir, r.cell(), r.replicate()));
    }

    /** The runs this bundle holds, read from their {@code cell.json} files (read once each: a recorded run never changes). */
    public RunRecords records() {
        return records;
    }

    private final RunRecords records = new RunRecords() {
        private final java.util.Map<String, JsonNode> cache = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public JsonNode summary(CellRun run) {
            JsonNode s = cache.get(run.label());
            if (s != null) return s;
            Path cj = dir(run);
            if (!RunFiles.recorded(cj)) return null;
            try {
                s = RunFiles.cellJson(cj).get("summary");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot read " + cj + ": " + e.getMessage(), e);
            }
            if (s != null) cache.put(run.label(), s);
            return s;
        }

        @Override
        public Path dir(CellRun run) {
            return CellFiles.dir(dir, run.cell(), run.replicate());
        }
    };

    public void write(CellRun r, CellResult result) throws IOException {
        CellFiles.write(dir, r, result);
    }

    /**
     * Writes {@code summary.csv}, {@code summary.json} (rows: {@code runs}, the runs the experiment recorded, in its
     * order), the experiment's {@code results} files (e.g. {@code capacity.json}), the report, then
     * {@code manifest.json}, and renames the directory into place. Returns the bundle directory and the summary.
     */
    public Finished finish(
            MatrixSpec spec,
            List<CellRun> runs,
            java.util.Map<String, byte[]> results,
            Provenance prov,
            Instant end,
            ReportStep report,
            java.util.Map<String, ManifestSection> sections)
            throws IOException {
        SummaryTable table = SummaryTable.fromCells(dir, spec, runs);
        Durable.replace(dir.resolve(SUMMARY_CSV), table.csv());
        Durable.replace(dir.resolve(SUMMARY_JSON), BundleJson.compactFile(table.json(runId, spec)));
        for (var e : results.entrySet()) Durable.replace(dir.resolve(e.getKey()), e.getValue());
        ObjectNode manifest = Manifest.build(runId, spec, runs, prov, state, end, table);
        for (var e : sections.entrySet())
            if (!manifest.has(e.getKey()))
                manifest.set(e.getKey(), BundleJson.mapper().valueToTree(e.getValue()));
        report.render(dir, manifest.deepCopy());
        sweepTemporaries();
        manifest.set("files", Manifest.files(dir));
        Durable.replace(dir.resolve(MANIFEST), Manifest.sealed(manifest));
        Files.deleteIfExists(dir.resolve(RUN_STATE));
        close();
        Files.deleteIfExists(dir.resolve(LOCK));
        Durable.fsyncDir(dir);
        Path target = out.resolve(runId);
        Durable.moveDir(dir, target);
        Durable.fsyncDir(out);
        return new Finished(target, table);
    }

    /** The finished bundle and its summary table. */
    public record Finished(Path bundle, SummaryTable table) {}

    /** Removes temporaries a crashed attempt may have left ({@code .x.tmp} files and directories). */
    private void sweepTemporaries() throws IOException {
        List<Path> stale = new ArrayList<>();
        try (Stream<Path> w = Files.walk(dir)) {
            w.filter(p -> !p.equals(dir)).forEach(p -> {
                String n = p.getFileName().toString();
                if (n.startsWith(".") && !(p.getParent().equals(dir) && (n.equals(LOCK) || n.equals(RUN_STATE))))
                    stale.add(p);
            });
        }
        for (Path p : stale) Durable.deleteTree(p);
    }

    @Override
    public void close() throws IOException {
        if (lock.isValid()) lock.release();
        lockChannel.close();
    }

    static JsonNode state(PartialBundle pb) {
        return pb.state;
    }
}
