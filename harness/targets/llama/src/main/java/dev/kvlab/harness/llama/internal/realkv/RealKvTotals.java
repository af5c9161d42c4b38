package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the instances' workers did with real KV since the last {@link #reset} (the cell resets it as its measured
 * phase starts): the layout conversion (split, assemble) timed apart from the transfer and the restore, prefill
 * work, blocks written, and why blocks were not used. Thread-safe: the workers add, the loop reads after the phase.
 */
final class RealKvTotals {

    final LongAdder splitNanos = new LongAdder(),
            assembleNanos = new LongAdder(),
            restoreNanos = new LongAdder(),
            transferNanos = new LongAdder(),
            verifyNanos = new LongAdder(),
            splitBytes = new LongAdder(),
            assembleBytes = new LongAdder(),
            restores = new LongAdder(),
            prefillTokens = new LongAdder(),
            prefillNanos = new LongAdder(),
            decodeTokens = new LongAdder(),
            decodeNanos = new LongAdder(),
            writtenBlocks = new LongAdder(),
            writtenBytes = new LongAdder(),
            writeSkipped = new LongAdder(),
            unaudited = new LongAdder(),
            policyRecomputed = new LongAdder(),
            logitChecks = new LongAdder(),
            logitChecksSkipped = new LongAdder(),
            logitCheckNanos = new LongAdder(),
            steps = new LongAdder(),
            stepNanos = new LongAdder(),
            stepCpuNanos = new LongAdder(),
            stepTokens = new LongAdder(),
            stepSequences = new LongAdder(),
            // the steps the twin's roofline priced: their measured wall time and the price
            pricedStepNanos = new LongAdder(),
            priceNanos = new LongAdder(),
            localLentBlocks = new LongAdder(),
            localKeptBlocks = new LongAdder(),
            localEvictions = new LongAdder(),
            localUnplaced = new LongAdder(),
            // PD: prompt tokens computed by instances that decode; their steps that advanced decoding sequences, and of
            // them those with prompt tokens, and those that waited for a core (wall time >= CPU time + 1 ms);
            // handovers a corrupt fault flipped a byte of, handed-over objects audited and found wrong after use
            decodeSidePromptTokens = new LongAdder(),
            decodingSteps = new LongAdder(),
            decodingStepsWithPrompt = new LongAdder(),
            decodingStepsDescheduled = new LongAdder(),
            handoverCorrupted = new LongAdder(),
            handoverAudited = new LongAdder(),
            handoverWrongHits = new LongAdder();
    /** The largest next-token logit difference a sampled restore check found (verify_restore). */
    final java.util.concurrent.atomic.DoubleAccumulator logitMaxDiff =
            new java.util.concurrent.atomic.DoubleAccumulator(Math::max, 0);
    /** The first restore check that failed, for the cell's error (null: none); not reset, a failure fails the cell. */
    final java.util.concurrent.atomic.AtomicReference<String> logitMismatch =
            new java.util.concurrent.atomic.AtomicReference<>();
    /** Why write-backs ever failed, over every phase (not reset). */
    private final java.util.Set<String> everWriteFailed = ConcurrentHashMap.newKeySet();

    java.util.Set<String> everWriteFailed() {
        return java.util.Set.copyOf(everWriteFailed);
    }

    private final ConcurrentHashMap<String, LongAdder> rejected = new ConcurrentHashMap<>(),
            writeFailed = new ConcurrentHashMap<>();

    void rejected(String why) {
        rejected.computeIfAbsent(why, k -> new LongAdder()).increment();
    }

    /** The reason an error after a request's completion counts under (its message kept apart: {@link #writeError()}). */
    static final String ERROR_AFTER_COMPLETION = "error after completion";

    /** The first error after completion since the reset, or null. */
    private final java.util.concurrent.atomic.AtomicReference<String> writeError =
            new java.util.concurrent.atomic.AtomicReference<>();

    void writeFailed(String why) {
        String key = why.startsWith(ERROR_AFTER_COMPLETION)
                ? "error_after_completion"
                : why; // one column, whatever the message
        if (key != why) writeError.compareAndSet(null, why);
        writeFailed.computeIfAbsent(key, k -> new LongAdder()).increment();
        if (!why.equals("in_progress"))
            everWriteFailed.add(why); // another writer is putting the same block: it will be there
    }

    /** The first write-back error after a request's completion since the reset (the message), or null. */
    String writeError() {
        return writeError.get();
    }

    void unaudited() {
        unaudited.increment();
    }

    /** Blocks rejected after a fetch, by reason. */
    Map<String, Long> rejections() {
        Map<String, Long> m = new TreeMap<>();
        rejected.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    long rejectedBlocks() {
        return rejected.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Write-backs the store refused, by status. */
    Map<String, Long> writeFailures() {
        Map<String, Long> m = new TreeMap<>();
        writeFailed.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /**
     * The instances' batching and local tier since the reset: steps ({@code llama_decode} calls), their mean wall
     * time, their engine threads' CPU time per token stepped (a machine's other load does not count in it), tokens and
     * sequences per step, and the local tier's blocks lent, newly kept, evicted, and not kept for want of a
     * cache sequence id.
     */
    void engineExtras(Figures x) {
        long n = steps.sum();
        LlamaColumns.ENGINE_STEPS.put(x, n);
        LlamaColumns.ENGINE_STEP_MS_MEAN.put(x, n == 0 ? Double.NaN : stepNanos.sum() / 1e6 / n);
        LlamaColumns.ENGINE_STEP_TOKENS_MEAN.put(x, n == 0 ? Double.NaN : (double) stepTokens.sum() / n);
        LlamaColumns.ENGINE_STEP_CPU_S.put(x, stepCpuNanos.sum() / 1e9);
        Columns.ENGINE_STEP_WALL_OVER_CPU.put(
                x, stepCpuNanos.sum() == 0 ? Double.NaN : (double) stepNanos.sum() / stepCpuNanos.sum());
        if (priceNanos.sum() > 0)
            Columns.ENGINE_STEP_TIME_OVER_TWIN.put(x, (double) pricedStepNanos.sum() / priceNanos.sum());
        LlamaColumns.ENGINE_CPU_MS_PER_STEP_TOKEN.put(
                x, stepTokens.sum() == 0 ? Double.NaN : stepCpuNanos.sum() / 1e6 / stepTokens.sum());
        LlamaColumns.ENGINE_STEP_SEQUENCES_MEAN.put(x, n == 0 ? Double.NaN : (double) stepSequences.sum() / n);
        LlamaColumns.LOCAL_LENT_BLOCKS.put(x, localLentBlocks.sum());
        LlamaColumns.LOCAL_KEPT_BLOCKS.put(x, localKeptBlocks.sum());
        LlamaColumns.LOCAL_EVICTED_BLOCKS.put(x, localEvictions.sum());
        LlamaColumns.LOCAL_UNPLACED_BLOCKS.put(x, localUnplaced.sum());
    }

    void reset() {
        for (LongAdder a : new LongAdder[] {
            splitNanos,
            assembleNanos,
            restoreNanos,
            transferNanos,
            verifyNanos,
            splitBytes,
            assembleBytes,
            restores,
            prefillTokens,
            prefillNanos,
            decodeTokens,
            decodeNanos,
            writtenBlocks,
            writtenBytes,
            writeSkipped,
            unaudited,
            policyRecomputed,
            logitChecks,
            logitChecksSkipped,
            logitCheckNanos,
            steps,
            stepNanos,
            stepCpuNanos,
            stepTokens,
            stepSequences,
            pricedStepNanos,
            priceNanos,
            localLentBlocks,
            localKeptBlocks,
            localEvictions,
            localUnplaced,
            decodeSidePromptTokens,
            decodingSteps,
            decodingStepsWithPrompt,
            decodingStepsDescheduled,
            handoverCorrupted,
            handoverAudited,
            handoverWrongHits
        }) a.reset();
        logitMaxDiff.reset();
        rejected.clear();
        writeFailed.clear();
        writeError.set(null);
    }
}
