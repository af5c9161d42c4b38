package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.testsupport.TestMatrices;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kvlab run (matrix) / verify / compare through the CLI. */
class BundleCommandsTest {

    @TempDir
    Path dir;

    @Test
    void runMatrixJsonThenVerifyCompareAndArchive() throws Exception {
        Path m = TestMatrices.write(dir, "small.yaml", TestMatrices.SMALL);
        String out = dir.resolve("runs").toString();
        Cli run = Cli.run("run", m.toString(), "--out", out, "--json", "--archive", "--set", "replicates=1");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode j = run.json();
        assertThat(j.path("rows")).hasSize(4);
        Path bundle = Path.of(j.path("bundle").asText());
        String[] errLines = run.err().strip().split("\n");
        assertThat(errLines[errLines.length - 1]).isEqualTo(bundle.toString());
        assertThat(Path.of(bundle + ".tar.gz")).exists();

        Cli v = Cli.run("verify", bundle.toString(), "--rerun");
        assertThat(v.exit()).as(v.out() + v.err()).isZero();
        assertThat(v.out()).contains("4 sim cell runs bit-identical");
        assertThat(Cli.run("verify", bundle + ".tar.gz").exit()).isZero();

        // a second run of the same matrix with another seed, compared cell by cell
        Cli run2 = Cli.run("run", m.toString(), "--out", out, "--set", "replicates=1", "--set", "seed=9");
        assertThat(run2.exit()).as(run2.err()).isZero();
        String[] lines = run2.out().strip().split("\n");
        Path bundle2 = Path.of(lines[lines.length - 1]);
        assertThat(bundle2.resolve("manifest.json")).exists();
        Cli cmp = Cli.run("compare", bundle.toString(), bundle2.toString(), "--json");
        assertThat(cmp.exit()).as(cmp.err()).isZero();
        JsonNode c = cmp.json();
        assertThat(c.path("cells")).hasSize(4);
        JsonNode ttft = c.path("cells").get(0).path("metrics").path("ttft_p50_ms");
        assertThat(ttft.path("diff").asDouble())
                .isEqualTo(ttft.path("b").asDouble() - ttft.path("a").asDouble());
        assertThat(Cli.run("compare", bundle.toString(), bundle2.toString()).out())
                .contains("cold/local-only")
                .contains("ttft_p99_ms");

        // kvlab archive: one file and its checksum beside it; report and compare read the archive as it is
        Path arch = dir.resolve("b.tar.gz");
        Cli a = Cli.run("archive", bundle.toString(), "--out", arch.toString());
        assertThat(a.exit()).as(a.err()).isZero();
        assertThat(java.nio.file.Files.readString(Path.of(arch + ".sha256")))
                .isEqualTo(dev.kvlab.harness.bundle.Sha256.of(arch) + "  b.tar.gz\n");
        assertThat(Cli.run("verify", arch.toString()).exit()).isZero();
        Cli rep = Cli.run("report", arch.toString(), "--out", dir.resolve("rep").toString());
        assertThat(rep.exit()).as(rep.err()).isZero();
        assertThat(dir.resolve("rep/report.html")).isRegularFile();
        Cli cmpA = Cli.run("compare", arch.toString(), bundle2.toString(), "--json");
        assertThat(cmpA.exit()).as(cmpA.err()).isZero();
        assertThat(cmpA.json().path("cells")).hasSize(4);

        // one changed byte: exit 1 naming the file
        Path csv = bundle.resolve("summary.csv");
        String s = Files.readString(csv);
        int i = s.indexOf(",sim,") + 1;
        Files.writeString(csv, s.substring(0, i) + "S" + s.substring(i + 1));
        Cli bad = Cli.run("verify", bundle.toString());
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("summary.csv");
        assertThat(Cli.run("verify", dir.resolve("nope").toString()).exit()).isEqualTo(2);
    }

    /** A live cell re-run by verify --rerun is compared with its interval and reported, not failed. */
    @Test
    void rerunOfALiveCellIsReportedNotFailed() throws Exception {
        Path smoke = dev.kvlab.workloads.testing.SourceTree.file("ablations/smoke.yaml");
        Cli run = Cli.run(
                "run",
                smoke.toString(),
                "--mode",
                "live",
                "--set",
                "cache_state=cold",
                "--set",
                "tiers=combined",
                "--set",
                "policy=auto",
                "--set",
                "replicates=1",
                "--out",
                dir.resolve("runs").toString());
        assertThat(run.exit()).as(run.err()).isZero();
        String[] lines = run.out().strip().split("\n");
        Path bundle = Path.of(lines[lines.length - 1]);
        Cli v = Cli.run("verify", bundle.toString(), "--rerun");
        assertThat(v.exit()).as(v.out() + v.err()).isZero();
        assertThat(v.err())
                .contains("c01-cold_combined_auto/r0 (live): ttft_p50_ms")
                .contains("no interval: one replicate");
        assertThat(v.out()).contains("0 sim cell runs bit-identical; 1 live cell runs re-run");
    }

    @Test
    void badMatrixExitsTwoAndWritesNothing() throws Exception {
        Path m = TestMatrices.write(
                dir,
                "bad.yaml",
                TestMatrices.SMALL.replace("tiers: [local-only, combined]", "tiers: [local-only, combind]"));
        Cli run = Cli.run("run", m.toString(), "--out", dir.resolve("runs").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains(m + ":").contains("combind");
        assertThat(dir.resolve("runs")).doesNotExist();
    }
}
