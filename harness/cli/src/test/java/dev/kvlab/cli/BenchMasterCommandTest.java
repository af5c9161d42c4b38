package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kvlab bench master}: every op, with async and with blocking clients, runs over real gRPC against its own master and
 * reports keys/s and per-RPC latency; bad input exits 2.
 */
class BenchMasterCommandTest {

    private static JsonNode run(String op, String mode) throws Exception {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code;
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            code = Kvlab.execute(
                    "bench",
                    "master",
                    "--op",
                    op,
                    "--client-mode",
                    mode,
                    "--clients",
                    "2",
                    "--batch-size",
                    "16",
                    "--duration",
                    "300ms",
                    "--warmup",
                    "100ms",
                    "--jit-wait",
                    "0s",
                    "--keys",
                    "64",
                    "--segments",
                    "4",
                    "--segment-size",
                    "1GiB",
                    "--value-size",
                    "64KiB",
                    "--json");
        } finally {
            System.setOut(old);
        }
        assertThat(code).as(buf.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode r = new ObjectMapper().readTree(buf.toString(StandardCharsets.UTF_8));
        assertThat(r.get("client_mode").asText()).isEqualTo(mode);
        assertThat(r.get("warmup_s").asDouble())
                .as("--jit-wait 0s: the warm-up is --warmup")
                .isBetween(0.1, 5.0);
        assertThat(r.get("jit_quiet").asBoolean()).isFalse();
        return r;
    }

    @ParameterizedTest
    @ValueSource(strings = {"async", "blocking"})
    void putsAndLookupsAreCountedPerKeyAndTimedPerRpc(String mode) throws Exception {
        JsonNode put = run("put", mode);
        assertThat(put.get("keys_per_s").asDouble()).isPositive();
        assertThat(put.get("failed_keys").asLong()).isZero();
        long starts = put.at("/rpcs/put_start/calls").asLong(),
                ends = put.at("/rpcs/put_end/calls").asLong();
        assertThat(ends).isPositive().isBetween(starts - 2, starts + 2);
        assertThat(put.get("keys").asLong()).isEqualTo(ends);
        assertThat(put.get("data_moved").asText()).startsWith("none");

        JsonNode bput = run("batch-put", mode);
        assertThat(bput.get("batch_size").asInt()).isEqualTo(16);
        assertThat(bput.get("keys").asLong())
                .isEqualTo(16 * bput.at("/rpcs/put_end/calls").asLong());

        JsonNode get = run("get", mode);
        assertThat(get.at("/rpcs/get_replica_list/calls").asLong())
                .isPositive()
                .isEqualTo(get.get("keys").asLong());
        assertThat(get.at("/rpcs/get_replica_list/p50_us").asDouble()).isPositive();

        JsonNode bget = run("batch-get", mode);
        assertThat(bget.get("keys").asLong())
                .isEqualTo(16 * bget.at("/rpcs/get_replica_list/calls").asLong());
    }

    @Test
    void badInputExitsTwo() {
        BenchTransportCommandTest.assertBadInput(
                "'scan' is not put, get, batch-put or batch-get", "bench", "master", "--op", "scan");
        BenchTransportCommandTest.assertBadInput(
                "'threads' is not async or blocking", "bench", "master", "--op", "put", "--client-mode", "threads");
        BenchTransportCommandTest.assertBadInput(
                "--jit-wait: not a duration", "bench", "master", "--op", "put", "--jit-wait", "soon");
        BenchTransportCommandTest.assertBadInput(
                "--clients must be 1..1024", "bench", "master", "--op", "put", "--clients", "0");
        BenchTransportCommandTest.assertBadInput(
                "--batch-size must be 1..4096", "bench", "master", "--op", "batch-put", "--batch-size", "5000");
        BenchTransportCommandTest.assertBadInput(
                "--value-size must be > 0 and fit a segment",
                "bench",
                "master",
                "--op",
                "put",
                "--value-size",
                "2GiB",
                "--segment-size",
                "1GiB");
    }
}
