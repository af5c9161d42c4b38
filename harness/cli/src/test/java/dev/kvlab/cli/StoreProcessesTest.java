package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.transport.Transports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A master and two nodes as separate processes on loopback; puts and verified gets through {@code kvlab://};
 * then one node is SIGKILLed: its objects become misses, never wrong bytes, and the rest still serve.
 */
class StoreProcessesTest {

    private final List<Process> procs = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : procs) p.destroyForcibly();
        for (Process p : procs) p.waitFor(10, TimeUnit.SECONDS);
    }

    private Process start(BlockingQueue<String> lines, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.kvlab.cli.Kvlab"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        procs.add(p);
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) lines.add(l);
            } catch (IOException ignored) {
                // process ended
            }
        });
        return p;
    }

    private static String await(BlockingQueue<String> lines, String marker) throws InterruptedException {
        StringBuilder seen = new StringBuilder();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until) {
            String l = lines.poll(200, TimeUnit.MILLISECONDS);
            if (l == null) continue;
            seen.append(l).append('\n');
            if (l.contains(marker)) return l;
        }
        throw new AssertionError("no '" + marker + "' within 60 s; output:\n" + seen);
    }

    private static int freePort() throws IOException {
        return dev.kvlab.store.LoopbackPorts.free(); // below the ephemeral range: no outgoing connection takes it first
    }

    @Test
    void aKilledNodeProcessTurnsItsObjectsIntoMissesNeverWrongBytes() throws Exception {
        Assumptions.assumeTrue(Transports.discover().names().contains("tcp"), "the tcp transport is not built yet");
        int port = freePort();
        BlockingQueue<String> m = new LinkedBlockingQueue<>(),
                n1 = new LinkedBlockingQueue<>(),
                n2 = new LinkedBlockingQueue<>();
        start(m, "store", "master", "--listen", "127.0.0.1:" + port);
        await(m, "listening on");
        Process node1 =
                start(n1, "store", "node", "--master", "127.0.0.1:" + port, "--segment", "64MiB", "--id", "p-node1");
        start(n2, "store", "node", "--master", "127.0.0.1:" + port, "--segment", "64MiB", "--id", "p-node2");
        await(n1, "mounted");
        await(n2, "mounted");

        BackendOptions opts = BackendOptions.defaults()
                .withTransport("tcp")
                .withVerifyContent(true)
                .withTimeout(Duration.ofSeconds(3));
        try (KvBackend b = KvBackends.discover().open("kvlab://127.0.0.1:" + port, opts)) {
            int n = 60, len = 64 * 1024;
            MemorySegment buf = b.allocateBuffer(len);
            for (int i = 0; i < n; i++) {
                String k = "proc/k" + i;
                KeyedPayload.fill(k, buf, 0, len);
                assertThat(b.put(k, buf, i % 3 == 0 ? ReplicateConfig.replicas(2) : ReplicateConfig.DEFAULT))
                        .isEqualTo(PutStatus.OK);
            }
            for (int i = 0; i < n; i++) {
                GetResult r = b.getInto("proc/k" + i, buf);
                assertThat(r.status()).as("k%d: %s", i, r.detail()).isEqualTo(GetStatus.HIT);
                assertThat(KeyedPayload.matches("proc/k" + i, buf, 0, len)).isTrue();
            }
            node1.destroyForcibly(); // SIGKILL
            node1.waitFor(10, TimeUnit.SECONDS);
            int wrong = 0;
            for (int i = 0; i < n; i++) {
                GetResult r = b.getInto("proc/k" + i, buf);
                if (r.isHit() && !KeyedPayload.matches("proc/k" + i, buf, 0, len)) wrong++;
                if (i % 3 == 0)
                    assertThat(r.status()).as("two replicas: one survives").isEqualTo(GetStatus.HIT);
            }
            assertThat(wrong).isZero();
            Thread.sleep(11_500); // the master's liveness TTL (10 s) passes
            int hits = 0, misses = 0;
            for (int i = 0; i < n; i++) {
                GetResult r = b.getInto("proc/k" + i, buf);
                assertThat(r.status())
                        .as("after the TTL only hits and plain misses")
                        .isIn(GetStatus.HIT, GetStatus.MISS);
                if (r.isHit()) {
                    assertThat(KeyedPayload.matches("proc/k" + i, buf, 0, len)).isTrue();
                    hits++;
                } else {
                    misses++;
                }
                if (i % 3 == 0) assertThat(r.isHit()).isTrue();
            }
            assertThat(misses).as("objects of the killed node are gone").isPositive();
            assertThat(hits).isGreaterThan(n / 3);
        }
    }

    @Test
    void aNodeWaitingForItsMasterEndsWhenItsParentDies() throws Exception {
        // a harness that dies (SIGKILL) takes its in-process master with it: its node children, still retrying
        // the mount, must not linger as orphans
        Process parent = new ProcessBuilder("sleep", "60").start();
        procs.add(parent);
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Process node = start(
                lines,
                "store",
                "node",
                "--master",
                "127.0.0.1:" + freePort(),
                "--segment",
                "1MiB",
                "--transport",
                "tcp",
                "--parent-pid",
                Long.toString(parent.pid()));
        await(lines, "not reachable yet");
        assertThat(node.isAlive()).isTrue();
        parent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        assertThat(node.waitFor(10, TimeUnit.SECONDS))
                .as("the node ended within 10 s of its parent")
                .isTrue();
    }
}
