package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The transport benchmark's contract: bad input exits 2 with one line, a run prints one JSON object with its figures. */
class BenchTransportCommandTest {

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        var cl = Kvlab.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static void assertBadInput(String reason, String... args) {
        Run r = run(args);
        assertThat(r.code()).as(String.join(" ", args) + "\n" + r.err()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(r.err().lines().findFirst().orElse("")).contains(reason);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void badInputExitsTwoWithAOneLineReason() {
        assertBadInput(
                "unknown transport 'nosuch'",
                "bench",
                "transport",
                "--transport",
                "nosuch",
                "--block-size",
                "1MiB",
                "--batch-size",
                "1",
                "--duration",
                "1s");
        assertBadInput("known: local, rdma-emu, shm, tcp", "bench", "transport", "--transport", "nosuch");
        assertBadInput("--block-size", "bench", "transport", "--transport", "local", "--block-size", "0");
        assertBadInput("unknown size unit", "bench", "transport", "--transport", "local", "--block-size", "1 parsec");
        assertBadInput("--batch-size", "bench", "transport", "--transport", "local", "--batch-size", "0");
        assertBadInput("--threads", "bench", "transport", "--transport", "local", "--threads", "0");
        assertBadInput("--duration", "bench", "transport", "--transport", "local", "--duration", "0s");
        assertBadInput("needs a unit", "bench", "transport", "--transport", "local", "--duration", "4");
        assertBadInput("--op must be read or write", "bench", "transport", "--transport", "local", "--op", "scan");
        assertBadInput("not a link", "bench", "transport", "--transport", "rdma-emu", "--link", "fast");
        assertBadInput("rdma-emu only", "bench", "transport", "--transport", "tcp", "--link", "8gbps");
        assertBadInput("Unknown option", "bench", "transport", "--transport", "tcp", "--colour", "red");
        // no subcommand: every one named, from the command's own list
        assertBadInput("needs a subcommand: transport, store, master, engine, handover", "bench");
    }

    /** Issue 14, defect 4: what both processes will hold is checked against the machine before either starts. */
    @Test
    void aBenchThatCannotFitTheMachineIsRefusedBeforeItStarts() {
        var big = new dev.kvlab.harness.benchmark.api.TransportBenchSpec(
                "tcp",
                1L << 30,
                4,
                2,
                java.time.Duration.ofSeconds(2),
                dev.kvlab.transport.api.Opcode.READ,
                null,
                0,
                64 << 10,
                4);
        // 16 GiB of target segment + 2 x 8 GiB of initiator buffers + two JVMs
        assertThat(big.footprintBytes()).isEqualTo((16L << 30) + (16L << 30) + (512L << 20));
        var small = new dev.kvlab.harness.api.MachineMemory(24L << 30, 19L << 30);
        assertThat(big.memoryProblem(small)).contains("needs 32.50GiB", "target segment 16GiB", "17.10GiB");
        assertThat(big.memoryProblem(new dev.kvlab.harness.api.MachineMemory(1L << 40, 1L << 40)))
                .isNull();
        assertThat(big.memoryProblem(new dev.kvlab.harness.api.MachineMemory(0, 0)))
                .as("unknown: no guess")
                .isNull();
        // end to end: 64 threads of 16 GiB batches fit no machine; exit 2 at once
        long t0 = System.nanoTime();
        assertBadInput(
                "this machine can give now",
                "bench",
                "transport",
                "--transport",
                "tcp",
                "--block-size",
                "1GiB",
                "--batch-size",
                "16",
                "--threads",
                "64",
                "--duration",
                "2s");
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(5);
    }

    @Test
    void aRunPrintsOneJsonObjectWithItsFigures() throws Exception {
        Run r = run(
                "bench",
                "transport",
                "--transport",
                "local",
                "--block-size",
                "64KiB",
                "--batch-size",
                "4",
                "--duration",
                "200ms",
                "--segment-size",
                "16MiB",
                "--op",
                "write",
                "--json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().strip().lines().count()).isEqualTo(1);
        JsonNode d = new ObjectMapper().readTree(r.out());
        assertThat(d.get("transport").asText()).isEqualTo("local");
        assertThat(d.get("emulated").asBoolean()).isFalse();
        assertThat(d.get("op").asText()).isEqualTo("write");
        assertThat(d.get("block_size").asLong()).isEqualTo(65536);
        assertThat(d.get("batch_size").asInt()).isEqualTo(4);
        assertThat(d.get("threads").asInt()).isEqualTo(1);
        assertThat(d.get("batches").asLong()).isPositive();
        assertThat(d.get("bytes").asLong()).isEqualTo(d.get("batches").asLong() * 4 * 65536);
        assertThat(d.get("throughput_bytes_per_s").asDouble()).isPositive();
        assertThat(d.get("p50_us").asDouble())
                .isPositive()
                .isLessThanOrEqualTo(d.get("p99_us").asDouble());
        assertThat(d.get("p99_us").asDouble())
                .isLessThanOrEqualTo(d.get("p999_us").asDouble());
        assertThat(d.get("copy_semantics").asText()).isNotBlank();
        assertThat(d.get("target").asText()).isEqualTo("same process");
    }

    @Test
    void rdmaEmuRunsAgainstATargetProcessAndSaysItIsEmulated() throws Exception {
        Run r = run(
                "bench",
                "transport",
                "--transport",
                "rdma-emu",
                "--link",
                "100gbps",
                "--block-size",
                "256KiB",
                "--batch-size",
                "2",
                "--duration",
                "200ms",
                "--segment-size",
                "8MiB",
                "--threads",
                "1",
                "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode d = new ObjectMapper().readTree(r.out());
        assertThat(d.get("emulated").asBoolean()).isTrue();
        assertThat(d.get("label").asText()).contains("EMULATED");
        assertThat(d.get("link").asText()).isEqualTo("100gbps");
        assertThat(d.get("target").asText()).isEqualTo("separate process");
        // the modelled wire time is a floor no run can beat
        assertThat(d.get("throughput_bytes_per_s").asDouble()).isLessThanOrEqualTo(100e9 / 8 * 1.02);
        Run human = run(
                "bench",
                "transport",
                "--transport",
                "rdma-emu",
                "--block-size",
                "64KiB",
                "--batch-size",
                "2",
                "--duration",
                "100ms",
                "--segment-size",
                "4MiB");
        assertThat(human.code()).as(human.err()).isZero();
        assertThat(human.out())
                .contains("(EMULATED)")
                .contains("NOTE: these figures are EMULATED")
                .contains("p99.9");
    }
}
