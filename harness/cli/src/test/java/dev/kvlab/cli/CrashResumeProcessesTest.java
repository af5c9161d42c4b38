package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Crash safety of {@code kvlab run}, adversarially: a real {@code kvlab run MATRIX} child process is SIGKILLed at
 * random points (and so is, in one round, the {@code --resume} that follows it). After every kill the output
 * directory may hold only complete bundles that verify, plus at most one hidden {@code .partial} directory; a
 * {@code --resume} then finishes the run into exactly one bundle that {@code kvlab verify} accepts, and since these
 * are sim cells its {@code summary.csv} equals an uninterrupted run's, wall-clock columns aside. The seed of the kill
 * points is printed with every failure; {@code -Dkvlab.crash.rounds=N} runs more rounds (default 2).
 */
class CrashResumeProcessesTest {

    static final String MATRIX = """
            name: crash
            factors:
              cache_state: [cold, hot]
              tiers: [local-only, combined]
            replicates: 2
            mode: sim
            model: llama-3-8b
            hardware: h100
            cluster:
              instances: 2
            store:
              nodes: 2
              capacity: 64GiB
            workload:
              generator:
                kind: shared-prefix
                groups: 4
                prompts_per_group: 20
                prefix_tokens: 4096
                suffix_tokens: 300
                output_tokens: 16
              arrival:
                process: poisson
                rate: 3
            measurement:
              interval: 1s
            """;

    @TempDir
    Path tmp;

    private record Run(int exit, String out, long millis) {}

    private Run kvlab(Path out, boolean resume, long killAfterMillis) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.kvlab.cli.Kvlab",
                "run",
                tmp.resolve("crash.yaml").toString(),
                "--out",
                out.toString()));
        if (resume) cmd.add("--resume");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuffer log = new StringBuffer();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) log.append(l).append('\n');
            } catch (IOException ignored) {
                // ended
            }
        });
        boolean ended = killAfterMillis > 0
                ? p.waitFor(killAfterMillis, TimeUnit.MILLISECONDS)
                : p.waitFor(300, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly(); // SIGKILL
            p.waitFor(30, TimeUnit.SECONDS);
        }
        reader.join(5000);
        return new Run(ended ? p.exitValue() : -9, log.toString(), (System.nanoTime() - t0) / 1_000_000);
    }

    private static String verify(Path bundle) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cl = Kvlab.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute("verify", bundle.toString());
        return code == 0 ? null : "exit " + code + ": " + out + err;
    }

    private static List<Path> visible(Path out) throws IOException {
        if (!Files.isDirectory(out)) return List.of();
        try (Stream<Path> s = Files.list(out)) {
            return s.filter(p -> !p.getFileName().toString().startsWith("."))
                    .sorted()
                    .toList();
        }
    }

    private static List<Path> hidden(Path out) throws IOException {
        if (!Files.isDirectory(out)) return List.of();
        try (Stream<Path> s = Files.list(out)) {
            return s.filter(p -> p.getFileName().toString().startsWith("."))
                    .sorted()
                    .toList();
        }
    }

    /** After a kill: only complete, verifying bundles are visible; at most one partial run is hidden. */
    private static void nothingHalfWrittenIsVisible(Path out, String context) throws IOException {
        for (Path b : visible(out)) {
            assertThat(Files.isDirectory(b))
                    .as("%s: %s is a bundle directory", context, b)
                    .isTrue();
            assertThat(b.resolve("manifest.json")).as(context).exists();
            assertThat(verify(b))
                    .as("%s: a visible bundle must verify", context)
                    .isNull();
        }
        assertThat(hidden(out).stream()
                        .filter(p -> p.getFileName().toString().endsWith(".partial"))
                        .count())
                .as(context)
                .isLessThanOrEqualTo(1);
    }

    private static List<Map<String, String>> rows(Path bundle) throws IOException {
        List<String> lines = Files.readAllLines(bundle.resolve("summary.csv"));
        String[] head = lines.getFirst().split(",", -1);
        List<Map<String, String>> out = new ArrayList<>();
        for (String l : lines.subList(1, lines.size())) {
            String[] v = l.split(",", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < head.length && i < v.length; i++) if (!head[i].contains("wall")) row.put(head[i], v[i]);
            out.add(row);
        }
        return out;
    }

    @Test
    void aRunKilledAnywhereResumesIntoOneBundleThatVerifies() throws Exception {
        Files.writeString(tmp.resolve("crash.yaml"), MATRIX);
        Run reference = kvlab(tmp.resolve("reference"), false, 0);
        assertThat(reference.exit()).as(reference.out()).isZero();
        List<Path> ref = visible(tmp.resolve("reference"));
        assertThat(ref).hasSize(1);
        assertThat(verify(ref.getFirst())).isNull();
        List<Map<String, String>> expected = rows(ref.getFirst());

        int rounds = Integer.getInteger("kvlab.crash.rounds", 2);
        long seed = Long.getLong("kvlab.crash.seed", System.nanoTime());
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < rounds; round++) {
            Path out = tmp.resolve("round" + round);
            long kill = 300 + rnd.nextLong(Math.max(1, reference.millis()));
            String context = "seed " + seed + ", round " + round + ", first kill after " + kill + " ms";
            Run first = kvlab(out, false, kill);
            nothingHalfWrittenIsVisible(out, context + " (after the kill)");
            if (round == 1 && first.exit() == -9) { // kill the resume too, once
                long kill2 = 300 + rnd.nextLong(Math.max(1, reference.millis() / 2));
                kvlab(out, true, kill2);
                nothingHalfWrittenIsVisible(out, context + ", resume killed after " + kill2 + " ms");
            }
            List<Path> before = visible(out);
            Run resumed = before.isEmpty() ? kvlab(out, true, 0) : null;
            if (resumed != null)
                assertThat(resumed.exit())
                        .as("%s: --resume\n%s", context, resumed.out())
                        .isZero();
            List<Path> bundles = visible(out);
            assertThat(bundles).as("%s: one bundle, not %s", context, bundles).hasSize(1);
            assertThat(hidden(out))
                    .as("%s: nothing partial left behind", context)
                    .isEmpty();
            assertThat(verify(bundles.getFirst())).as(context).isNull();
            if (resumed != null)
                assertThat(resumed.out().strip())
                        .as(context)
                        .endsWith(bundles.getFirst().toString());
            assertThat(rows(bundles.getFirst()))
                    .as("%s: the resumed bundle has the uninterrupted run's results", context)
                    .isEqualTo(expected);
        }
    }
}
