package dev.kvlab.harness.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.benchmark.api.TransportBenchResult;
import dev.kvlab.harness.benchmark.api.TransportBenchSpec;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Opcode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code kvlab bench transport --json}'s object: its keys, their order, rounding and nulls, byte for byte. */
class TransportBenchResultTest {

    private static String json(TransportBenchResult r) throws Exception {
        return new ObjectMapper().writeValueAsString(r.toJson());
    }

    @Test
    void emulatedWithTheDefaultLinkAndNoTargetCpu() throws Exception {
        TransportBenchSpec s = new TransportBenchSpec(
                "rdma-emu", 1 << 20, 8, 2, Duration.ofSeconds(2), Opcode.WRITE, null, 0, 65536, 1);
        TransportBenchResult r = new TransportBenchResult(
                s,
                true,
                "one copy",
                2.00004,
                0.5,
                3_000_000_000L,
                400,
                12.34,
                20.06,
                99.95,
                150.0,
                2000.5,
                15.55,
                4,
                1.23456,
                Double.NaN);
        assertThat(json(r))
                .isEqualTo("{\"transport\":\"rdma-emu\",\"emulated\":true,"
                        + "\"label\":\"EMULATED: rdma-emu models a NIC (200gbps@2us); it is not real RDMA hardware\","
                        + "\"op\":\"write\",\"block_size\":1048576,\"batch_size\":8,\"threads\":2,\"duration_s\":2.0,"
                        + "\"warmup_s\":0.5,\"bytes\":3000000000,\"batches\":400,\"throughput_bytes_per_s\":1499970001,"
                        + "\"throughput_gb_per_s\":1.5,\"p50_us\":12.3,\"p90_us\":20.1,\"p99_us\":100.0,\"p999_us\":150.0,"
                        + "\"max_us\":2000.5,\"mean_us\":15.6,\"link\":\"200gbps@2us\",\"link_bytes_per_s\":25000000000,"
                        + "\"copy_bound\":true,\"segment_size\":268435456,\"slice_size\":65536,\"connections\":1,"
                        + "\"target\":\"separate process\",\"copy_semantics\":\"one copy\",\"cpus\":4,"
                        + "\"initiator_cpu_s\":1.235,\"target_cpu_s\":null,\"cpu_s_per_gb\":0.4115}");
    }

    @Test
    void realWithNothingMoved() throws Exception {
        TransportBenchSpec s =
                new TransportBenchSpec("tcp", 4096, 1, 1, Duration.ofSeconds(1), Opcode.READ, null, 1 << 30, 65536, 2);
        TransportBenchResult r =
                new TransportBenchResult(s, false, "two copies", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0.1, 0.25);
        assertThat(json(r))
                .isEqualTo(
                        "{\"transport\":\"tcp\",\"emulated\":false,\"op\":\"read\",\"block_size\":4096,\"batch_size\":1,"
                                + "\"threads\":1,\"duration_s\":0.0,\"warmup_s\":0.0,\"bytes\":0,\"batches\":0,"
                                + "\"throughput_bytes_per_s\":0,\"throughput_gb_per_s\":0.0,\"p50_us\":0.0,\"p90_us\":0.0,"
                                + "\"p99_us\":0.0,\"p999_us\":0.0,\"max_us\":0.0,\"mean_us\":0.0,\"link\":null,"
                                + "\"link_bytes_per_s\":null,\"segment_size\":1073741824,\"slice_size\":65536,\"connections\":2,"
                                + "\"target\":\"separate process\",\"copy_semantics\":\"two copies\",\"cpus\":2,"
                                + "\"initiator_cpu_s\":0.1,\"target_cpu_s\":0.25,\"cpu_s_per_gb\":null}");
    }

    @Test
    void emulatedAtItsOwnLink() throws Exception {
        TransportBenchSpec s = new TransportBenchSpec(
                "rdma-emu", 4096, 1, 1, Duration.ofSeconds(1), Opcode.READ, LinkSpec.parse("100gbps@2us"), 0, 65536, 1);
        TransportBenchResult r =
                new TransportBenchResult(s, true, "c", 1, 0, 20_000_000_000L, 7, 1, 1, 1, 1, 1, 1, 2, 0.1, 0.2);
        assertThat(json(r))
                .isEqualTo("{\"transport\":\"rdma-emu\",\"emulated\":true,"
                        + "\"label\":\"EMULATED: rdma-emu models a NIC (100gbps@2us); it is not real RDMA hardware\","
                        + "\"op\":\"read\",\"block_size\":4096,\"batch_size\":1,\"threads\":1,\"duration_s\":1.0,"
                        + "\"warmup_s\":0.0,\"bytes\":20000000000,\"batches\":7,\"throughput_bytes_per_s\":20000000000,"
                        + "\"throughput_gb_per_s\":20.0,\"p50_us\":1.0,\"p90_us\":1.0,\"p99_us\":1.0,\"p999_us\":1.0,"
                        + "\"max_us\":1.0,\"mean_us\":1.0,\"link\":\"100gbps@2us\",\"link_bytes_per_s\":12500000000,"
                        + "\"copy_bound\":false,\"segment_size\":268435456,\"slice_size\":65536,\"connections\":1,"
                        + "\"target\":\"separate process\",\"copy_semantics\":\"c\",\"cpus\":2,\"initiator_cpu_s\":0.1,"
                        + "\"target_cpu_s\":0.2,\"cpu_s_per_gb\":0.015}");
    }
}
