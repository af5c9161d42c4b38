package dev.kvlab.harness.benchmark.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code bench master --ha} prints: where things ran, the rates and the CPU per key of each side, as medians of the rounds. */
class MasterHaBenchResultTest {

    @Test
    void theTextSaysWhereThingsRanAndTheMedianCpuPerKeyOfEachSide() {
        MasterHaBenchResult r = new MasterHaBenchResult(
                "etcd://127.0.0.1:2379",
                true,
                30,
                List.of(new MasterHaBenchResult.Row(
                        "put",
                        List.of(10_000.0, 12_000.0, 11_000.0),
                        List.of(8_000.0, 9_000.0, 7_000.0),
                        18.2,
                        List.of(100.0, 120.0, 110.0),
                        List.of(140.0, 130.0, 150.0),
                        List.of(40.0, 60.0, 50.0),
                        12_000,
                        90_000,
                        120_000,
                        400,
                        3000,
                        31_000,
                        30,
                        null,
                        null)));
        String t = r.text();
        assertThat(t)
                .contains("in this JVM, on this machine's")
                .contains("etcd a process of its own on the same cores");
        assertThat(t).contains("cpu us/key (medians): no HA 110.0 (this JVM); HA 140.0 (this JVM) + 50.0 (etcd)");
        assertThat(t).contains("ok: the oplog costs 18.2% of put throughput (target: at most 30%)");
        assertThat(new MasterHaBenchResult("etcd://x:1", false, 30, List.of()).text())
                .contains("etcd where given");
    }
}
