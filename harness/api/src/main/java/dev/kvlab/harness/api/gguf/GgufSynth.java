package dev.kvlab.harness.api.gguf;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Writes synthesized models (no training, like vLLM's {@code --load-format dummy}): a GGUF v3 Llama model llama.cpp
 * loads, with seeded random weights (uniform, standard deviation 0.02), norms of 1.0 and the {@link SynthVocabulary}
 * tokenizer. The same spec gives the same bytes. The file appears complete or not at all (temporary sibling, then a
 * rename).
 */
public final class GgufSynth {

    /** What was written: the file, its size and SHA-256, its weights and tensors, and how long it took. */
    public record Result(Path path, SynthSpec spec, long bytes, String sha256, long parameters, int tensors, Duration elapsed) {}

    private GgufSynth() {}

    public static Result write(SynthSpec spec, Path out) throws IOException {
        long t0 = System.nanoTime();
        SynthModelWriter.Written w = SynthModelWriter.write(spec, out);
        return new Result(w.path(), spec, w.bytes(), w.sha256(), w.parameters(), w.tensors(), Duration.ofNanos(System.nanoTime() - t0));
    }
}
