package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.harness.spi.Observed;
import dev.kvlab.harness.spi.Served;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.workloads.api.Request;

/**
 * One request's state inside the serving model: mutable, touched only on the loop thread, and written only by the
 * model (this package). What lies outside reads its final fields and {@link #instance()}; the measurement gets what
 * it records as values in the {@link ServingListener} calls and, at the end, as an {@link Observed} record, and
 * keeps its own per-request state in the {@link #attachment()}.
 */
public final class Seq implements Served {

    /** Where a request is in its life. */
    public enum Phase {
        QUEUED,
        LOOKUP,
        LOADING,
        READY,
        PREFILLING,
        HANDOFF,
        DECODING,
        DONE,
        FAILED
    }

    public final Request request;
    /** Intended arrival on the loop's clock (all latencies are measured from it). */
    public final long intendedNanos;
    /** True for warm-up requests (not measured). */
    public final boolean warmup;

    public final int blockTokens;
    /** Full prompt blocks (the only ones cached and written back). */
    public final int fullBlocks;
    /** Most prompt blocks a hit may cover: at least one prompt token is always computed. */
    public final int maxHitBlocks;

    Phase phase = Phase.QUEUED;
    /** Index of the instance the router chose (prefill side), -1 before routing. */
    int routedTo = -1;

    Instance instance;
    /** Decode instance (PD disaggregated), else null. */
    Instance decodeInstance;

    /** Private (unkeyed) blocks held on {@link #instance}. */
    long privateHeld;
    /** Blocks held on the decode instance (PD). */
    long decodeBlocks;
    /** Loads (DRAM, fetch) still outstanding before prefill can start. */
    int pending;
    /** Leading prompt blocks referenced through the instance's prefix cache (keyed). */
    int keyedBlocks;
    /** Prompt blocks served by the local tier: HBM hits + DRAM hits. */
    int hbmHitBlocks, dramHitBlocks;
    /** Blocks the store held in continuation of the local hits, blocks the policy chose to fetch, blocks fetched and verified. */
    int remoteAvailableBlocks, fetchPlannedBlocks, fetchedBlocks;
    /** Planned blocks that were recomputed because their fetch failed (the failed one and every later one). */
    int fallbackBlocks;

    long fetchedBytes;
    long fetchStartNanos = -1, fetchEndNanos = -1;

    /** Prompt tokens whose KV is present (hit, fetched or computed so far). */
    int promptDone;
    /** Output tokens produced so far. */
    int generated;
    /** The kv-centric router's prefill estimate counted in its instance's queue until the prefill is done (0 otherwise). */
    long queuedPrefillNanos;
    /** Tokens this iteration computes for the sequence (prefill chunk or 1 decode token). */
    int chunk;

    /** The listener's per-request state ({@link #attach}). */
    private Object attachment;

    String failure;

    public Seq(Request request, long intendedNanos, boolean warmup) {
        this.request = request;
        this.intendedNanos = intendedNanos;
        this.warmup = warmup;
        this.blockTokens = request.blockTokens();
        this.fullBlocks = request.fullBlocks();
        this.maxHitBlocks = Math.min(fullBlocks, (request.inputTokens() - 1) / blockTokens);
    }

    /** The instance serving the prompt (prefill side), null before routing. */
    public Instance instance() {
        return instance;
    }

    /**
     * Attaches the listener's own per-request state (what it keeps between the calls about this request); the model
     * never reads it. One owner: the listener the model reports to.
     */
    @Override
    public void attach(Object state) {
        attachment = state;
    }

    /** The listener's per-request state, null before {@link #attach}. */
    @Override
    public Object attachment() {
        return attachment;
    }

    /** What the model observed of this request so far, as an immutable record (what measurement reads at its end). */
    @Override
    public Observed observed() {
        return new Observed(
                id(),
                request.session(),
                intendedNanos,
                routedTo,
                inputTokens(),
                outputTokens(),
                localHitTokens(),
                remoteHitTokens(),
                (long) remoteAvailableBlocks * blockTokens,
                fetchedBytes,
                fallbackBlocks,
                fetchStartNanos < 0 ? 0 : fetchEndNanos - fetchStartNanos,
                failure);
    }

    @Override
    public long id() {
        return request.id();
    }

    @Override
    public boolean warmup() {
        return warmup;
    }

    @Override
    public long intendedNanos() {
        return intendedNanos;
    }

    public int inputTokens() {
        return request.inputTokens();
    }

    /** Tokens to generate: at least one, since prefill emits the first token (a trace's prefill-only record is served as one). */
    @Override
    public int outputTokens() {
        return Math.max(1, request.outputTokens());
    }

    /** Prompt tokens served from a tier (local + fetched). */
    public int hitTokens() {
        return (hbmHitBlocks + dramHitBlocks + fetchedBlocks) * blockTokens;
    }

    public int localHitTokens() {
        return (hbmHitBlocks + dramHitBlocks) * blockTokens;
    }

    public int remoteHitTokens() {
        return fetchedBlocks * blockTokens;
    }

    /** Blocks the whole sequence (prompt and output) occupies. */
    public int totalBlocks() {
        return (int) (((long) request.inputTokens() + outputTokens() + blockTokens - 1) / blockTokens);
    }

    /** Blocks the prompt occupies (PD prefill side). */
    public int promptBlocks() {
        return (request.inputTokens() + blockTokens - 1) / blockTokens;
    }

    /** Context (tokens with KV) of a decoding sequence. */
    public long context() {
        return (long) request.inputTokens() + generated;
    }

    /** Work left, in tokens, for load balancing. */
    public long outstandingTokens() {
        return (long) (request.inputTokens() - promptDone) + (outputTokens() - generated);
    }
}
