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
 * @param verifyRestore   {@code 1 in N} (or {@code N}): every Nth restore of an instance is checked against a recompute
 *                        of the same tokens; {@code 0} or absent: off
 * @param verifyTolerance the largest absolute difference of the next token's logits that passes (default 0.02: a
 *                        recompute in other batch sizes rounds differently, by about 0.004 on synthesized models)
 * @param calibrateTokens the prefix the cell's engine is calibrated on before it serves (prefill and decode timed on its
 *                        first context, {@link EngineCalibration}) for its sim twin and the break-even prediction
 *                        (default 256; 0: no calibration and no twin)
 */
public record LlamaTargetConfig(String kind, String model, Integer threads, String verifyRestore, Double verifyTolerance,
                                Integer calibrateTokens) {

    /**
     * The block checked.
     *
     * @param model           the model file, absolute
     * @param threads         threads per context
     * @param verifyEvery     every how many restores of an instance one is checked (0: none)
     * @param verifyTolerance the largest logit difference that passes
     * @param calibrateTokens the calibration's prefix (0: none, no twin)
     */
    public record Resolved(Path model, int threads, int verifyEvery, double verifyTolerance, int calibrateTokens) {}

    /** The calibration's prefix when the config gives none. */
    static final int DEFAULT_CALIBRATE_TOKENS = 256;

    /** The block checked; {@link BadInputException} naming {@code origin.apply(key)} and the key. */
    public Resolved resolve(Function<String, String> origin) {
        if (model == null || model.isBlank()) throw bad(origin, "target.model", "give the GGUF model file (kvlab model synth writes one)");
        Path p = Path.of(model).toAbsolutePath().normalize();
        if (!Files.isRegularFile(p)) throw bad(origin, "target.model", "no such file " + p);
        int t = threads == null ? 1 : threads;
        if (t < 1 || t > 256) throw bad(origin, "target.threads", "must be in [1, 256], got " + t);
        int every = 0;
        if (verifyRestore != null && !verifyRestore.isBlank()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s*(?:1\\s+in\\s+)?(\\d{1,9})\\s*").matcher(verifyRestore);
            if (!m.matches()) throw bad(origin, "target.verify_restore", "give '1 in N' (or N; 0 = off), got '" + verifyRestore + "'");
            every = Integer.parseInt(m.group(1));
        }
        double tol = verifyTolerance == null ? 0.02 : verifyTolerance;
        if (!(tol >= 0) || Double.isInfinite(tol)) throw bad(origin, "target.verify_tolerance", "must be a finite number >= 0, got " + tol);
        int cal = calibrateTokens == null ? DEFAULT_CALIBRATE_TOKENS : calibrateTokens;
        if (cal != 0 && (cal < 16 || cal > 65_536))
            throw bad(origin, "target.calibrate_tokens", "must be 0 (no twin) or in [16, 65536], got " + cal);
        return new Resolved(p, t, every, tol, cal);
    }

    private static BadInputException bad(Function<String, String> origin, String key, String why) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + why);
    }
}
