package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Csv;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import dev.kvlab.harness.report.ReportRenderer;
import dev.kvlab.harness.testsupport.TestMatrices;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One small sim matrix run into a bundle, then checked from every side: layout, hlog interop, verify, tamper, archive, resume. */
class BundleWriterTest {

    @TempDir
    static Path dir;

    static MatrixSpec spec;
    static MatrixRunner.Outcome outcome;
    static final List<String> events = new ArrayList<>();

    @BeforeAll
    static void run() throws Exception {
        spec = MatrixParser.load(TestMatrices.write(dir, "small.yaml", TestMatrices.SMALL), List.of(), null);
        outcome = runner(new Recorder()).run(spec, dir.resolve("runs"), false);
    }

    static MatrixRunner runner(RunListener l) {
        Provenance p = Provenance.capture(
                "test", List.of("run", "small.yaml", "--influx-token", "s3cret", "--set", "password=hunter2"));
        return new MatrixRunner(
                new CellRunner()::run,
                List.of(l),
                p,
                Clock.systemUTC(),
                new ReportRenderer()::render,
                new PrintWriter(new StringWriter()));
    }

    static final class Recorder implements RunListener {
        @Override
        public void runStarted(RunStart s) {
            events.add("run " + s.runId() + " " + s.matrix().runs().size());
        }

        @Override
        public void cellStarted(String id, CellRun c) {
            events.add("start " + c.label());
        }

        @Override
        public void cellFinished(String id, CellRun c, CellResult r) {
            events.add("finish " + c.label() + " " + r.summary().get(Columns.COMPLETED));
        }

        @Override
        public void runFinished(RunEnd e) {
            events.add("end " + e.ok() + " " + e.bundle().getFileName());
        }
    }

    @Test
    void layoutAndListeners() throws Exception {
        Path b = outcome.bundle();
        assertThat(b.getFileName().toString())
                .matches("\\d{8}-\\d{6}-small-" + spec.sha256().substring(0, 6));
        assertThat(b.getParent()).isEqualTo(dir.resolve("runs"));
        try (Stream<Path> s = Files.list(dir.resolve("runs"))) {
            assertThat(s.map(p -> p.getFileName().toString()).toList())
                    .containsExactly(b.getFileName().toString());
        }
        for (String f : List.of("manifest.json", "summary.csv", "summary.json", "report.html", "matrix.sha256"))
            assertThat(b.resolve(f)).isNotEmptyFile();
        for (CellRun r : spec.runs())
            for (String f : List.of("ttft", "tpot", "itl", "tbt", "e2el", "fetch", "queue"))
                assertThat(b.resolve("cells/" + r.cell() + "/r" + r.replicate() + "/" + f + ".hlog"))
                        .isNotEmptyFile();
        assertThat(events).hasSize(2 + 2 * 8);
        assertThat(events.get(0)).startsWith("run ").endsWith(" 8");
        assertThat(events.get(1)).isEqualTo("start c01-cold_local-only/r0");
        assertThat(events.get(2)).isEqualTo("finish c01-cold_local-only/r0 12");
        assertThat(events.get(events.size() - 1)).isEqualTo("end true " + b.getFileName());
        JsonNode m = new ObjectMapper().readTree(b.resolve("manifest.json").toFile());
        String text = Files.readString(b.resolve("manifest.json"));
        assertThat(text).doesNotContain("s3cret").doesNotContain("hunter2");
        assertThat(m.path("command_line").toString()).contains("<redacted>");
        assertThat(m.path("cells")).hasSize(4);
        assertThat(m.path("cells").get(3).path("replicates").get(1).path("seed").asLong())
                .isEqualTo(2);
        assertThat(m.path("inputs").get(0).path("path").asText()).endsWith("small.yaml");
        assertThat(m.path("emulated").toString()).contains("gpu time");
        assertThat(m.path("files").size()).isGreaterThan(4 + 8 * 9);
        assertThat(m.path("files").toString())
                .contains("\"report.html\"")
                .contains("plots/")
                .contains("\"matrix.sha256\"");
        assertThat(m.path("manifest_sha256").asText()).hasSize(64);
    }

    @Test
    void summaryCsvHasTheDesignColumnsPlusFactorsAndAgreesWithJson() throws Exception {
        Path b = outcome.bundle();
        List<List<String>> csv = Csv.parse(Files.readString(b.resolve("summary.csv")));
        assertThat(csv).hasSize(9);
        assertThat(csv.get(0)).containsAll(BundleVerifier.REQUIRED_COLUMNS);
        assertThat(csv.get(0).subList(0, 2)).containsExactly("cell", "replicate");
        JsonNode s = new ObjectMapper().readTree(b.resolve("summary.json").toFile());
        assertThat(s.path("baseline").asText()).isEqualTo("c01-cold_local-only");
        JsonNode hot = s.path("cells").get(3);
        assertThat(hot.path("cell").asText()).isEqualTo("c04-hot_combined");
        JsonNode ttft = hot.path("metrics").path("ttft_p50_ms");
        assertThat(ttft.path("n").asInt()).isEqualTo(2);
        // the mean of the two rows
        double r0 = s.path("rows").get(6).path("ttft_p50_ms").asDouble(),
                r1 = s.path("rows").get(7).path("ttft_p50_ms").asDouble();
        assertThat(ttft.path("mean").asDouble()).isEqualTo((r0 + r1) / 2);
        JsonNode vb = hot.path("vs_baseline").path("ttft_p50_ms");
        double b0 = s.path("rows").get(0).path("ttft_p50_ms").asDouble(),
                b1 = s.path("rows").get(1).path("ttft_p50_ms").asDouble();
        assertThat(vb.path("mean_diff").asDouble())
                .isCloseTo(((r0 - b0) + (r1 - b1)) / 2, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(s.path("cells").get(0).path("vs_baseline").isNull()).isTrue();
        assertThat(BundleVerifier.verify(b)).isEmpty();
    }

    /** The official HdrHistogram reader gets `completed` values and the summary's p99 back from ttft.hlog. */
    @Test
    void hlogFilesReadBackWithHdrHistogramsOwnReader() throws Exception {
        Path b = outcome.bundle();
        JsonNode s = new ObjectMapper().readTree(b.resolve("summary.json").toFile());
        for (JsonNode row : s.path("rows")) {
            File f = b.resolve("cells/" + row.path("cell").asText() + "/r"
                            + row.path("replicate").asInt() + "/ttft.hlog")
                    .toFile();
            HistogramLogReader reader = new HistogramLogReader(f);
            Histogram total = new Histogram(3);
            EncodableHistogram h;
            int intervals = 0;
            while ((h = reader.nextIntervalHistogram()) != null) {
                total.add((Histogram) h);
                intervals++;
            }
            assertThat(intervals).isGreaterThan(1); // 2 s intervals over several seconds of virtual time
            assertThat(total.getTotalCount()).isEqualTo(row.path("completed").asLong());
            double p99 = total.getValueAtPercentile(99) / 1000.0;
            assertThat(p99)
                    .isCloseTo(row.path("ttft_p99_ms").asDouble(), org.assertj.core.data.Percentage.withPercentage(1));
        }
    }

    @Test
    void rerunIsBitIdentical() throws Exception {
        BundleVerifier.Rerun r =
                BundleVerifier.rerun(outcome.bundle(), new CellRunner(), new PrintWriter(new StringWriter()));
        assertThat(r.simRuns()).isEqualTo(8);
        assertThat(r.mismatches()).isEmpty();
    }

    /** Changing one byte of any file, adding a file or removing one fails verify, naming the file. */
    @Test
    void verifyRejectsAOneByteChangeInEveryFile(@TempDir Path t) throws Exception {
        Path b = outcome.bundle();
        List<Path> files;
        try (Stream<Path> w = Files.walk(b)) {
            files = w.filter(Files::isRegularFile).sorted().toList();
        }
        Path copy = t.resolve("copy");
        copyTree(b, copy);
        for (Path f : files) {
            String rel = b.relativize(f).toString();
            Path target = copy.resolve(rel);
            byte[] orig = Files.readAllBytes(target);
            byte[] bytes = orig.clone();
            int at = bytes.length / 2;
            bytes[at] = (byte) (bytes[at] == '7' ? '8' : '7');
            Files.write(target, bytes);
            List<BundleVerifier.Problem> p = BundleVerifier.verify(copy);
            assertThat(p).as(rel).isNotEmpty();
            assertThat(p.get(0).file()).as(rel).isIn(rel, "manifest.json");
            Files.write(target, orig);
        }
        assertThat(BundleVerifier.verify(copy)).isEmpty();
        Files.writeString(copy.resolve("cells/notes.txt"), "x");
        assertThat(BundleVerifier.verify(copy))
                .extracting(BundleVerifier.Problem::file)
                .containsExactly("cells/notes.txt");
        Files.delete(copy.resolve("cells/notes.txt"));
        Files.delete(copy.resolve("cells/c02-cold_combined/r1/itl.hlog"));
        assertThat(BundleVerifier.verify(copy))
                .extracting(BundleVerifier.Problem::file)
                .contains("cells/c02-cold_combined/r1/itl.hlog");
    }

    @Test
    void archiveVerifiesAndTamperedArchiveDoesNot(@TempDir Path t) throws Exception {
        Path tgz = BundleArchive.create(
                outcome.bundle(), t.resolve(outcome.bundle().getFileName() + ".tar.gz"));
        try (OpenedBundle o = OpenedBundle.open(tgz)) {
            assertThat(o.dir().getFileName()).isEqualTo(outcome.bundle().getFileName());
            assertThat(BundleVerifier.verify(o.dir())).isEmpty();
        }
        // the same archive made by tar(1) reads too
        Path tarred = t.resolve("by-tar.tar.gz");
        Process p = new ProcessBuilder(
                        "tar",
                        "czf",
                        tarred.toString(),
                        "-C",
                        outcome.bundle().getParent().toString(),
                        outcome.bundle().getFileName().toString())
                .inheritIO()
                .start();
        assertThat(p.waitFor()).isZero();
        try (OpenedBundle o = OpenedBundle.open(tarred)) {
            assertThat(BundleVerifier.verify(o.dir())).isEmpty();
        }
        Path copy = t.resolve("x");
        copyTree(outcome.bundle(), copy);
        Path f = copy.resolve("summary.csv");
        String s = Files.readString(f);
        Files.writeString(f, s.substring(0, s.length() - 2) + (s.charAt(s.length() - 2) == '9' ? '8' : '9') + "\n");
        Path bad = BundleArchive.create(copy, t.resolve("bad.tar.gz"));
        try (OpenedBundle o = OpenedBundle.open(bad)) {
            assertThat(BundleVerifier.verify(o.dir()))
                    .extracting(BundleVerifier.Problem::file)
                    .containsExactly("summary.csv");
        }
    }

    @Test
    void resumeOfAFinishedRunReturnsItAndRunsNothing() throws Exception {
        List<String> before = new ArrayList<>(events);
        MatrixRunner.Outcome o = runner(new RunListener() {
                    @Override
                    public void cellStarted(String id, CellRun c) {
                        throw new AssertionError("ran " + c.label());
                    }
                })
                .run(spec, dir.resolve("runs"), true);
        assertThat(o.existing()).isTrue();
        assertThat(o.bundle()).isEqualTo(outcome.bundle());
        assertThat(events).isEqualTo(before);
    }

    @Test
    void resumeAfterAFailedCellKeepsFinishedCellsAndMakesOneBundle(@TempDir Path t) throws Exception {
        Path out = t.resolve("runs");
        List<String> ran = new ArrayList<>();
        RunListener failAt5 = new RunListener() {
            @Override
            public void cellStarted(String id, CellRun c) {
                ran.add(c.label());
            }
        };
        CellRunner real = new CellRunner();
        int[] n = {0};
        dev.kvlab.harness.experiments.internal.matrix.CellExecutor flaky = (c, w, o) -> {
            if (++n[0] == 5) throw new IllegalStateException("injected failure");
            return real.run(c, w, o);
        };
        Provenance p = Provenance.capture("test", List.of("run"));
        MatrixRunner r1 = new MatrixRunner(
                flaky,
                List.of(failAt5),
                p,
                Clock.systemUTC(),
                new ReportRenderer()::render,
                new PrintWriter(new StringWriter()));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> r1.run(spec, out, false))
                .hasMessageContaining("injected");
        try (Stream<Path> s = Files.list(out)) {
            List<String> names = s.map(x -> x.getFileName().toString()).toList();
            assertThat(names).hasSize(1);
            assertThat(names.get(0)).startsWith(".").endsWith(".partial");
        }
        ran.clear();
        MatrixRunner r2 = new MatrixRunner(
                new CellRunner()::run,
                List.of(failAt5),
                p,
                Clock.systemUTC(),
                new ReportRenderer()::render,
                new PrintWriter(new StringWriter()));
        MatrixRunner.Outcome o = r2.run(spec, out, true);
        assertThat(ran)
                .containsExactly(
                        "c03-hot_local-only/r0", "c03-hot_local-only/r1", "c04-hot_combined/r0", "c04-hot_combined/r1");
        assertThat(BundleVerifier.verify(o.bundle())).isEmpty();
        try (Stream<Path> s = Files.list(out)) {
            assertThat(s.toList()).containsExactly(o.bundle());
        }
        // the resumed bundle's summaries are the fresh run's, text for text (wall time aside)
        assertThat(withoutWall(o.bundle())).isEqualTo(withoutWall(outcome.bundle()));
    }

    static List<String> withoutWall(Path b) throws Exception {
        List<List<String>> rows = Csv.parse(Files.readString(b.resolve("summary.csv"), StandardCharsets.UTF_8));
        int wall = rows.get(0).indexOf("wall_seconds");
        List<String> out = new ArrayList<>();
        for (List<String> r : rows) {
            List<String> c = new ArrayList<>(r);
            c.remove(wall);
            out.add(String.join(",", c));
        }
        return out;
    }

    static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> w = Files.walk(from)) {
            for (Path p : w.toList()) {
                Path d = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(d);
                else Files.copy(p, d);
            }
        }
    }
}
