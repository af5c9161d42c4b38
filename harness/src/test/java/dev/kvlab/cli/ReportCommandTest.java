package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.bundle.TestMatrices;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kvlab report BUNDLE} on bundles the matrix runner wrote: re-rendered, and {@code kvlab verify} still accepts them. */
class ReportCommandTest {

    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {
        String lastLine() {
            return out.strip().lines().reduce((a, b) -> b).orElse("");
        }
    }

    static Run kvlab(String... args) {
        CommandLine cl = Kvlab.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void reRendersARunsBundleAndVerifyStillAcceptsIt() throws Exception {
        Path matrix = TestMatrices.write(tmp, "small.yaml", TestMatrices.SMALL);
        Run run = kvlab("run", matrix.toString(), "--out", tmp.resolve("runs").toString());
        assertThat(run.exit()).as(run.err()).isZero();
        Path bundle = Path.of(run.lastLine());
        // the runner rendered the report with its plots
        assertThat(bundle.resolve("report.html")).isRegularFile();
        assertThat(bundle.resolve("plots/ttft-p50-p99.svg")).isRegularFile();
        String first = Files.readString(bundle.resolve("report.html"));
        assertThat(first).contains("Provenance", "small.yaml");

        // a stale plot and a missing page: the re-render replaces both, and the manifest follows
        Files.delete(bundle.resolve("report.html"));
        Files.writeString(bundle.resolve("plots/stale.png"), "old");
        Run r = kvlab("report", bundle.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lastLine()).isEqualTo(bundle.resolve("report.html").toAbsolutePath().toString());
        assertThat(Files.readString(bundle.resolve("report.html"))).isEqualTo(first);
        assertThat(bundle.resolve("plots/stale.png")).doesNotExist();
        Run verify = kvlab("verify", bundle.toString());
        assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
        try (Stream<Path> s = Files.walk(bundle)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp"))).isEmpty();
        }
    }

    @Test
    void badBundlesExitTwoAndWriteNothing() throws Exception {
        Run missing = kvlab("report", tmp.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("nope");
        Files.createDirectories(tmp.resolve("empty"));
        Run empty = kvlab("report", tmp.resolve("empty").toString());
        assertThat(empty.exit()).isEqualTo(2);
        assertThat(empty.err()).contains("summary.json");
        try (Stream<Path> s = Files.list(tmp.resolve("empty"))) {
            assertThat(s.toList()).isEmpty();
        }
        Files.writeString(tmp.resolve("b.tar.gz"), "x");
        assertThat(kvlab("report", tmp.resolve("b.tar.gz").toString()).exit()).isEqualTo(2);
        assertThat(kvlab("report").exit()).isEqualTo(2);
    }
}
