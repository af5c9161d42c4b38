package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.store.testkit.RedisServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BenchStoreCommandTest {

    record Run(int code, String out, String err) {}

    static synchronized Run run(String... args) {
        PrintStream o = System.out, e = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = Kvlab.execute(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(o);
            System.setErr(e);
        }
    }

    @Test
    void badInputExitsTwo() {
        String[][] bad = {
            {"bench", "store", "--backend", "memcached://x:1", "--value-size", "1KiB", "--op", "get"},
            {"bench", "store", "--backend", "redis://nohostport", "--value-size", "1KiB", "--op", "get"},
            {"bench", "store", "--backend", "bundled", "--value-size", "lots", "--op", "get"},
            {"bench", "store", "--backend", "bundled", "--value-size", "1KiB", "--op", "scan"},
            {"bench", "store", "--backend", "bundled", "--value-size", "1KiB", "--op", "get", "--duration", "5"},
            {"bench", "store", "--backend", "bundled", "--value-size", "1KiB", "--op", "get", "--clients", "0"},
            {
                "bench",
                "store",
                "--backend",
                "bundled",
                "--value-size",
                "1KiB",
                "--op",
                "get",
                "--transport",
                "carrier-pigeon"
            },
            {"bench", "store", "--backend", "bundled", "--value-size", "1KiB", "--op", "get", "--tenant", "a/b"},
            {"bench", "store", "--value-size", "1KiB", "--op", "get"},
        };
        for (String[] a : bad) {
            Run r = run(a);
            assertThat(r.code()).as("%s -> %s", String.join(" ", a), r.err()).isEqualTo(2);
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void aBundledGetRunReportsTheFieldsAndNoWrongPayloads() throws Exception {
        Run r = run(
                "bench",
                "store",
                "--backend",
                "bundled",
                "--transport",
                "local",
                "--value-size",
                "64KiB",
                "--op",
                "get",
                "--clients",
                "2",
                "--duration",
                "500ms",
                "--warmup",
                "100ms",
                "--keys",
                "64",
                "--verify",
                "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        for (String f : new String[] {
            "backend",
            "op",
            "value_size",
            "ops_per_s",
            "throughput_bytes_per_s",
            "p50_us",
            "p99_us",
            "p999_us",
            "hits",
            "misses",
            "errors",
            "wrong_bytes"
        }) assertThat(j.has(f)).as(f).isTrue();
        assertThat(j.get("backend").asText()).isEqualTo("bundled");
        assertThat(j.get("value_size").asLong()).isEqualTo(65536);
        assertThat(j.get("hits").asLong()).isPositive();
        assertThat(j.get("misses").asLong()).isZero();
        assertThat(j.get("wrong_bytes").asLong()).isZero();
        assertThat(j.get("ops_per_s").asDouble()).isPositive();
        assertThat(j.get("p99_us").asLong())
                .isGreaterThanOrEqualTo(j.get("p50_us").asLong());
    }

    /** Issue 14, defect 2: nothing listening fails the bench within seconds and says so (it used to load keys for 100 s). */
    @Test
    void aStoreThatIsNotThereFailsFastAndSaysSo() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        Run r = run(
                "bench",
                "store",
                "--backend",
                "kvlab://127.0.0.1:" + port,
                "--value-size",
                "1MiB",
                "--op",
                "get",
                "--duration",
                "1s");
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("unreachable").contains("127.0.0.1:" + port);
        assertThat(r.out()).doesNotContain("ops/s");
        assertThat(secs).isLessThan(15);
    }

    @Test
    void aGetRunWithoutLoadingReportsMisses() throws Exception {
        Run r = run(
                "bench",
                "store",
                "--backend",
                "bundled",
                "--transport",
                "local",
                "--value-size",
                "4KiB",
                "--op",
                "get",
                "--duration",
                "200ms",
                "--warmup",
                "0s",
                "--no-load",
                "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("hits").asLong()).isZero();
        assertThat(j.get("misses").asLong()).isPositive();
        assertThat(j.get("ops").asLong()).isEqualTo(j.get("misses").asLong());
    }

    @Test
    void putThenGetAgainstRedis() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            Run p = run(
                    "bench",
                    "store",
                    "--backend",
                    redis.uri(),
                    "--value-size",
                    "4KiB",
                    "--op",
                    "put",
                    "--clients",
                    "2",
                    "--duration",
                    "300ms",
                    "--warmup",
                    "0s",
                    "--json");
            assertThat(p.code()).as(p.err()).isZero();
            JsonNode pj = new ObjectMapper().readTree(p.out());
            assertThat(pj.get("errors").asLong()).isZero();
            assertThat(pj.get("hits").asLong()).isPositive();
            Run g = run(
                    "bench",
                    "store",
                    "--backend",
                    redis.uri(),
                    "--value-size",
                    "4KiB",
                    "--op",
                    "get",
                    "--clients",
                    "2",
                    "--duration",
                    "300ms",
                    "--warmup",
                    "0s",
                    "--keys",
                    "100",
                    "--verify",
                    "--json");
            assertThat(g.code()).as(g.err()).isZero();
            JsonNode gj = new ObjectMapper().readTree(g.out());
            assertThat(gj.get("hits").asLong()).isPositive();
            assertThat(gj.get("wrong_bytes").asLong()).isZero();
        }
    }

    /** A get run after a put run reads what the store holds, not a reload of it: keys the put never wrote are misses. */
    @Test
    void aGetRunReadsWhatTheStoreHoldsAndLoadsOnlyAnEmptyOne() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            Run p = run(
                    "bench",
                    "store",
                    "--backend",
                    redis.uri(),
                    "--value-size",
                    "4KiB",
                    "--op",
                    "put",
                    "--clients",
                    "1",
                    "--duration",
                    "300ms",
                    "--warmup",
                    "0s",
                    "--json");
            assertThat(p.code()).as(p.err()).isZero();
            long written = new ObjectMapper().readTree(p.out()).get("ops").asLong();
            Run g = run(
                    "bench",
                    "store",
                    "--backend",
                    redis.uri(),
                    "--value-size",
                    "4KiB",
                    "--op",
                    "get",
                    "--clients",
                    "1",
                    "--duration",
                    "300ms",
                    "--warmup",
                    "0s",
                    "--keys",
                    Long.toString(written + 200),
                    "--verify",
                    "--json");
            assertThat(g.code()).as(g.err()).isZero();
            assertThat(g.err()).contains("already").contains("missing");
            JsonNode gj = new ObjectMapper().readTree(g.out());
            assertThat(gj.get("hits").asLong()).isPositive();
            assertThat(gj.get("misses").asLong())
                    .isPositive(); // the 200 keys never written stay misses: nothing was loaded
            assertThat(gj.get("wrong_bytes").asLong()).isZero();
            Run other = run(
                    "bench",
                    "store",
                    "--backend",
                    redis.uri(),
                    "--value-size",
                    "8KiB",
                    "--op",
                    "get",
                    "--clients",
                    "1",
                    "--duration",
                    "200ms",
                    "--warmup",
                    "0s",
                    "--keys",
                    "50",
                    "--json");
            assertThat(other.code()).as(other.err()).isZero();
            assertThat(other.err()).contains("loaded 50 keys"); // a store holding none of a run's keys is loaded
            assertThat(new ObjectMapper().readTree(other.out()).get("misses").asLong())
                    .isZero();
        }
    }
}
