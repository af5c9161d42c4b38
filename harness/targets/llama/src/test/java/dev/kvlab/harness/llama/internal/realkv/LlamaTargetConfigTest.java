package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LlamaTargetConfig}'s defaults that follow other keys. */
class LlamaTargetConfigTest {

    @Test
    void theCalibrationTimesTheEnginesOwnPassUnlessTold(@TempDir Path dir) throws Exception {
        Path model = Files.writeString(dir.resolve("m.gguf"), "not read here");
        String m = model.toString();
        assertThat(new LlamaTargetConfig("llama.cpp", m, null, null, null, null, null, null, null, null, null, null)
                        .resolve(k -> k)
                        .calibrateTokens())
                .isEqualTo(LlamaTargetConfig.DEFAULT_BATCH_TOKENS);
        assertThat(new LlamaTargetConfig("llama.cpp", m, null, null, null, null, 128, null, null, null, null, null)
                        .resolve(k -> k)
                        .calibrateTokens())
                .isEqualTo(128);
        assertThat(new LlamaTargetConfig("llama.cpp", m, null, null, null, 4, 8, null, null, null, null, null)
                        .resolve(k -> k)
                        .calibrateTokens())
                .as("at least the calibration's shortest chunk")
                .isEqualTo(16);
        assertThat(new LlamaTargetConfig("llama.cpp", m, null, null, null, null, 512, null, 256, null, null, null)
                        .resolve(k -> k)
                        .calibrateTokens())
                .isEqualTo(256);
        assertThat(new LlamaTargetConfig("llama.cpp", m, null, null, null, null, 512, null, 0, null, null, null)
                        .resolve(k -> k)
                        .calibrateTokens())
                .isZero();
    }
}
