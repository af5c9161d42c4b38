package dev.kvlab.harness.internal.openai;

import dev.kvlab.harness.internal.engine.Observed;
import dev.kvlab.harness.internal.engine.Served;
import dev.kvlab.workloads.api.Request;

/**
 * One request sent to an engine endpoint, as the measurement sees it: written on the cell's loop thread only (the
 * HTTP threads post what they heard to the loop). Its prompt tokens served from the engine's cache are what the
 * engine reported (0 where it reports nothing; the summary then says NaN).
 */
final class EngineRequest implements Served {

    final Request request;
    final long intendedNanos;
    final boolean warmup;
    final int endpoint;
    private Object attachment;
    int outputTokens;
    int cachedTokens;
    String failure;
    StreamedCompletion stream;
    boolean done;
    /** Loop time after which it fails as timed out. */
    long deadline;

    EngineRequest(Request request, long intendedNanos, boolean warmup, int endpoint) {
        this.request = request;
        this.intendedNanos = intendedNanos;
        this.warmup = warmup;
        this.endpoint = endpoint;
        this.outputTokens = Math.max(1, request.outputTokens());
    }

    @Override public long id() { return request.id(); }
    @Override public long intendedNanos() { return intendedNanos; }
    @Override public boolean warmup() { return warmup; }
    @Override public int outputTokens() { return outputTokens; }
    @Override public void attach(Object state) { attachment = state; }
    @Override public Object attachment() { return attachment; }

    @Override
    public Observed observed() {
        return new Observed(request.id(), request.session(), intendedNanos, endpoint, request.inputTokens(), outputTokens,
                Math.max(0, cachedTokens), 0, 0, 0, 0, 0, failure);
    }
}
