package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.llama.internal.LlamaContext;
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
 *                        of the same tokens, after the phase (off the measured path); absent: {@code 1 in 8}; {@code 0}
 *                        or {@code off}: off
 * @param verifyTolerance the largest absolute difference of the next token's logits that passes (default 0.02: a
 *                        recompute in other batch sizes rounds differently, by about 0.004 on synthesized models)
 * @param sequences       requests an instance serves at once, each on its own llama.cpp sequence, all advanced by one
 *                        {@code llama_decode} per step (continuous batching; default 4, llama-server's default slot count)
 * @param batchTokens     the most tokens one step carries ({@code n_batch} = {@code n_ubatch}; default 512): every
 *                        decoding sequence's next token first, then prompt tokens in arrival order up to this bound
 * @param localCapacity   the local tier's size, KV cells of full prompt blocks the context keeps after their requests
 *                        ({@code N} or {@code N tokens}, or {@code N blocks}; default 4096 tokens, 0: no local tier)
 * @param calibrateTokens the prefix the cell's engine is calibrated on before it serves (prefill and decode timed on its
 *                        first context, {@link EngineCalibration}) for its sim twin and the break-even prediction
 *                        (default {@code batch_tokens}, the engine's own pass: the twin prices the steps the engine
 *                        runs from the passes it timed, and a 256-token calibration put 512-token steps 8-12% fast,
 *                        a 512-token one within 4%; 0: no calibration and no twin)
 * @param flashAttn       {@code auto} (llama.cpp decides: on for the CPU), {@code on} or {@code off}, as llama-server's
 *                        {@code -fa}; it also sets how the context lays out V (transposed when off), which the store's
 *                        keys name, so blocks of the two layouts never meet
 * @param pricePerHour    what one instance costs per hour (any currency): capacity rows then give the cost per million
 *                        output tokens served within the SLO
 * @param decodeNetns     with {@code pd: disaggregated} and {@code pd_transfer: direct} over {@code tcp}: the decode
 *                        instances' host, a Linux network namespace ({@code scripts/netns-cluster.sh up --decode-host}
 *                        makes one): their receive segments are served from it, so every byte handed over crosses the
 *                        shaped link between it and the namespace kvlab runs in (root only)
 */
public record LlamaTargetConfig(
        String kind,
        String model,
        Integer threads,
        String verifyRestore,
        Double verifyTolerance,
        Integer sequences,
        Integer batchTokens,
        String localCapacity,
        Integer calibrateTokens,
        String flashAttn,
        Double pricePerHour,
        String decodeNetns) {

    /** The most {@code target.sequences}: llama.cpp's 256 sequence ids leave room for the local tier's own. */
    static final int MAX_SEQUENCES = 64;
    /** The most {@code target.batch_tokens}. */
    static final int MAX_BATCH_TOKENS = 8192;
    /** The most {@code target.local_capacity} in tokens: about 4 GB of KV at 4 KiB per token. */
    static final long MAX_LOCAL_TOKENS = 1L << 20;
    /** {@code target.verify_restore} when the config gives none: every 8th restore of an instance is checked. */
    static final int DEFAULT_VERIFY_EVERY = 8;
    /** {@code target.batch_tokens} when the config gives none. */
    static final int DEFAULT_BATCH_TOKENS = 512;
    /** {@code target.local_capacity} when the config gives none. */
    static final Capacity DEFAULT_LOCAL_CAPACITY = new Capacity(4096, false);

    /**
     * The block checked.
     *
     * @param model           the model file, absolute
     * @param threads         threads per context
     * @param verifyEvery     every how many restores of an instance one is checked (0: none)
     * @param verifyTolerance the largest logit difference that passes
     * @param calibrateTokens the calibration's prefix (0: none, no twin)
     * @param flashAttention  flash attention as the contexts are made with it
     */
    public record Resolved(
            Path model,
            int threads,
            int verifyEvery,
            double verifyTolerance,
            int sequences,
            int batchTokens,
            Capacity localCapacity,
            int calibrateTokens,
            LlamaContext.FlashAttention flashAttention) {
        /** One sequence, 512-token steps, no local tier kept beyond the defaults, no twin, flash attention as llama.cpp decides. */
        public Resolved(Path model, int threads, int verifyEvery, double verifyTolerance) {
            this(
                    model,
                    threads,
                    verifyEvery,
                    verifyTolerance,
                    1,
                    DEFAULT_BATCH_TOKENS,
                    DEFAULT_LOCAL_CAPACITY,
                    0,
                    LlamaContext.FlashAttention.AUTO);
        }
    }

    /**
     * The local tier's capacity as given.
     *
     * @param amount tokens or blocks
     * @param blocks the amount counts blocks (of the workload's {@code block_tokens}), else tokens
     */
    public record Capacity(long amount, boolean blocks) {
        /** Whole blocks of {@code blockTokens} that fit. */
        public int blocks(int blockTokens) {
            return (int) Math.min(Integer.MAX_VALUE, blocks ? amount : amount / blockTokens);
        }

        /** Tokens of those blocks. */
        public long tokens(int blockTokens) {
            return (long) blocks(blockTokens) * blockTokens;
        }

        @Override
        public String toString() {
            return amount + (blocks ? " blocks" : " tokens");
        }
    }

    /** The block checked; {@link BadInputException} naming {@code origin.apply(key)} and the key. */
    public Resolved resolve(Function<String, String> origin) {
        if (model == null || model.isBlank())
            throw bad(origin, "target.model", "give the GGUF model file (kvlab model synth writes one)");
        Path p = Path.of(model).toAbsolutePath().normalize();
        if (!Files.isRegularFile(p)) throw bad(origin, "target.model", "no such file " + p);
        int t = threads == null ? 1 : threads;
        if (t < 1 || t > 256) throw bad(origin, "target.threads", "must be in [1, 256], got " + t);
        int every = DEFAULT_VERIFY_EVERY;
        if (verifyRestore != null
                && (verifyRestore.strip().equalsIgnoreCase("off")
                        || verifyRestore.strip().equals("false"))) every = 0; // YAML reads a bare off as false
        else if (verifyRestore != null) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s*(1\\s+in\\s+)?(\\d{1,9})\\s*")
                    .matcher(verifyRestore);
            if (!m.matches())
                throw bad(
                        origin,
                        "target.verify_restore",
                        "give '1 in N' (or N; 0 or off = off), got '" + verifyRestore + "'");
            every = Integer.parseInt(m.group(2));
            if (m.group(1) != null && every == 0)
                throw bad(
                        origin,
                        "target.verify_restore",
                        "'" + verifyRestore.strip()
                                + "' checks no restore: give 1 in N with N >= 1, or 0 to turn the check off");
        }
        double tol = verifyTolerance == null ? 0.02 : verifyTolerance;
        if (!(tol >= 0) || Double.isInfinite(tol))
            throw bad(origin, "target.verify_tolerance", "must be a finite number >= 0, got " + tol);
        int seqs = sequences == null ? 4 : sequences;
        if (seqs < 1 || seqs > MAX_SEQUENCES)
            throw bad(origin, "target.sequences", "must be in [1, " + MAX_SEQUENCES + "], got " + seqs);
        int bt = batchTokens == null ? DEFAULT_BATCH_TOKENS : batchTokens;
        if (bt < seqs || bt > MAX_BATCH_TOKENS)
            throw bad(
                    origin,
                    "target.batch_tokens",
                    "must be in [target.sequences = " + seqs + ", " + MAX_BATCH_TOKENS + "] (every decoding sequence's "
                            + "token goes into each step), got " + bt);
        int cal = calibrateTokens == null ? Math.max(EngineCalibration.MIN_CHUNK, bt) : calibrateTokens;
        if (cal != 0 && (cal < EngineCalibration.MIN_CHUNK || cal > 65_536))
            throw bad(
                    origin,
                    "target.calibrate_tokens",
                    "must be 0 (no twin) or in [" + EngineCalibration.MIN_CHUNK + ", 65536], got " + cal);
        return new Resolved(p, t, every, tol, seqs, bt, capacity(origin), cal, flashAttention(origin));
    }

    private LlamaContext.FlashAttention flashAttention(Function<String, String> origin) {
        if (flashAttn == null) return LlamaContext.FlashAttention.AUTO;
        return switch (flashAttn.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "auto" -> LlamaContext.FlashAttention.AUTO;
            case "on" -> LlamaContext.FlashAttention.ENABLED;
            case "off" -> LlamaContext.FlashAttention.DISABLED;
            default -> throw bad(origin, "target.flash_attn", "must be auto, on or off, got '" + flashAttn + "'");
        };
    }

    private Capacity capacity(Function<String, String> origin) {
        if (localCapacity == null) return DEFAULT_LOCAL_CAPACITY;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s*(\\d{1,12})\\s*(tokens?|tok|blocks?)?\\s*")
                .matcher(localCapacity);
        if (!m.matches())
            throw bad(origin, "target.local_capacity", "give N, N tokens or N blocks, got '" + localCapacity + "'");
        long n = Long.parseLong(m.group(1));
        boolean blocks = m.group(2) != null && m.group(2).startsWith("block");
        if (!blocks && n > MAX_LOCAL_TOKENS)
            throw bad(
                    origin,
                    "target.local_capacity",
                    "at most " + MAX_LOCAL_TOKENS + " tokens (the KV cells a context keeps), got " + n);
        return new Capacity(n, blocks);
    }

    private static BadInputException bad(Function<String, String> origin, String key, String why) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + why);
    }
}
