package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import org.junit.jupiter.api.Assumptions;

/** The pinned llama.cpp library for these tests, or a visible skip with the reason; with {@code KVLAB_CI=1} the reason fails the test. */
final class RealKvTestSupport {

    private RealKvTestSupport() {}

    static LlamaLibrary library() {
        try {
            return LlamaLibrary.load();
        } catch (EngineUnavailableException e) {
            if ("1".equals(System.getenv("KVLAB_CI")))
                throw new AssertionError("KVLAB_CI=1 and llama.cpp is unavailable: " + e.getMessage());
            Assumptions.abort("llama.cpp library unavailable: " + e.getMessage());
            throw e;
        }
    }
}
