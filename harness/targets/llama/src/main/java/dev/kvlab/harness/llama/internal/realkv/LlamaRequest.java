package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.spi.Observed;
import dev.kvlab.harness.spi.ServedRequest;
import dev.kvlab.workloads.api.Request;

/** One request served by a real-KV instance, as the measurement sees it: written on the cell's loop thread only. */
final class LlamaRequest extends ServedRequest {

    final int instance;
    EngineInstance.Prefix prefix = new EngineInstance.Prefix(0, 0, 0, 0, 0, 0);
    String failure;
    boolean done;
    /** PD: handed over, its prefill instance's outstanding tokens no longer count it. */
    boolean prefillReleased;

    LlamaRequest(Request request, long intendedNanos, boolean warmup, int instance) {
        super(request, intendedNanos, warmup);
        this.instance = instance;
    }

    @Override
    public int outputTokens() {
        return Math.max(1, request().outputTokens());
    }

    @Override
    public Observed observed() {
        EngineInstance.Prefix p = prefix;
        return new Observed(
                request().id(),
                request().session(),
                intendedNanos(),
                instance,
                request().inputTokens(),
                outputTokens(),
                p.localTokens(),
                p.remoteTokens(),
                p.availableTokens(),
                p.fetchedBytes(),
                p.fallbacks(),
                p.fetchNanos(),
                failure);
    }
}
