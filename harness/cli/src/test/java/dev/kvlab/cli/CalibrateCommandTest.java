package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.transport.api.LinearTransportModel;
import dev.kvlab.transport.api.TransportModels;
import dev.kvlab.transport.api.TransportProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CalibrateCommandTest {

    @TempDir
    Path dir;

    @Test
    void writesAProfileThatSimRunsCanLoad() {
        Path out = dir.resolve("lab.yaml");
        var r = BenchTransportCommandTest.run(
                "calibrate",
                "--out",
                out.toString(),
                "--transports",
                "local,rdma-emu",
                "--duration",
                "100ms",
                "--link",
                "40gbps@5us");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("wrote").contains(out.toString());
        assertThat(r.err()).contains("calibrating local").contains("(emulated");
        TransportProfile p = TransportModels.load(out);
        assertThat(p.machine()).containsKeys("host", "os", "cpus", "cpu", "java");
        assertThat(Instant.parse(p.created())).isBefore(Instant.now().plusSeconds(1));
        LinearTransportModel local = p.model("local");
        assertThat(local.emulated()).isFalse();
        assertThat(local.streamBytesPerSecond()).isPositive();
        assertThat(local.aggregateBytesPerSecond()).isGreaterThanOrEqualTo(local.streamBytesPerSecond());
        assertThat(local.batchSeconds(1 << 20, 1, 1)).isPositive();
        LinearTransportModel emu = p.model("rdma-emu");
        assertThat(emu.emulated()).isTrue();
        assertThat(emu.latencySeconds())
                .as("the emulated NIC's 5 us per operation")
                .isGreaterThanOrEqualTo(4e-6);
        assertThat(emu.streamBytesPerSecond())
                .as("never faster than the 40gbps link")
                .isLessThanOrEqualTo(5e9 * 1.05);
        assertThat(p.models().get("rdma-emu").source()).contains("EMULATED");
        assertThat(TransportModels.resolve(out.getFileName() + "#local", dir)).isEqualTo(local);
    }

    @Test
    void badInputExitsTwoAndWritesNothing() {
        Path out = dir.resolve("x.yaml");
        var r = BenchTransportCommandTest.run("calibrate", "--out", out.toString(), "--transports", "nosuch");
        assertThat(r.code()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(r.err()).contains("unknown transport 'nosuch'");
        assertThat(BenchTransportCommandTest.run(
                                "calibrate", "--out", dir.resolve("x.txt").toString())
                        .code())
                .isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(BenchTransportCommandTest.run("calibrate", "--out", out.toString(), "--duration", "forever")
                        .code())
                .isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(Files.exists(out)).isFalse();
    }

    @Test
    void targetModeRefusesWhatDoesNotApply() {
        BenchTransportCommandTest.assertBadInput(
                "--target must be kvlab://HOST:PORT", "calibrate", "--target", "redis://127.0.0.1:6379");
        BenchTransportCommandTest.assertBadInput("--json needs --target", "calibrate", "--json");
        BenchTransportCommandTest.assertBadInput(
                "--link does not apply", "calibrate", "--target", "kvlab://127.0.0.1:1", "--link", "1gbps");
        BenchTransportCommandTest.assertBadInput(
                "--transport: 'local'", "calibrate", "--target", "kvlab://127.0.0.1:1", "--transport", "local");
    }
}
