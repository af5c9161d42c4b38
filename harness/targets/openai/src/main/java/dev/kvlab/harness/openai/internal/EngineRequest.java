package dev.kvlab.harness.openai.internal;

import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.spi.Observed;
import dev.kvlab.harness.spi.ServedRequest;
import dev.kvlab.workloads.api.Request;

/**
 * One request sent to an engine endpoint, as the measurement sees it: written on the cell's loop thread only (the
 * HTTP threads post what they heard to the loop). Its local hit tokens are the cached prompt tokens the engine
 * reported where they are the local tier's (llama.cpp, whose tiers are all the instance's own), else unknown
 * ({@link RequestRecord#UNKNOWN}: vLLM's per-response count includes a connector's hits); what it fetched from
 * another tier, its fallbacks and bytes are not reported by an OpenAI-compatible engine: unknown, never 0.
 */
final class EngineRequest extends ServedRequest {

    final int endpoint;
    int outputTokens;
    /** The cached prompt tokens the engine reported ({@link StreamedCompletion#NOT_REPORTED}: none). */
    int cachedTokens = StreamedCompletion.NOT_REPORTED;
    /** Whether {@link #cachedTokens} are the local tier's (the endpoint is llama.cpp). */
    final boolean cachedIsLocal;

    String failure;
    StreamedCompletion stream;
    boolean done;
    /** Loop time after which it fails as timed out. */
    long deadline;

    EngineRequest(Request request, long intendedNanos, boolean warmup, int endpoint, boolean cachedIsLocal) {
        super(request, intendedNanos, warmup);
        this.endpoint = endpoint;
        this.cachedIsLocal = cachedIsLocal;
        this.outputTokens = Math.max(1, request().outputTokens());
    }

    @Override
    public int outputTokens() {
        return outputTokens;
    }

    @Override
    public Observed observed() {
        int unknown = (int) RequestRecord.UNKNOWN;
        int local = cachedIsLocal && cachedTokens >= 0 ? cachedTokens : unknown;
        return new Observed(
                request().id(),
                request().session(),
                intendedNanos(),
                endpoint,
                request().inputTokens(),
                outputTokens,
                local,
                unknown,
                unknown,
                unknown,
                unknown,
                -1,
                failure);
    }
}
