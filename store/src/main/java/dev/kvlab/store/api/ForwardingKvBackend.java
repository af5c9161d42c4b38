package dev.kvlab.store.api;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link KvBackend} that passes every call to another one. A decorator (one that measures, or audits, what goes
 * through) extends it and overrides only the calls it adds to; every other call reaches the backend unchanged.
 */
public abstract class ForwardingKvBackend implements KvBackend {

    private final KvBackend delegate;

    protected ForwardingKvBackend(KvBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The backend the calls go to. */
    protected final KvBackend delegate() {
        return delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public String copySemantics() {
        return delegate.copySemantics();
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        return delegate.allocateBuffer(bytes);
    }

    @Override
    public PutStatus put(String key, MemorySegment value, ReplicateConfig config) {
        return delegate.put(key, value, config);
    }

    @Override
    public GetResult getInto(String key, MemorySegment dst) {
        return delegate.getInto(key, dst);
    }

    @Override
    public List<PutStatus> batchPut(List<String> keys, List<MemorySegment> values, ReplicateConfig config) {
        return delegate.batchPut(keys, values, config);
    }

    @Override
    public List<GetResult> batchGetInto(List<String> keys, List<MemorySegment> dsts) {
        return delegate.batchGetInto(keys, dsts);
    }

    @Override
    public boolean exists(String key) {
        return delegate.exists(key);
    }

    @Override
    public boolean[] batchExists(List<String> keys) {
        return delegate.batchExists(keys);
    }

    @Override
    public RemoveStatus remove(String key) {
        return delegate.remove(key);
    }

    @Override
    public Optional<MasterStats> storeStats() {
        return delegate.storeStats();
    }

    @Override
    public Optional<MasterStats> storeStatsNow() {
        return delegate.storeStatsNow();
    }

    @Override
    public Map<String, Long> storeCalls() {
        return delegate.storeCalls();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
