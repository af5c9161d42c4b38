package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvlab bench engine --json}'s object, as the result gives it to the command: its order, names and numbers. */
class EngineBenchResultTest {

    @Test
    void jsonAsTheCommandPrintsIt(@TempDir Path dir) throws Exception {
        Path model = Files.createFile(dir.resolve("m.gguf"));
        EngineBench.Settings s = new EngineBench.Settings(model, 2, 4, "on", 8, 100, 20, 16, 0.5, 3, null);
        EngineBench.Result r = new EngineBench.Result(
                s,
                "lib x",
                "server y",
                "-np 4",
                List.of(
                        new EngineBench.Side("kvlab", "saturation", 8, 8, 0, 1.25, 10.5, 20.25, 3.0, 6.4, 12.0),
                        new EngineBench.Side(
                                "llama-server", "low", 3, 2, 1, 0.1, 1e-3, 2e7, Double.NaN, 1, Double.NaN)),
                1.5,
                Double.NaN);
        assertThat(new ObjectMapper().writeValueAsString(r.figures()))
                .isEqualTo("{\"model\":\"" + model + "\",\"threads\":2,\"sequences\":4,\"flash_attn\":\"on\","
                        + "\"prompts\":8,\"prompt_tokens\":121,\"output_tokens\":16,\"low_rate\":0.5,\"low_requests\":3,"
                        + "\"engine_library\":\"lib x\",\"llama_server\":\"server y\",\"llama_server_flags\":\"-np 4\","
                        + "\"sides\":[{\"engine\":\"kvlab\",\"load\":\"saturation\",\"requests\":8,\"completed\":8,"
                        + "\"failed\":0,\"throughput_rps\":1.25,\"ttft_p50_ms\":10.5,\"ttft_p99_ms\":20.25,"
                        + "\"itl_p50_ms\":3.0,\"wall_seconds\":6.4,\"cpu_seconds\":12.0},{\"engine\":\"llama-server\","
                        + "\"load\":\"low\",\"requests\":3,\"completed\":2,\"failed\":1,\"throughput_rps\":0.1,"
                        + "\"ttft_p50_ms\":0.001,\"ttft_p99_ms\":2.0E7,\"itl_p50_ms\":\"NaN\",\"wall_seconds\":1.0,"
                        + "\"cpu_seconds\":\"NaN\"}],\"saturation_throughput_ratio\":1.5,"
                        + "\"low_load_ttft_p50_ratio\":\"NaN\"}");
    }
}
