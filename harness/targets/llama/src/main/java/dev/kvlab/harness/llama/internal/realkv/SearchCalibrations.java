package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaModel;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engine calibrations a capacity search took before its live search ({@link LlamaCalibrator}: what the twin's
 * predictions rest on), for the cells' engines to plan their twins on instead of timing the engine again: the
 * prediction and the live cell's step pricing ({@code engine_step_time_over_twin}) then rest on one calibration, and
 * a search's first probe of each cell saves the calibration's time. Held in this process, keyed by everything an
 * {@link EngineCalibration} depends on, the latest of each key; at most {@value #MAX}, the oldest dropped. Only capacity
 * probes take them (a fixed-load cell times its engine itself).
 */
final class SearchCalibrations {

    private SearchCalibrations() {}

    static final int MAX = 32;

    /**
     * What a calibration binds: the library, the model file (path, size and modification time), the cell's pass
     * ({@code n_batch}), threads and flash attention, the instances timed at once, the chunk and block tokens.
     */
    record Key(
            String library,
            Path model,
            long modelBytes,
            long modelModified,
            int batchTokens,
            int threads,
            LlamaContext.FlashAttention flashAttention,
            int instances,
            int tokens,
            int blockTokens) {

        static Key of(
                LlamaModel model, LlamaContext.Options cell, int threads, int instances, int tokens, int blockTokens) {
            Path f = model.file().toAbsolutePath().normalize();
            long bytes = -1, modified = -1;
            try {
                bytes = java.nio.file.Files.size(f);
                modified = java.nio.file.Files.getLastModifiedTime(f).toMillis();
            } catch (java.io.IOException e) {
                // keyed by the path alone: loading the model read it a moment ago
            }
            return new Key(
                    model.library().install().describe(),
                    f,
                    bytes,
                    modified,
                    cell.nBatch(),
                    threads,
                    cell.flashAttention(),
                    instances,
                    tokens,
                    blockTokens);
        }
    }

    /** A calibration and when it was taken ({@link System#nanoTime}). */
    record Taken(EngineCalibration calibration, long atNanos) {

        /** Its age in seconds at {@code nowNanos}. */
        double ageSeconds(long nowNanos) {
            return (nowNanos - atNanos) / 1e9;
        }
    }

    private static final Map<Key, Taken> TAKEN = new LinkedHashMap<>();

    /** Keeps {@code c}, taken just now for {@code k} (replacing an earlier one of the same key). */
    static synchronized void offer(Key k, EngineCalibration c) {
        TAKEN.remove(k);
        TAKEN.put(k, new Taken(c, System.nanoTime()));
        while (TAKEN.size() > MAX) TAKEN.remove(TAKEN.keySet().iterator().next());
    }

    /** The calibration kept for {@code k}, or null. */
    static synchronized Taken find(Key k) {
        return TAKEN.get(k);
    }
}
