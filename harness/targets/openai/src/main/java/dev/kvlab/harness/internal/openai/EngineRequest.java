package dev.kvlab.harness.internal.openai;

import dev.kvlab.harness.internal.engine.Observed;
import dev.kvlab.harness.internal.engine.ServedRequest;
import dev.kvlab.workloads.api.Request;

/**
 * One request sent to an engine endpoint, as the measurement sees it: written on the cell's loop thread only (the
 * HTTP threads post what they heard to the loop). Its prompt tokens served from the engine's cache are what the
 * engine reported (0 where it reports nothing; the summary then says NaN).
 */
final class EngineRequest extends ServedRequest {

    final int endpoint;
    int outputTokens;
    int cachedTokens;
    String failure;
    StreamedCompletion stream;
    boolean done;
    /** Loop time after which it fails as timed out. */
    long deadline;

    EngineRequest(Request request, long intendedNanos, boolean warmup, int endpoint) {
        super(request, intendedNanos, warmup);
        this.endpoint = endpoint;
        this.outputTokens = Math.max(1, request().outputTokens());
    }

    @Override public int outputTokens() { return outputTokens; }

    @Override
    public Observed observed() {
        return new Observed(request().id(), request().session(), intendedNanos(), endpoint, request().inputTokens(), outputTokens,
                Math.max(0, cachedTokens), 0, 0, 0, 0, 0, failure);
    }
}
