package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransportConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security of the store's processes, with real {@code kvlab store master|node} child processes: servers listen on
 * loopback unless told otherwise (checked in the kernel's socket table, not in our own config); a non-loopback bind
 * without a token refuses to start (exit 2); with a token, a missing or wrong one is refused on the control plane
 * (gRPC) and on the data plane (tcp), the right one works end to end through {@code kvlab://}; the token never shows
 * in a process's command line ({@code /proc/PID/cmdline}) or its output.
 */
class SecurityProcessesTest {

    private final List<Process> procs = new ArrayList<>();
    private final Map<Process, StringBuffer> logs = new HashMap<>();

    @TempDir
    Path tmp;

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : procs) p.destroyForcibly();
        for (Process p : procs) p.waitFor(10, TimeUnit.SECONDS);
    }

    private Process start(BlockingQueue<String> lines, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.kvlab.cli.Kvlab"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("KVLAB_STORE_TOKEN");
        pb.environment().putAll(env);
        Process p = pb.start();
        procs.add(p);
        StringBuffer log = new StringBuffer();
        logs.put(p, log);
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    log.append(l).append('\n');
                    if (lines != null) lines.add(l);
                }
            } catch (IOException ignored) {
                // process ended
            }
        });
        return p;
    }

    private String run(Map<String, String> env, int expectedExit, String... args) throws Exception {
        Process p = start(null, env, args);
        assertThat(p.waitFor(120, TimeUnit.SECONDS))
                .as("kvlab %s finished", String.join(" ", args))
                .isTrue();
        Thread.sleep(100);
        String out = logs.get(p).toString();
        assertThat(p.exitValue())
                .as("exit of kvlab %s; output:\n%s", String.join(" ", args), out)
                .isEqualTo(expectedExit);
        return out;
    }

    private static String await(BlockingQueue<String> lines, String marker) throws InterruptedException {
        StringBuilder seen = new StringBuilder();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < until) {
            String l = lines.poll(200, TimeUnit.MILLISECONDS);
            if (l == null) continue;
            seen.append(l).append('\n');
            if (l.contains(marker)) return l;
        }
        throw new AssertionError("no '" + marker + "' within 90 s; output:\n" + seen);
    }

    private static int freePort() throws IOException {
        return dev.kvlab.store.LoopbackPorts.free(); // below the ephemeral range: no outgoing connection takes it first
    }

    // ------------------------------------------------------------------ the kernel's view of a process's listening
    // sockets

    /** Local addresses ("127.0.0.1:50051", "0.0.0.0:7000", "[::1]:80") of every TCP socket {@code pid} listens on. */
    static Set<String> listening(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) inodes.add(target.substring(8, target.length() - 1));
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        Set<String> out = new HashSet<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            List<String> rows = Files.readAllLines(Path.of(table));
            for (String row : rows.subList(1, rows.size())) {
                String[] f = row.trim().split("\\s+");
                if (!f[3].equals("0A") || !inodes.contains(f[9])) continue; // 0A: LISTEN
                out.add(address(f[1]));
            }
        }
        return out;
    }

    private static String address(String hex) {
        String[] hp = hex.split(":");
        int port = Integer.parseInt(hp[1], 16);
        byte[] raw = HexFormat.of().parseHex(hp[0]);
        StringBuilder sb = new StringBuilder();
        if (raw.length == 4) {
            for (int i = 3; i >= 0; i--) sb.append(raw[i] & 0xff).append(i > 0 ? "." : "");
            return sb + ":" + port;
        }
        // IPv6 in /proc: four little-endian 32-bit words
        byte[] v6 = new byte[16];
        for (int w = 0; w < 4; w++) for (int b = 0; b < 4; b++) v6[w * 4 + b] = raw[w * 4 + 3 - b];
        try {
            return "[" + java.net.InetAddress.getByAddress(v6).getHostAddress() + "]:" + port;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean loopback(String hostPort) {
        String host = hostPort.substring(0, hostPort.lastIndexOf(':'))
                .replace("[", "")
                .replace("]", "");
        return host.startsWith("127.") || host.equals("0:0:0:0:0:0:0:1") || host.equals("::1");
    }

    private static String cmdline(long pid) throws IOException {
        return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8)
                .replace('\0', ' ');
    }

    // ------------------------------------------------------------------ tests

    @Test
    void serversListenOnLoopbackUnlessToldOtherwise() throws Exception {
        boolean defaultPortFree;
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 50051));
            defaultPortFree = true;
        } catch (IOException busy) {
            defaultPortFree = false;
        }
        BlockingQueue<String> m = new LinkedBlockingQueue<>(), n = new LinkedBlockingQueue<>();
        int port = defaultPortFree ? 50051 : freePort();
        Process master = defaultPortFree
                ? start(m, Map.of(), "store", "master") // every default: control plane and metrics
                : start(m, Map.of(), "store", "master", "--listen", "127.0.0.1:" + port);
        await(m, "listening on");
        Process node = start(
                n, Map.of(), "store", "node", "--master", "127.0.0.1:" + port, "--segment", "8MiB", "--id", "sec-loop");
        await(n, "mounted");
        Set<String> ms = listening(master.pid()), ns = listening(node.pid());
        assertThat(ms).as("the master listens (control plane + metrics)").hasSizeGreaterThanOrEqualTo(2);
        assertThat(ns).as("the node's transport listens").isNotEmpty();
        assertThat(ms).allMatch(SecurityProcessesTest::loopback, "loopback");
        assertThat(ns).allMatch(SecurityProcessesTest::loopback, "loopback");
        Assumptions.assumeTrue(
                defaultPortFree,
                "port 50051 was busy: the master's default --listen was not exercised (the node's was)");
    }

    @Test
    void aNonLoopbackBindWithoutATokenRefusesToStart() throws Exception {
        String master = run(Map.of(), 2, "store", "master", "--listen", "0.0.0.0:0");
        assertThat(master).contains("token");
        String node =
                run(Map.of(), 2, "store", "node", "--master", "127.0.0.1:1", "--segment", "8MiB", "--bind", "0.0.0.0");
        assertThat(node).contains("token");
    }

    @Test
    void tokensAreRequiredOnBothPlanesComparedExactlyAndNeverShown() throws Exception {
        String token = "kvlab-"
                + HexFormat.of()
                        .formatHex(
                                java.security.SecureRandom.getInstanceStrong().generateSeed(16));
        Path tokenFile = tmp.resolve("token");
        Files.writeString(tokenFile, token + "\n");
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
        int port = freePort();
        BlockingQueue<String> m = new LinkedBlockingQueue<>(), n = new LinkedBlockingQueue<>();
        Process master = start(
                m, Map.of(), "store", "master", "--listen", "0.0.0.0:" + port, "--token-file", tokenFile.toString());
        assertThat(await(m, "listening on")).contains("auth on");
        Process node = start(
                n,
                Map.of("KVLAB_STORE_TOKEN", token),
                "store",
                "node",
                "--master",
                "127.0.0.1:" + port,
                "--segment",
                "8MiB",
                "--bind",
                "0.0.0.0",
                "--id",
                "sec-node");
        String mounted = await(n, "mounted");
        Matcher h = Pattern.compile("(tcp://[^\\s;,]+)").matcher(mounted);
        assertThat(h.find())
                .as("the node prints its segment handle: %s", mounted)
                .isTrue();
        SegmentHandle handle = SegmentHandle.parse(h.group(1));
        assertThat(listening(master.pid()))
                .as("the master listens on the wildcard address it was given")
                .anyMatch(a -> a.equals("0.0.0.0:" + port) || a.equals("[0:0:0:0:0:0:0:0]:" + port));

        // control plane: missing and wrong tokens refused, the right one served
        try (GrpcMasterChannel none = new GrpcMasterChannel("127.0.0.1", port, Duration.ofSeconds(5), null);
                GrpcMasterChannel wrong = new GrpcMasterChannel(
                        "127.0.0.1", port, Duration.ofSeconds(5), token.substring(0, token.length() - 1) + "x");
                GrpcMasterChannel prefix =
                        new GrpcMasterChannel("127.0.0.1", port, Duration.ofSeconds(5), token.substring(0, 10));
                GrpcMasterChannel right = new GrpcMasterChannel("127.0.0.1", port, Duration.ofSeconds(5), token)) {
            assertThatThrownBy(() -> none.exists("t", List.of("k"))).isInstanceOf(SecurityException.class);
            assertThatThrownBy(() -> wrong.exists("t", List.of("k"))).isInstanceOf(SecurityException.class);
            assertThatThrownBy(() -> prefix.ping("intruder")).isInstanceOf(SecurityException.class);
            assertThat(right.exists("t", List.of("k"))).containsExactly(false);
        }
        // data plane: the node's tcp server refuses a missing or wrong token at the hello
        TransportConfig base = TransportConfig.defaults().withTimeout(Duration.ofSeconds(5));
        for (String bad : new String[] {null, token + "x", token.toUpperCase()}) {
            try (TransferEngine e = Transports.discover().create("tcp", base.withAuthToken(bad))) {
                assertThatThrownBy(() -> e.openSegment(handle))
                        .as("token %s", bad == null ? "missing" : "wrong")
                        .isInstanceOf(TransferException.class)
                        .hasMessageContaining("auth token");
            }
        }
        try (TransferEngine e = Transports.discover().create("tcp", base.withAuthToken(token))) {
            RemoteSegment r = e.openSegment(handle);
            TransferBatch b = new TransferBatch(1);
            b.add(Opcode.READ, e.allocateBuffer(4096), 0, r, 0, 4096);
            assertThat(e.submit(b).get(10, TimeUnit.SECONDS).allOk()).isTrue();
        }
        // end to end through kvlab:// (the client reads KVLAB_STORE_TOKEN for both planes)
        String[] bench = {
            "bench",
            "store",
            "--backend",
            "kvlab://127.0.0.1:" + port,
            "--value-size",
            "64KiB",
            "--op",
            "get",
            "--clients",
            "1",
            "--duration",
            "1s",
            "--warmup",
            "0s",
            "--keys",
            "16",
            "--verify",
            "--json"
        };
        JsonNode ok = json(run(Map.of("KVLAB_STORE_TOKEN", token), 0, bench));
        assertThat(ok.get("hits").asLong()).isPositive();
        assertThat(ok.get("errors").asLong()).isZero();
        assertThat(ok.get("wrong_bytes").asLong()).isZero();
        // a wrong token: the bench fails within seconds and says it is the token (issue 14, defect 2)
        long t0 = System.nanoTime();
        Process refused = start(null, Map.of("KVLAB_STORE_TOKEN", token + "0"), bench);
        assertThat(refused.waitFor(30, TimeUnit.SECONDS))
                .as("a bench with a wrong token ends")
                .isTrue();
        Thread.sleep(100);
        String refusedOut = logs.get(refused).toString();
        assertThat(refused.exitValue()).as(refusedOut).isEqualTo(1);
        assertThat(refusedOut)
                .contains("authentication failed", "KVLAB_STORE_TOKEN")
                .doesNotContain("\"hits\"");
        assertThat((System.nanoTime() - t0) / 1e9).as("seconds to fail").isLessThan(20);

        // the token never shows: not in any command line, not in any output
        for (Process p : procs) {
            if (p.isAlive()) assertThat(cmdline(p.pid())).doesNotContain(token);
            assertThat(logs.get(p).toString()).doesNotContain(token);
        }
        assertThat(cmdline(master.pid())).contains("--token-file");
    }

    @Test
    void aRunKeepsItsSecretsOutOfItsArgumentsOutputAndBundle() throws Exception {
        String influxToken = "influx-"
                + HexFormat.of()
                        .formatHex(
                                java.security.SecureRandom.getInstanceStrong().generateSeed(12));
        String storeToken = "store-"
                + HexFormat.of()
                        .formatHex(
                                java.security.SecureRandom.getInstanceStrong().generateSeed(12));
        Path matrix = tmp.resolve("s.yaml");
        Files.writeString(matrix, """
                name: secrets
                factors:
                  tiers: [local-only, combined]
                mode: sim
                model: llama-3-8b
                hardware: h100
                workload:
                  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 4, prefix_tokens: 1024, suffix_tokens: 50, output_tokens: 4}
                  arrival: {process: poisson, rate: 2}
                """);
        Path out = tmp.resolve("runs");
        // an InfluxDB 2.x push to a closed port: the token is read from the environment; the push fails, the run does
        // not
        Process p = start(
                null,
                Map.of("KVLAB_INFLUX_TOKEN", influxToken, "KVLAB_STORE_TOKEN", storeToken),
                "run",
                matrix.toString(),
                "--out",
                out.toString(),
                "--influx",
                "http://127.0.0.1:9",
                "--influx-org",
                "lab",
                "--influx-bucket",
                "kv");
        String cmd = "";
        for (int i = 0; i < 50 && p.isAlive(); i++) {
            try {
                cmd = cmdline(p.pid());
            } catch (IOException gone) {
                break;
            }
            if (!cmd.isBlank()) break;
            Thread.sleep(20);
        }
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        String log = logs.get(p).toString();
        assertThat(p.exitValue()).as(log).isZero();
        assertThat(cmd).contains("--influx").doesNotContain(influxToken).doesNotContain(storeToken);
        assertThat(log).doesNotContain(influxToken).doesNotContain(storeToken);
        List<Path> files;
        try (var w = Files.walk(out)) {
            files = w.filter(Files::isRegularFile).toList();
        }
        assertThat(files)
                .as("the bundle")
                .anyMatch(f -> f.getFileName().toString().equals("manifest.json"));
        for (Path f : files) {
            String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            assertThat(text).as(f.toString()).doesNotContain(influxToken).doesNotContain(storeToken);
        }
    }

    private static JsonNode json(String out) throws IOException {
        int brace = out.indexOf('{');
        assertThat(brace).as("JSON in:\n%s", out).isNotNegative();
        return new ObjectMapper().readTree(out.substring(brace));
    }
}
