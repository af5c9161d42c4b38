package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 14, defects 5, 8, 9 and the empty trace: bad input is exit 2 with a reason (file:line where there is one), nothing written. */
class BadInputTest {

    @TempDir
    Path dir;

    private static final String CELL = """
            mode: sim
            model: qwen2.5-0.5b
            store: {nodes: 2, capacity: 16GiB}
            workload: {generator: {kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 512, suffix_tokens: 16, output_tokens: 4}, arrival: {process: poisson, rate: 5}}
            """;

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    private boolean nothingIn(Path out) throws Exception {
        if (!Files.exists(out)) return true;
        try (Stream<Path> s = Files.list(out)) {
            return s.findAny().isEmpty();
        }
    }

    private static void exitTwoNoStack(Cli c) {
        assertThat(c.exit()).as(c.err()).isEqualTo(2);
        assertThat(c.err()).doesNotContain("\tat ", "Exception");
    }

    @Test
    void aStoreCapacityNoSegmentCanHoldIsRefusedBeforeAnythingIsWritten() throws Exception {
        Path out = dir.resolve("big");
        Cli c = Cli.run(
                "run", write("c.yaml", CELL).toString(), "--set", "store.capacity=1048576TiB", "--out", out.toString());
        exitTwoNoStack(c);
        assertThat(c.err()).contains("store.capacity", "1024TiB");
        assertThat(nothingIn(out)).as("a refused run leaves nothing in --out").isTrue();
    }

    @Test
    void outThatIsAFileIsExitTwo() throws Exception {
        Path f = write("afile", "");
        Cli c = Cli.run("run", write("c.yaml", CELL).toString(), "--out", f.toString());
        exitTwoNoStack(c);
        assertThat(c.err()).contains("is not a directory");
    }

    @Test
    void binaryAndNonUtf8YamlNameTheFileAndLine() throws Exception {
        byte[] latin1 = "mode: sim\nname: caf\u00e9\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        Path l = dir.resolve("latin1.yaml");
        Files.write(l, latin1);
        Cli c = Cli.run("run", l.toString(), "--out", dir.resolve("x").toString());
        exitTwoNoStack(c);
        assertThat(c.err()).contains(l + ":2:", "not UTF-8").doesNotContain("Input length");
        Path bin = dir.resolve("bin.yaml");
        byte[] noise = new byte[300];
        new java.util.Random(7).nextBytes(noise);
        Files.write(bin, noise);
        Cli b = Cli.run("run", bin.toString(), "--out", dir.resolve("x").toString());
        exitTwoNoStack(b);
        assertThat(b.err()).contains(bin + ":");
        Path nul = dir.resolve("nul.yaml");
        Files.write(nul, "mode: sim\n\0\0\0".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Cli n = Cli.run("run", nul.toString(), "--out", dir.resolve("x").toString());
        exitTwoNoStack(n);
        assertThat(n.err()).contains(nul + ":2:", "NUL");
        assertThat(nothingIn(dir.resolve("x"))).isTrue();
    }

    @Test
    void levelsThatReadTheSameAreDuplicates() throws Exception {
        Cli tiers = Cli.run(
                "run",
                write("t.yaml", CELL + "factors:\n  tiers: [combined, Combined]\n")
                        .toString(),
                "--out",
                dir.resolve("x").toString());
        exitTwoNoStack(tiers);
        assertThat(tiers.err()).contains("t.yaml:6:", "'Combined' is the same as level 'combined'");
        Cli seed = Cli.run(
                "run",
                write("s.yaml", CELL + "factors:\n  seed: [1, 1.0]\n").toString(),
                "--out",
                dir.resolve("x").toString());
        exitTwoNoStack(seed);
        assertThat(seed.err()).contains("factor 'seed'", "'1.0'");
        assertThat(nothingIn(dir.resolve("x"))).isTrue();
        // distinct levels still run
        Cli ok = Cli.run(
                "run",
                write("ok.yaml", CELL + "factors:\n  tiers: [combined, local-only]\n")
                        .toString(),
                "--out",
                dir.resolve("ok").toString());
        assertThat(ok.exit()).as(ok.err()).isZero();
    }

    @Test
    void anEmptyTraceIsNoRequests() throws Exception {
        Path empty = write("empty.jsonl", "");
        Path cfg = write(
                "e.yaml",
                "mode: sim\nmodel: qwen2.5-0.5b\nworkload: {trace: " + empty + ", arrival: {process: trace}}\n");
        Cli c = Cli.run("run", cfg.toString(), "--out", dir.resolve("x").toString());
        exitTwoNoStack(c);
        assertThat(c.err()).contains("empty.jsonl", "no requests");
        assertThat(nothingIn(dir.resolve("x"))).isTrue();
    }

    @Test
    void calibrateChecksItsOutputAndTransportsBeforeMeasuring() {
        long t0 = System.nanoTime();
        Cli c = Cli.run("calibrate", "--out", "/proc/kvlab-x.yaml");
        exitTwoNoStack(c);
        assertThat(c.err()).contains("/proc/kvlab-x.yaml", "cannot write");
        assertThat((System.nanoTime() - t0) / 1e9).as("seconds before refusing").isLessThan(3);
        Cli t = Cli.run("calibrate", "--transports", ",");
        assertThat(t.exit()).isEqualTo(2);
        assertThat(t.err()).contains("--transports names no transport");
    }
}
