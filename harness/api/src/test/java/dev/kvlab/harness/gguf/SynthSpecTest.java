package dev.kvlab.harness.gguf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.input.BadInputException;
import org.junit.jupiter.api.Test;

/** Shapes llama.cpp cannot load are refused with the reason; the KV formula against a hand calculation. */
class SynthSpecTest {

    static SynthSpec spec(int layers, int hidden, int heads, int kvHeads, int ff, int vocab, WeightType t) {
        return new SynthSpec(layers, hidden, heads, kvHeads, ff, vocab, t, 0, 8192);
    }

    @Test
    void kvBytesPerTokenOfTheCheckShape() {
        SynthSpec s = spec(4, 256, 8, 2, 688, 32000, WeightType.F16);
        // 4 layers × 2 (K,V) × 2 KV heads × head_dim 32 × 2 bytes
        assertThat(s.headDim()).isEqualTo(32);
        assertThat(s.kvBytesPerToken()).isEqualTo(4L * 2 * 2 * 32 * 2).isEqualTo(1024);
        // embeddings + output 2 × 32000 × 256; per layer q,o 256² each, k,v 256 × 64 each, 3 × 256 × 688, 2 norms
        assertThat(s.parameters())
                .isEqualTo(2L * 32000 * 256 + 4 * (2L * 256 * 256 + 2L * 256 * 64 + 3L * 256 * 688 + 512) + 256);
    }

    @Test
    void refusesBadShapesWithTheReason() {
        assertThatThrownBy(() -> spec(4, 250, 8, 3, 688, 32000, WeightType.F16))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("hidden 250 is not divisible by heads 8");
        assertThatThrownBy(() -> spec(4, 256, 8, 3, 688, 32000, WeightType.F16))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("heads 8 is not divisible by kv-heads 3");
        assertThatThrownBy(() -> spec(4, 24, 8, 2, 688, 32000, WeightType.F16))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("head_dim 3")
                .hasMessageContaining("odd");
        assertThatThrownBy(() -> spec(4, 256, 8, 2, 688, 500, WeightType.F16))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("vocab 500 is too small")
                .hasMessageContaining("988");
        assertThatThrownBy(() -> spec(0, 256, 8, 2, 688, 32000, WeightType.F16))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("layers must be positive");
        assertThatThrownBy(() -> spec(4, 256, 8, -2, 688, 32000, WeightType.F16))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("kv-heads must be positive");
        assertThatThrownBy(() -> spec(4, 256, 8, 2, 688, 32000, WeightType.Q8_0))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("multiples of 32");
        assertThatThrownBy(() -> spec(513, 256, 8, 2, 688, 32000, WeightType.F16))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("512");
        assertThatThrownBy(() -> WeightType.parse("int4"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("f16 or q8_0");
    }
}
