package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.workloads.api.Request;
import java.lang.foreign.MemorySegment;

/**
 * One request on one llama.cpp sequence of an instance, from admission to release: its prompt, how far prefill and
 * decode have gone, and the transfer buffers the sequence owns (swapped for a spare set when a write-back takes them).
 * Used by the instance's engine thread only; an I/O job gets what it needs handed to it.
 */
final class EngineSequence {

    /** What the sequence contributed to the step being decoded. */
    enum InStep {
        NONE,
        PREFILL,
        DECODE
    }

    final int seq;
    MemorySegment[] bufs;
    Request request;
    EngineInstance.Events events;
    int[] tokens;
    /** Prompt tokens whose KV the sequence holds or has asked for: the next prompt index to prefill. */
    int next;
    /** The position the next decode token goes to, and that token. */
    int pos, lastToken;

    int outputsDone;
    boolean decoding;
    InStep inStep = InStep.NONE;
    /** Prompt tokens in this step, and the batch index whose logits this sequence reads after it. */
    int stepTokens, logitsIndex;
    /** The token this step's logits give (greedy), read right after the step. */
    int stepToken;

    EngineInstance.Prefix prefix;
    /** Blocks {@code [localBlocks, fetchTo)} were asked of the store; {@code fetching} until the answer is back. */
    int fetchTo;

    boolean fetching;
    /** When the fetch was asked for ({@link System#nanoTime}). */
    long fetchStart;
    /** The request failed while its fetch was out: the sequence is free again when the fetch is back. */
    boolean abandoned;
    /** Blocks lent by the local tier and restored from the store (their payloads in {@link #bufs}). */
    int localBlocks, fetchedBlocks;
    /** The logits after the last prompt token, kept for a sampled restore check. */
    float[] firstLogits;
    /** PD: the sequence's handover buffers (prefill side: staging; decode side, store path: the get's), kept across requests. */
    PdHandover.Staging pdBufs;
    /** Where a fetch's verified blocks are assembled into llama.cpp's state, off the engine thread (made at the first fetch). */
    MemorySegment fetchState;
    /** PD, decode side: where a handover's objects are assembled into llama.cpp's state, off the engine thread. */
    java.lang.foreign.MemorySegment pdState;
    /** PD, decode side: the handover the request came with. */
    PdHandover.Parcel parcel;
    /** PD, prefill side: when the prompt's last token was computed (loop clock). */
    long prefilledAt;

    EngineSequence(int seq, MemorySegment[] bufs) {
        this.seq = seq;
        this.bufs = bufs;
    }

    /** Takes {@code r}: everything of the previous request is forgotten. */
    void assign(Request r, EngineInstance.Events ev, int[] toks) {
        request = r;
        events = ev;
        tokens = toks;
        next = 0;
        pos = 0;
        lastToken = 0;
        outputsDone = 0;
        decoding = false;
        inStep = InStep.NONE;
        stepTokens = 0;
        logitsIndex = -1;
        stepToken = 0;
        prefix = null;
        fetchTo = 0;
        fetching = false;
        abandoned = false;
        localBlocks = 0;
        fetchedBlocks = 0;
        firstLogits = null;
        parcel = null;
        prefilledAt = 0;
    }

    int promptTokens() {
        return tokens.length;
    }

    int outputTarget() {
        return Math.max(1, request.outputTokens());
    }

    /** True when the sequence has a token for the next step (prompt or decode). */
    boolean runnable() {
        return decoding || prefilling();
    }

    boolean prefilling() {
        return !decoding && !fetching && next < tokens.length;
    }
}
