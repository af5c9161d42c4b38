package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code kvlab bench handover}'s figures and lines, as the result gives them to the command to print. */
class HandoverBenchResultTest {

    // 1 MB in 4 objects; WRITE 2 ms against the transport's own 1 ms; restore path 4 ms
    final HandoverBench.Result r =
            new HandoverBench.Result("rdma-emu", 256, 1_000_000, 4, 0.5, 2, 0.25, 1, 3, 6.75, 1, 4, true);

    @Test
    void figuresWithTheDerivedRatios() {
        HandoverBench.Figures f = r.figures();
        assertThat(f.transport()).isEqualTo("rdma-emu (emulated NIC)");
        assertThat(f.transferGbPerS()).isEqualTo(0.5);
        assertThat(f.rawTransferGbPerS()).isEqualTo(1.0);
        assertThat(f.transferVsRaw()).isEqualTo(0.5);
        assertThat(f.addedToRestorePath()).isEqualTo(0.5); // (2 + 1 + 3) / 4 - 1
    }

    @Test
    void jsonAsTheCommandPrintsIt() throws Exception {
        assertThat(new ObjectMapper().writeValueAsString(r.figures()))
                .isEqualTo("{\"transport\":\"rdma-emu (emulated NIC)\",\"tokens\":256,\"bytes\":1000000,\"objects\":4,"
                        + "\"stage_ms\":0.5,\"transfer_ms\":2.0,\"seal_ms\":0.25,\"verify_ms\":1.0,\"restore_ms\":3.0,"
                        + "\"handover_ms\":6.75,\"raw_transfer_ms\":1.0,\"restore_path_ms\":4.0,\"transfer_gb_per_s\":0.5,"
                        + "\"raw_transfer_gb_per_s\":1.0,\"transfer_vs_raw\":0.5,\"added_to_restore_path\":0.5}");
    }

    @Test
    void textSaysEachPartAndTheRatios() {
        String nl = System.lineSeparator();
        assertThat(r.text())
                .isEqualTo("handover of 256 tokens (1000000 bytes in 4 objects) over rdma-emu (emulated NIC), medians:"
                        + nl
                        + "  staged 0.500 ms, sealed (headers, CRC32C, audit digest) 0.250 ms, WRITE 2.000 ms (0.50 GB/s), verify 1.000 ms, restore 3.000 ms: 6.750 ms in all"
                        + nl
                        + "  the transport's own WRITE of the same bytes (its own engine pair, interleaved) 1.000 ms (1.00 GB/s): the handover's moves at 0.50x"
                        + nl
                        + "  restore path of the block objects from local memory (verify + assemble + restore) 4.000 ms: the handover (WRITE + verify + frame + restore) adds 50%"
                        + nl);
        assertThat(new HandoverBench.Result("tcp", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, false).text())
                .startsWith("handover of 1 tokens (1 bytes in 1 objects) over tcp, medians:");
    }

    @Test
    void warmUpLastsTheLeastRoundsAndTimeButNoMoreThanTheMostRounds() {
        long past = System.nanoTime() - 1, future = System.nanoTime() + 60_000_000_000L;
        assertThat(HandoverBench.warmingUp(0, past)).isTrue();
        assertThat(HandoverBench.warmingUp(HandoverBench.MIN_WARMUP_ROUNDS - 1, past))
                .isTrue();
        assertThat(HandoverBench.warmingUp(HandoverBench.MIN_WARMUP_ROUNDS, past))
                .isFalse();
        assertThat(HandoverBench.warmingUp(HandoverBench.MIN_WARMUP_ROUNDS, future))
                .isTrue();
        assertThat(HandoverBench.warmingUp(HandoverBench.MAX_WARMUP_ROUNDS, future))
                .isFalse();
    }
}
