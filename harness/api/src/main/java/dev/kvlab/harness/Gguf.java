package dev.kvlab.harness;

import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.gguf.SynthResult;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.SynthVocabulary;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.internal.gguf.GgufModelReader;
import dev.kvlab.harness.internal.gguf.SynthModelWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** GGUF model files: reading any model's shape, and synthesizing one. */
public final class Gguf {

    private Gguf() {}

    /**
     * The shape of the model in {@code file} (a GGUF v2 or v3 file), from its header, with the file's size and SHA-256. A
     * missing, truncated or non-GGUF file is a {@link BadInputException} naming it and what is wrong.
     */
    public static GgufModelInfo read(Path file) throws IOException {
        return GgufModelReader.read(file);
    }

    /**
     * Writes a synthesized model (no training, like vLLM's {@code --load-format dummy}) to {@code out}: a GGUF v3 Llama
     * model llama.cpp loads, with seeded random weights (uniform, standard deviation 0.02), norms of 1.0 and the
     * {@link SynthVocabulary} tokenizer. The same spec gives the same bytes. The file appears complete or not at all
     * (temporary sibling, then a rename).
     */
    public static SynthResult synth(SynthSpec spec, Path out) throws IOException {
        long t0 = System.nanoTime();
        SynthModelWriter.Written w = SynthModelWriter.write(spec, out);
        return new SynthResult(
                w.path(),
                spec,
                w.bytes(),
                w.sha256(),
                w.parameters(),
                w.tensors(),
                Duration.ofNanos(System.nanoTime() - t0));
    }
}
