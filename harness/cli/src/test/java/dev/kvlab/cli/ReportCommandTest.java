package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.testsupport.TestMatrices;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvlab report BUNDLE} on bundles the matrix runner wrote: a whole bundle is re-rendered and still verifies; a
 * corrupt one is refused and never re-sealed (issue 14, defect 1).
 */
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
        assertThat(r.lastLine())
                .isEqualTo(bundle.resolve("report.html").toAbsolutePath().toString());
        assertThat(Files.readString(bundle.resolve("report.html"))).isEqualTo(first);
        assertThat(bundle.resolve("plots/stale.png")).doesNotExist();
        Run verify = kvlab("verify", bundle.toString());
        assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
        try (Stream<Path> s = Files.walk(bundle)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")))
                    .isEmpty();
        }
    }

    private Path smallBundle() throws Exception {
        Path matrix = TestMatrices.write(tmp, "small.yaml", TestMatrices.SMALL);
        Run run = kvlab("run", matrix.toString(), "--out", tmp.resolve("runs").toString());
        assertThat(run.exit()).as(run.err()).isZero();
        return Path.of(run.lastLine());
    }

    @Test
    void aCorruptHlogIsRefusedNamingTheFileAndNeverResealed() throws Exception {
        Path bundle = smallBundle();
        Path hlog;
        try (Stream<Path> s = Files.walk(bundle.resolve("cells"))) {
            hlog = s.filter(p -> p.getFileName().toString().equals("ttft.hlog"))
                    .sorted()
                    .findFirst()
                    .orElseThrow();
        }
        byte[] b = Files.readAllBytes(hlog);
        b[b.length - 10] ^= 0x01;
        Files.write(hlog, b);
        byte[] manifest = Files.readAllBytes(bundle.resolve("manifest.json"));
        byte[] page = Files.readAllBytes(bundle.resolve("report.html"));

        Run r = kvlab("report", bundle.toString());
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.err())
                .contains(bundle.relativize(hlog).toString().replace('\\', '/'))
                .contains("refusing");
        assertThat(Files.readAllBytes(bundle.resolve("manifest.json"))).isEqualTo(manifest);
        assertThat(Files.readAllBytes(bundle.resolve("report.html"))).isEqualTo(page);
        assertThat(kvlab("verify", bundle.toString()).exit()).isEqualTo(1);
        // --out does not launder it either
        Run out = kvlab(
                "report", bundle.toString(), "--out", tmp.resolve("elsewhere").toString());
        assertThat(out.exit()).isEqualTo(1);
        assertThat(tmp.resolve("elsewhere")).doesNotExist();
    }

    @Test
    void anEditedSummaryIsRefusedAndNotRendered() throws Exception {
        Path bundle = smallBundle();
        Path sj = bundle.resolve("summary.json");
        String text = Files.readString(sj);
        String edited = text.replaceFirst("\"goodput_rps\" ?: ?[0-9.eE+-]+", "\"goodput_rps\":12345.0");
        assertThat(edited).isNotEqualTo(text);
        Files.writeString(sj, edited);
        byte[] page = Files.readAllBytes(bundle.resolve("report.html"));
        Run r = kvlab("report", bundle.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("summary.json");
        assertThat(Files.readAllBytes(bundle.resolve("report.html"))).isEqualTo(page);
        assertThat(Files.readString(bundle.resolve("report.html"))).doesNotContain("12345");
    }

    @Test
    void aDifferentRenderingIsNotWrittenIntoTheBundleButToOut() throws Exception {
        Path bundle = smallBundle();
        Path svg = bundle.resolve("plots/ttft-p50-p99.svg");
        // pretend the run's kvlab drew this plot differently: the seal says so too (a legitimately older bundle)
        String manifest = Files.readString(bundle.resolve("manifest.json"));
        String oldSha = dev.kvlab.harness.bundle.Sha256.of(svg);
        String resealed = manifest.replace(oldSha, "0".repeat(63) + "1");
        var m = (com.fasterxml.jackson.databind.node.ObjectNode)
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(resealed);
        Files.write(bundle.resolve("manifest.json"), dev.kvlab.harness.bundle.Manifest.sealed(m));
        Files.writeString(svg, "<svg>older</svg>");
        Run inPlace = kvlab("report", bundle.toString());
        assertThat(inPlace.exit()).isEqualTo(1);
        assertThat(inPlace.err()).contains("plots/ttft-p50-p99.svg", "renders it differently", "--out");
        assertThat(Files.readString(svg)).isEqualTo("<svg>older</svg>");

        Path fresh = smallBundle();
        Path out = tmp.resolve("rendered");
        byte[] manifestBytes = Files.readAllBytes(fresh.resolve("manifest.json"));
        Run r = kvlab("report", fresh.toString(), "--out", out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(out.resolve("report.html")).isRegularFile();
        assertThat(out.resolve("plots/ttft-p50-p99.svg")).isRegularFile();
        assertThat(Files.readAllBytes(fresh.resolve("manifest.json"))).isEqualTo(manifestBytes);
        assertThat(kvlab(
                                "report",
                                fresh.toString(),
                                "--out",
                                fresh.resolve("plots").toString())
                        .exit())
                .isEqualTo(2);
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
