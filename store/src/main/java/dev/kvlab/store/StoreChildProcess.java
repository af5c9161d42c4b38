package dev.kvlab.store;

import dev.kvlab.transport.api.DurationSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A store master or storage node in a child JVM on loopback ({@link StoreProcessMain}): same JVM binary and class path
 * as this one, no auth token (none inherited by accident), exiting with this process. {@link #ready()} counts down when
 * the child serves (master: listening; node: mounted); {@link #log()} holds the first 16,000 characters of its output.
 * Used where a part of the store must really die (a SIGKILLed node, a restarted master).
 */
public final class StoreChildProcess {

    private final Process process;
    private final CountDownLatch ready;
    private final StringBuffer log = new StringBuffer();

    private StoreChildProcess(List<String> jvmFlags, List<String> args, CountDownLatch ready, String name)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmFlags);
        cmd.addAll(List.of(
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                StoreProcessMain.class.getName()));
        cmd.addAll(args);
        cmd.add(Long.toString(ProcessHandle.current().pid()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("KVLAB_STORE_TOKEN"); // loopback: no token, and none inherited into a child by accident
        this.ready = ready;
        this.process = pb.start();
        Thread.ofPlatform().daemon().name("kvlab-" + name + "-out").start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    if (log.length() < 16_000) log.append(l).append('\n');
                    if (l.startsWith(StoreProcessMain.READY)) ready.countDown();
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
    }

    /** A master on {@code 127.0.0.1:port} with the default settings but these; {@link #ready()} is its own latch. */
    public static StoreChildProcess master(int port, long seed, Duration leaseTtl, Duration clientTtl)
            throws IOException {
        return new StoreChildProcess(
                List.of("-Xmx256m"),
                List.of(
                        "master",
                        Integer.toString(port),
                        Long.toString(seed),
                        DurationSpec.format(leaseTtl),
                        DurationSpec.format(clientTtl)),
                new CountDownLatch(1),
                "master");
    }

    /**
     * A replicated master on {@code 127.0.0.1:port} named {@code name}, one of the cluster of {@code etcd} with an etcd lease of
     * {@code haLease}; {@link #ready()} counts down once it serves (as a standby or the leader).
     */
    public static StoreChildProcess haMaster(
            int port, long seed, Duration leaseTtl, Duration clientTtl, String etcd, String name, Duration haLease)
            throws IOException {
        return new StoreChildProcess(
                List.of("-Xmx256m"),
                List.of(
                        "ha-master",
                        Integer.toString(port),
                        Long.toString(seed),
                        DurationSpec.format(leaseTtl),
                        DurationSpec.format(clientTtl),
                        etcd,
                        name,
                        DurationSpec.format(haLease)),
                new CountDownLatch(1),
                "master-" + name);
    }

    /** A node of {@code segmentBytes} mounted at whichever master leads the cluster of {@code etcd}; counts {@code mounted} down once mounted. */
    public static StoreChildProcess etcdNode(
            String etcd, long segmentBytes, String transport, String nodeId, Duration ping, CountDownLatch mounted)
            throws IOException {
        return new StoreChildProcess(
                List.of("-Xmx192m", "-XX:MaxDirectMemorySize=" + (segmentBytes + (256L << 20))),
                List.of("etcd-node", etcd, Long.toString(segmentBytes), transport, nodeId, DurationSpec.format(ping)),
                mounted,
                "node-" + nodeId);
    }

    /** A node of {@code segmentBytes} mounted at the master on {@code 127.0.0.1:masterPort}; counts {@code mounted} down once mounted. */
    public static StoreChildProcess node(
            int masterPort, long segmentBytes, String transport, String nodeId, Duration ping, CountDownLatch mounted)
            throws IOException {
        return new StoreChildProcess(
                List.of("-Xmx192m", "-XX:MaxDirectMemorySize=" + (segmentBytes + (256L << 20))),
                List.of(
                        "node",
                        Integer.toString(masterPort),
                        Long.toString(segmentBytes),
                        transport,
                        nodeId,
                        DurationSpec.format(ping)),
                mounted,
                "node-" + nodeId);
    }

    public Process process() {
        return process;
    }

    public CountDownLatch ready() {
        return ready;
    }

    public String log() {
        return log.toString();
    }
}
