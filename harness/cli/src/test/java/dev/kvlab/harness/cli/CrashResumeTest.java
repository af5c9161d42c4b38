package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.bundle.BundleVerifier;
import dev.kvlab.harness.testsupport.TestMatrices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real `kvlab run` process killed with SIGKILL mid-matrix (twice, at different points) leaves no visible bundle
 * and no corrupt manifest; `--resume` finishes the one run into one bundle that verifies, without re-running the
 * cells that had finished.
 */
class CrashResumeTest {

    @TempDir
    Path dir;

    @Test
    void killedRunResumesIntoOneVerifiedBundle() throws Exception {
        Path m = TestMatrices.write(dir, "small.yaml", TestMatrices.SMALL.replace("replicates: 2", "replicates: 4"));
        Path out = dir.resolve("runs");
        int total = 16;

        Process p1 = start(m, out, false);
        int done1 = killWhenDone(p1, out, 2);
        assertNothingVisible(out);
        assertThat(done1).isBetween(2, total - 1);

        Process p2 = start(m, out, true);
        int done2 = killWhenDone(p2, out, done1 + 3);
        assertNothingVisible(out);
        assertThat(done2).isBetween(done1 + 3, total - 1);

        Cli r = Cli.run("run", m.toString(), "--out", out.toString(), "--resume");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("resuming").contains(done2 + " of " + total);
        long ranNow = r.err().lines().filter(l -> l.startsWith("kvlab: [")).count();
        assertThat(ranNow).isEqualTo(total - done2);
        String[] lines = r.out().strip().split("\n");
        Path bundle = Path.of(lines[lines.length - 1]);
        try (Stream<Path> s = Files.list(out)) {
            assertThat(s.toList()).containsExactly(bundle);
        }
        assertThat(BundleVerifier.verify(bundle)).isEmpty();
        assertThat(new ObjectMapper()
                        .readTree(bundle.resolve("manifest.json").toFile())
                        .path("resumed_at"))
                .hasSize(2);
    }

    private static Process start(Path matrix, Path out, boolean resume) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.kvlab.cli.Kvlab",
                "run",
                matrix.toString(),
                "--out",
                out.toString()));
        if (resume) cmd.add("--resume");
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /** SIGKILLs {@code p} once at least {@code n} cell runs are finished in the partial bundle; returns how many were. */
    private static int killWhenDone(Process p, Path out, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            int d = finished(out);
            if (d >= n) {
                p.destroyForcibly(); // SIGKILL
                p.waitFor(10, TimeUnit.SECONDS);
                assertThat(p.exitValue()).isEqualTo(137);
                return finished(out);
            }
            assertThat(p.isAlive()).as("the run ended before it was killed").isTrue();
            Thread.sleep(5);
        }
        p.destroyForcibly();
        throw new AssertionError("no progress in 120 s");
    }

    private static int finished(Path out) throws Exception {
        if (!Files.isDirectory(out)) return 0;
        try (Stream<Path> w = Files.walk(out)) {
            return (int) w.filter(x -> x.getFileName().toString().equals("cell.json")
                            && !x.toString().contains(".tmp"))
                    .count();
        } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException racing) {
            return 0; // the run renamed a directory while we walked it: count again at the next poll
        }
    }

    private static void assertNothingVisible(Path out) throws Exception {
        try (Stream<Path> s = Files.list(out)) {
            for (Path p : s.toList())
                assertThat(p.getFileName().toString())
                        .as("visible after a kill")
                        .startsWith(".")
                        .endsWith(".partial");
        }
        try (Stream<Path> w = Files.walk(out)) {
            for (Path mf : w.filter(x -> x.getFileName().toString().equals("manifest.json"))
                    .toList()) new ObjectMapper().readTree(mf.toFile()); // valid JSON if present
        }
    }
}
