package dev.kvlab.harness.metrics;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A child {@code kvlab} JVM (this test's class path) whose output lines are collected. Kill it in a finally. */
final class KvlabProcess implements AutoCloseable {

    final Process process;
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    final StringBuffer all = new StringBuffer();

    KvlabProcess(Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx512m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.kvlab.cli.Kvlab"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        process = pb.start();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    all.append(l).append('\n');
                    lines.add(l);
                }
            } catch (IOException ignored) {
                // ended
            }
        });
    }

    /** The first line containing {@code marker} within 60 s. */
    String await(String marker) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until) {
            String l = lines.poll(200, TimeUnit.MILLISECONDS);
            if (l != null && l.contains(marker)) return l;
            if (l == null && !process.isAlive() && lines.isEmpty()) break;
        }
        throw new AssertionError("no '" + marker + "' within 60 s; output:\n" + all);
    }

    int waitFor(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS))
            throw new AssertionError("kvlab did not end within " + seconds + " s:\n" + all);
        Thread.sleep(100); // let the reader drain
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS))
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
