package dev.kvlab.harness.internal.realkv;

import dev.kvlab.harness.api.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * The {@code llama.cpp} target's block of a run config.
 *
 * @param kind    {@code llama.cpp}
 * @param model   the GGUF file every instance loads (relative: to the working directory)
 * @param threads threads per instance's context (default 1: on a shared machine more threads per context ran slower)
 */
public record LlamaTargetConfig(String kind, String model, Integer threads) {

    /**
     * The block checked.
     *
     * @param model   the model file, absolute
     * @param threads threads per context
     */
    public record Resolved(Path model, int threads) {}

    /** The block checked; {@link BadInputException} naming {@code origin.apply(key)} and the key. */
    public Resolved resolve(Function<String, String> origin) {
        if (model == null || model.isBlank()) throw bad(origin, "target.model", "give the GGUF model file (kvlab model synth writes one)");
        Path p = Path.of(model).toAbsolutePath().normalize();
        if (!Files.isRegularFile(p)) throw bad(origin, "target.model", "no such file " + p);
        int t = threads == null ? 1 : threads;
        if (t < 1 || t > 256) throw bad(origin, "target.threads", "must be in [1, 256], got " + t);
        return new Resolved(p, t);
    }

    private static BadInputException bad(Function<String, String> origin, String key, String why) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + why);
    }
}
