package dev.kvlab.harness.gguf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.gguf.SynthResult;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.input.BadInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tiny synthesized models: same spec same bytes, the reader reads the writer, bad files are refused by name. */
class GgufSynthTest {

    @TempDir
    Path dir;

    static SynthSpec tiny(long seed, WeightType t) {
        return new SynthSpec(2, 64, 4, 2, 96, 1024, t, seed, 4096);
    }

    @Test
    void sameSpecSameBytesOtherSeedOtherBytes() throws IOException {
        SynthResult a = Gguf.synth(tiny(1, WeightType.F16), dir.resolve("a.gguf"));
        SynthResult b = Gguf.synth(tiny(1, WeightType.F16), dir.resolve("b.gguf"));
        SynthResult c = Gguf.synth(tiny(2, WeightType.F16), dir.resolve("c.gguf"));
        byte[] ab = Files.readAllBytes(a.path());
        assertThat(Files.readAllBytes(b.path())).isEqualTo(ab);
        assertThat(a.sha256()).isEqualTo(b.sha256()).isNotEqualTo(c.sha256());
        byte[] cb = Files.readAllBytes(c.path());
        assertThat(cb).hasSameSizeAs(ab);
        assertThat(Arrays.equals(cb, ab)).isFalse();
        assertThat(a.bytes()).isEqualTo(ab.length);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("a.gguf", "b.gguf", "c.gguf");
        }
    }

    @Test
    void readerReadsTheWriter() throws IOException {
        for (WeightType t : WeightType.values()) {
            SynthSpec s = tiny(3, t);
            SynthResult r = Gguf.synth(s, dir.resolve(t + ".gguf"));
            GgufModelInfo m = Gguf.read(r.path());
            assertThat(m.architecture()).isEqualTo("llama");
            assertThat(m.name()).isEqualTo(s.name());
            assertThat(m.layers()).isEqualTo(2);
            assertThat(m.hidden()).isEqualTo(64);
            assertThat(m.heads()).isEqualTo(4);
            assertThat(m.kvHeads()).isEqualTo(2);
            assertThat(m.headDim()).isEqualTo(16);
            assertThat(m.ff()).isEqualTo(96);
            assertThat(m.vocab()).isEqualTo(1024);
            assertThat(m.contextLength()).isEqualTo(4096);
            assertThat(m.fileType()).isEqualTo(t.fileType());
            assertThat(m.tensors()).isEqualTo(3 + 9 * 2).isEqualTo(r.tensors());
            assertThat(m.parameters()).isEqualTo(s.parameters()).isEqualTo(r.parameters());
            assertThat(m.fileBytes()).isEqualTo(r.bytes()).isEqualTo(Files.size(r.path()));
            assertThat(m.sha256()).isEqualTo(r.sha256());
            // 2 layers × 2 (K,V) × 2 KV heads × 16 × 2 bytes
            assertThat(m.kvBytesPerToken()).isEqualTo(2L * 2 * 2 * 16 * 2).isEqualTo(s.kvBytesPerToken());
            assertThat(m.vocabulary()).contains(s.vocabulary());
        }
    }

    @Test
    void weightTypesSizeTheData() throws IOException {
        long f16 = Gguf.synth(tiny(0, WeightType.F16), dir.resolve("f.gguf")).bytes();
        long q8 = Gguf.synth(tiny(0, WeightType.Q8_0), dir.resolve("q.gguf")).bytes();
        assertThat(q8).isLessThan(f16);
    }

    @Test
    void badFilesAreRefusedByName() throws IOException {
        Path good = Gguf.synth(tiny(0, WeightType.F16), dir.resolve("m.gguf")).path();
        byte[] all = Files.readAllBytes(good);

        Path cut = dir.resolve("cut.gguf");
        Files.write(cut, Arrays.copyOf(all, all.length - 100));
        assertThatThrownBy(() -> Gguf.read(cut))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(cut.toString())
                .hasMessageContaining("truncated")
                .hasMessageContaining("output.weight");

        Path head = dir.resolve("head.gguf");
        Files.write(head, Arrays.copyOf(all, 5000));
        assertThatThrownBy(() -> Gguf.read(head))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(head.toString())
                .hasMessageContaining("truncated");

        Path text = dir.resolve("notes.gguf");
        Files.writeString(text, "this is not a model, just some text that is long enough");
        assertThatThrownBy(() -> Gguf.read(text))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(text.toString())
                .hasMessageContaining("not a GGUF file");

        Path empty = Files.createFile(dir.resolve("empty.gguf"));
        assertThatThrownBy(() -> Gguf.read(empty))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(empty.toString())
                .hasMessageContaining("not a GGUF file");

        assertThatThrownBy(() -> Gguf.read(dir.resolve("missing.gguf")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("missing.gguf")
                .hasMessageContaining("no such file");
    }
}
