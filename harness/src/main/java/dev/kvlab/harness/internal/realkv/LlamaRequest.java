package dev.kvlab.harness.internal.realkv;

import dev.kvlab.harness.internal.engine.Observed;
import dev.kvlab.harness.internal.engine.Served;
import dev.kvlab.workloads.api.Request;

/** One request served by a real-KV instance, as the measurement sees it: written on the cell's loop thread only. */
final class LlamaRequest implements Served {

    final Request request;
    final int instance;
    private final long intendedNanos;
    private final boolean warmup;
    private Object attachment;
    EngineInstance.Prefix prefix = new EngineInstance.Prefix(0, 0, 0, 0, 0, 0);
    String failure;
    boolean done;

    LlamaRequest(Request request, long intendedNanos, boolean warmup, int instance) {
        this.request = request;
        this.intendedNanos = intendedNanos;
        this.warmup = warmup;
        this.instance = instance;
    }

    @Override public long id() { return request.id(); }
    @Override public long intendedNanos() { return intendedNanos; }
    @Override public boolean warmup() { return warmup; }
    @Override public int outputTokens() { return Math.max(1, request.outputTokens()); }
    @Override public void attach(Object state) { attachment = state; }
    @Override public Object attachment() { return attachment; }

    @Override
    public Observed observed() {
        EngineInstance.Prefix p = prefix;
        return new Observed(request.id(), request.session(), intendedNanos, instance, request.inputTokens(), outputTokens(), p.localTokens(),
                p.remoteTokens(), p.availableTokens(), p.fetchedBytes(), p.fallbacks(), p.fetchNanos(), failure);
    }
}
