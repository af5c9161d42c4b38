package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code kvlab bench master}: every op runs over real gRPC against its own master and reports keys/s and per-RPC latency; bad input exits 2. */
class BenchMasterCommandTest {

    private static JsonNode run(String op) throws Exception {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code;
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            code = Kvlab.execute("bench", "master", "--op", op, "--clients", "2", "--batch-size", "16", "--duration", "300ms", "--warmup", "100ms",
                    "--keys", "64", "--segments", "4", "--segment-size", "1GiB", "--value-size", "64KiB", "--json");
        } finally {
            System.setOut(old);
        }
        assertThat(code).as(buf.toString(StandardCharsets.UTF_8)).isZero();
        return new ObjectMapper().readTree(buf.toString(StandardCharsets.UTF_8));
    }

    @Test
    void putsAndLookupsAreCountedPerKeyAndTimedPerRpc() throws Exception {
        JsonNode put = run("put");
        assertThat(put.get("keys_per_s").asDouble()).isPositive();
        assertThat(put.get("failed_keys").asLong()).isZero();
        long starts = put.at("/rpcs/put_start/calls").asLong(), ends = put.at("/rpcs/put_end/calls").asLong();
        assertThat(ends).isPositive().isBetween(starts - 2, starts + 2);
        assertThat(put.get("keys").asLong()).isEqualTo(ends);
        assertThat(put.get("data_moved").asText()).startsWith("none");

        JsonNode bput = run("batch-put");
        assertThat(bput.get("batch_size").asInt()).isEqualTo(16);
        assertThat(bput.get("keys").asLong()).isEqualTo(16 * bput.at("/rpcs/put_end/calls").asLong());

        JsonNode get = run("get");
        assertThat(get.at("/rpcs/get_replica_list/calls").asLong()).isPositive().isEqualTo(get.get("keys").asLong());
        assertThat(get.at("/rpcs/get_replica_list/p50_us").asDouble()).isPositive();

        JsonNode bget = run("batch-get");
        assertThat(bget.get("keys").asLong()).isEqualTo(16 * bget.at("/rpcs/get_replica_list/calls").asLong());
    }

    @Test
    void badInputExitsTwo() {
        BenchTransportCommandTest.assertBadInput("'scan' is not put, get, batch-put or batch-get", "bench", "master", "--op", "scan");
        BenchTransportCommandTest.assertBadInput("--clients must be 1..1024", "bench", "master", "--op", "put", "--clients", "0");
        BenchTransportCommandTest.assertBadInput("--batch-size must be 1..4096", "bench", "master", "--op", "batch-put", "--batch-size", "5000");
        BenchTransportCommandTest.assertBadInput("--value-size must be > 0 and fit a segment", "bench", "master", "--op", "put", "--value-size", "2GiB", "--segment-size", "1GiB");
    }
}
