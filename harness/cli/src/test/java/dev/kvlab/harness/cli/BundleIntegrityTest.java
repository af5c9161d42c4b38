package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.testsupport.TestMatrices;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 14's decisions on bundles: verify rejects strays (empty cell directories, symlinks); compare says when nothing matches. */
class BundleIntegrityTest {

    @TempDir
    Path dir;

    Path bundle;

    @BeforeEach
    void run() throws Exception {
        Path m = TestMatrices.write(dir, "small.yaml", TestMatrices.SMALL);
        Cli run = Cli.run("run", m.toString(), "--out", dir.resolve("runs").toString(), "--set", "replicates=1");
        assertThat(run.exit()).as(run.err()).isZero();
        String[] lines = run.out().strip().split("\n");
        bundle = Path.of(lines[lines.length - 1]);
        assertThat(Cli.run("verify", bundle.toString()).exit()).isZero();
    }

    @Test
    void anExtraEmptyCellDirectoryFailsVerify() throws Exception {
        Files.createDirectories(bundle.resolve("cells/c99-fake/r0"));
        Cli v = Cli.run("verify", bundle.toString());
        assertThat(v.exit()).isEqualTo(1);
        assertThat(v.err()).contains("cells/c99-fake").contains("empty directory");
    }

    @Test
    void aSymlinkFailsVerify() throws Exception {
        Path other = Files.writeString(dir.resolve("outside.txt"), "x");
        Files.createSymbolicLink(bundle.resolve("cells/link.txt"), other);
        Cli v = Cli.run("verify", bundle.toString());
        assertThat(v.exit()).isEqualTo(1);
        assertThat(v.err()).contains("cells/link.txt").contains("symbolic link");
        Files.delete(bundle.resolve("cells/link.txt"));
        Files.createSymbolicLink(bundle.resolve("plots/dirlink"), dir);
        Cli v2 = Cli.run("verify", bundle.toString());
        assertThat(v2.exit()).isEqualTo(1);
        assertThat(v2.err()).contains("plots/dirlink").contains("symbolic link");
    }

    @Test
    void compareWithNoCommonCellExitsTwo() throws Exception {
        Path m2 = TestMatrices.write(
                dir,
                "other.yaml",
                TestMatrices.SMALL
                        .replace("tiers: [local-only, combined]", "tiers: [remote-only]")
                        .replace(
                                "baseline: {cache_state: cold, tiers: local-only}",
                                "baseline: {cache_state: cold, tiers: remote-only}"));
        Cli run2 = Cli.run("run", m2.toString(), "--out", dir.resolve("runs").toString(), "--set", "replicates=1");
        assertThat(run2.exit()).as(run2.err()).isZero();
        String[] lines = run2.out().strip().split("\n");
        Cli cmp = Cli.run("compare", bundle.toString(), lines[lines.length - 1]);
        assertThat(cmp.exit()).isEqualTo(2);
        assertThat(cmp.err()).contains("no cell");
    }

    @Test
    void compareSimWithLiveWarns() throws Exception {
        Path m = TestMatrices.write(
                dir,
                "one.yaml",
                TestMatrices.SMALL
                        .replace("cache_state: [cold, hot]", "cache_state: [cold]")
                        .replace("tiers: [local-only, combined]", "tiers: [combined]")
                        .replace("baseline: {cache_state: cold, tiers: local-only}\n", "")
                        .replace("rate: 2}", "rate: 20}"));
        Cli sim = Cli.run("run", m.toString(), "--out", dir.resolve("a").toString(), "--set", "replicates=1");
        Cli live = Cli.run(
                "run",
                m.toString(),
                "--mode",
                "live",
                "--set",
                "transport=local",
                "--set",
                "store.capacity=1GiB",
                "--out",
                dir.resolve("b").toString(),
                "--set",
                "replicates=1");
        assertThat(sim.exit()).as(sim.err()).isZero();
        assertThat(live.exit()).as(live.err()).isZero();
        String[] ls = sim.out().strip().split("\n"), ll = live.out().strip().split("\n");
        Cli cmp = Cli.run("compare", ls[ls.length - 1], ll[ll.length - 1]);
        assertThat(cmp.exit()).as(cmp.err()).isZero();
        assertThat(cmp.err()).contains("warning: the clocks differ: A is sim, B is live");
        Cli same = Cli.run("compare", ls[ls.length - 1], ls[ls.length - 1]);
        assertThat(same.err()).doesNotContain("warning");
    }
}
