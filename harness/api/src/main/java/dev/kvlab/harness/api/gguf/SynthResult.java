package dev.kvlab.harness.api.gguf;

import java.nio.file.Path;
import java.time.Duration;

/** A synthesized model as written ({@link dev.kvlab.harness.Gguf#synth}): the file, its size and SHA-256, its weights and tensors, and how long it took. */
public record SynthResult(
        Path path, SynthSpec spec, long bytes, String sha256, long parameters, int tensors, Duration elapsed) {}
