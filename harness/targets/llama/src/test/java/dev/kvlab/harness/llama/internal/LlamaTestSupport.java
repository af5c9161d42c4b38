package dev.kvlab.harness.llama.internal;

import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.testsupport.TinyGguf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The pinned llama.cpp library for tests, or a visible skip with the reason when {@code scripts/llama-lib.sh} cannot
 * provide it; with {@code KVLAB_CI=1} the reason fails the test instead. One library and one tiny model per JVM.
 */
final class LlamaTestSupport {
    private LlamaTestSupport() {}

    private static LlamaLibrary library;
    private static String unavailable;
    private static Path tinyModel;

    static synchronized LlamaLibrary library() {
        if (library == null && unavailable == null) {
            try {
                library = LlamaLibrary.load();
            } catch (EngineUnavailableException e) {
                unavailable = e.getMessage();
            }
        }
        if (library == null) {
            if ("1".equals(System.getenv("KVLAB_CI")))
                throw new AssertionError("KVLAB_CI=1 and llama.cpp is unavailable: " + unavailable);
            Assumptions.abort("llama.cpp library unavailable: " + unavailable);
        }
        return library;
    }

    /** A 2-layer, 64-wide llama model with random weights, written once per JVM. */
    static synchronized Path tinyModel() {
        if (tinyModel == null) {
            try {
                Path p = Files.createTempFile("kvlab-tiny", ".gguf");
                p.toFile().deleteOnExit();
                TinyGguf.write(p, TinyGguf.Shape.tiny(), 7);
                tinyModel = p;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return tinyModel;
    }
}
