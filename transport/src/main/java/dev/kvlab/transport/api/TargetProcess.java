package dev.kvlab.transport.api;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A segment served by a separate JVM: the same {@code java} and class path as this process, one engine, one
 * registered segment with every page touched. Used by benchmarks (target and initiator must not share a
 * process for tcp and shm) and by tests that need a peer that can really die.
 *
 * <p>The child exits when its standard input closes, so it never outlives this process. {@link #close()}
 * ends it and removes any shared-memory file it left behind.
 */
public final class TargetProcess implements AutoCloseable {

    private final Process process;
    private final SegmentHandle handle;
    private final OutputStream stdin;

    private TargetProcess(Process process, SegmentHandle handle) {
        this.process = process;
        this.handle = handle;
        this.stdin = process.getOutputStream();
    }

    /** Starts a target serving {@code segmentBytes} over {@code transport}; waits until it is ready (at most {@code startTimeout}). */
    public static TargetProcess start(
            String transport, TransportConfig config, long segmentBytes, Duration startTimeout) {
        List<String> cmd = new ArrayList<>();
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add(java);
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:+UseParallelGC");
        cmd.add("-Xms64m");
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.kvlab.transport.internal.target.TargetMain");
        add(cmd, "--transport", transport);
        add(cmd, "--segment-bytes", Long.toString(segmentBytes));
        add(cmd, "--slice-size", Long.toString(config.sliceSize()));
        add(cmd, "--connections", Integer.toString(config.connectionsPerPeer()));
        add(cmd, "--bind", config.bindHost());
        add(cmd, "--timeout-ns", Long.toString(config.timeout().toNanos()));
        add(cmd, "--max-frame", Integer.toString(config.maxFrameBytes()));
        add(cmd, "--shm-dir", config.shmDirectory().toString());
        if (config.link() != null) add(cmd, "--link", config.link().toString());
        for (Map.Entry<String, String> e : config.options().entrySet())
            add(cmd, "--option", e.getKey() + "=" + e.getValue());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        if (config.authToken() != null) pb.environment().put("KVLAB_TRANSPORT_AUTH_TOKEN", config.authToken());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new TransferException("cannot start a target process: " + e.getMessage(), e);
        }
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        BufferedReader r =
                                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                        String line;
                        while ((line = r.readLine()) != null)
                            if (line.startsWith("READY "))
                                return line.substring(6).strip();
                        return null;
                    } catch (IOException e) {
                        return null;
                    }
                },
                r -> Thread.ofPlatform().daemon().name("kvlab-target-ready").start(r));
        try {
            String uri = ready.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
            if (uri == null) {
                p.waitFor(2, TimeUnit.SECONDS);
                throw new TransferException("the target process exited before it was ready"
                        + (p.isAlive() ? "" : " (exit code " + p.exitValue() + ")"));
            }
            return new TargetProcess(p, SegmentHandle.parse(uri));
        } catch (TimeoutException e) {
            p.destroyForcibly();
            throw new TransferException("the target process was not ready within " + startTimeout);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new TransferException("interrupted while starting the target process");
        } catch (ExecutionException | RuntimeException e) {
            p.destroyForcibly();
            if (e instanceof TransferException te) throw te;
            throw new TransferException("cannot start a target process: " + e.getMessage(), e);
        }
    }

    private static void add(List<String> cmd, String k, String v) {
        cmd.add(k);
        cmd.add(v);
    }

    /** The served segment. */
    public SegmentHandle handle() {
        return handle;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** CPU time the target process has used so far (user + system), or {@link Duration#ZERO} when the OS does not say. */
    public Duration cpuTime() {
        return process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /** Freezes the target (SIGSTOP): a peer that hangs. */
    public void suspend() {
        signal("-STOP");
    }

    /** Thaws a suspended target (SIGCONT). */
    public void resume() {
        signal("-CONT");
    }

    /** Kills the target at once (SIGKILL): a peer that dies; waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void signal(String sig) {
        try {
            Process k = new ProcessBuilder("kill", sig, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            k.getInputStream().readAllBytes();
            if (k.waitFor() != 0) throw new TransferException("kill " + sig + " " + process.pid() + " failed");
        } catch (IOException e) {
            throw new TransferException("cannot signal the target process: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the target (gracefully, then forcibly) and removes a shared-memory file it may have left. */
    @Override
    public void close() {
        try {
            resume();
        } catch (TransferException ignored) {
            // already gone
        }
        try {
            stdin.close();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) kill();
        } catch (InterruptedException e) {
            kill();
            Thread.currentThread().interrupt();
        }
        if (handle.address().isEmpty() && handle.segment().startsWith("/")) {
            try {
                Path f = Path.of(handle.segment());
                if (f.getFileName().toString().startsWith("kvlab-")) Files.deleteIfExists(f);
            } catch (IOException | RuntimeException ignored) {
                // best effort; engines sweep orphans too
            }
        }
    }
}
