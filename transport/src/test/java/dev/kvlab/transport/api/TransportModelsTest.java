package dev.kvlab.transport.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransportModelsTest {

    @TempDir
    Path dir;

    @Test
    void aLinkModelCostsLatencyPlusBytesAtTheLineRate() {
        TransportModel m = TransportModels.fromLink(LinkSpec.parse("8gbps@5us"));
        assertThat(m.emulated()).isTrue();
        assertThat(m.name()).isEqualTo("8gbps@5us");
        assertThat(m.batchSeconds(16L << 20, 16, 1)).isCloseTo(5e-6 + (16L << 20) / 1e9, within(1e-12));
        assertThat(m.batchSeconds(0, 0, 1)).isZero();
        // fair share: two sharers each get half the bandwidth
        assertThat(m.batchSeconds(1_000_000_000L, 1, 2)).isCloseTo(5e-6 + 2.0, within(1e-9));
    }

    @Test
    void aLinkWithoutLatencyGetsTheDefaultAndLanesAggregate() {
        TransportModel m = TransportModels.fromLink(LinkSpec.parse("4x200gbps"));
        assertThat(m.batchSeconds(100_000_000_000L, 1, 1))
                .isCloseTo(TransportModels.DEFAULT_LINK_LATENCY.toNanos() / 1e9 + 1.0, within(1e-9));
    }

    @Test
    void moreBytesRequestsOrSharersNeverCostLessAndSameInputsGiveSameOutputs() {
        LinearTransportModel m = new LinearTransportModel("x", false, 50e-6, 2e-6, 2e9, 3e9);
        double base = m.batchSeconds(1 << 20, 4, 1);
        assertThat(m.batchSeconds(2 << 20, 4, 1)).isGreaterThan(base);
        assertThat(m.batchSeconds(1 << 20, 5, 1)).isGreaterThan(base);
        assertThat(m.batchSeconds(1 << 20, 4, 2)).isGreaterThanOrEqualTo(base);
        assertThat(m.batchSeconds(1 << 20, 4, 3)).isGreaterThan(m.batchSeconds(1 << 20, 4, 2));
        // one stream alone is capped at its own bandwidth even though the aggregate is larger
        assertThat(m.batchSeconds(2_000_000_000L, 0, 1)).isCloseTo(50e-6 + 1.0, within(1e-9));
        assertThat(Double.doubleToLongBits(m.batchSeconds(12345, 3, 2)))
                .isEqualTo(Double.doubleToLongBits(m.batchSeconds(12345, 3, 2)));
        assertThatThrownBy(() -> m.batchSeconds(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.batchSeconds(-1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LinearTransportModel("bad", false, 0, 0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LinearTransportModel("bad", false, Double.NaN, 0, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private TransportProfile sample() {
        Map<String, TransportProfile.Entry> models = new LinkedHashMap<>();
        models.put("tcp", new TransportProfile.Entry(false, 48.5, 1.25, 2.1e9, 2.3e9, "kvlab calibrate"));
        models.put("rdma-emu", new TransportProfile.Entry(true, 2.0, 0, 1e9, 1e9, "kvlab calibrate (emulated)"));
        return new TransportProfile(
                TransportProfile.KIND, 1, "2026-01-02T03:04:05Z", Map.of("host", "lab", "cpus", "2"), "test", models);
    }

    @Test
    void profilesRoundTripThroughYaml() {
        Path f = dir.resolve("p.yaml");
        sample().write(f);
        TransportProfile back = TransportModels.load(f);
        assertThat(back).isEqualTo(sample());
        LinearTransportModel tcp = back.model("tcp");
        assertThat(tcp.emulated()).isFalse();
        assertThat(tcp.latencySeconds()).isCloseTo(48.5e-6, within(1e-15));
        assertThat(back.model("rdma-emu").emulated()).isTrue();
        assertThat(TransportModels.resolve("p.yaml#tcp", dir)).isEqualTo(tcp);
        assertThatThrownBy(() -> TransportModels.resolve("p.yaml", dir)).hasMessageContaining("p.yaml#<model>");
        assertThatThrownBy(() -> back.model("nosuch")).hasMessageContaining("tcp, rdma-emu");
        assertThat(TransportModels.resolve("8gbps", dir).name()).isEqualTo("8gbps");
        assertThatThrownBy(() -> TransportModels.resolve("warp-drive", dir))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badProfilesNameTheFileAndLine() throws Exception {
        Path f = dir.resolve("bad.yaml");
        sample().write(f);
        String text = Files.readString(f).replace("per_request_us:", "per_request_typo_us:");
        Files.writeString(f, text);
        int line = 0;
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++)
            if (lines[i].contains("typo")) {
                line = i + 1;
                break;
            }
        int expected = line;
        assertThatThrownBy(() -> TransportModels.load(f))
                .isInstanceOf(ProfileFormatException.class)
                .hasMessageStartingWith(f + ":" + expected + ":")
                .satisfies(e -> assertThat(((ProfileFormatException) e).line()).isEqualTo(expected));
        Files.writeString(
                f,
                Files.readString(f)
                        .replace("per_request_typo_us:", "per_request_us:")
                        .replaceAll("stream_bandwidth_bytes_per_s: .*", "stream_bandwidth_bytes_per_s: -5"));
        assertThatThrownBy(() -> TransportModels.load(f))
                .isInstanceOf(ProfileFormatException.class)
                .hasMessageContaining("bandwidth");
        Files.writeString(f, "kind: something-else\nversion: 1\ncreated: x\nmodels: {}\n");
        assertThatThrownBy(() -> TransportModels.load(f))
                .isInstanceOf(ProfileFormatException.class)
                .hasMessageContaining("kind");
        assertThatThrownBy(() -> TransportModels.load(dir.resolve("missing.yaml")))
                .isInstanceOf(ProfileFormatException.class);
    }
}
