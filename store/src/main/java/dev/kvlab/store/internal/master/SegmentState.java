package dev.kvlab.store.internal.master;

/** A mounted segment: its owner, its endpoint and its allocator. Guarded by the master's space lock. */
final class SegmentState {

    public final String name;
    public final String clientId;
    public final String endpoint;
    public final OffsetAllocator allocator;
    public boolean mounted = true;

    public SegmentState(String name, String clientId, String endpoint, long size, long alignment) {
        this.name = name;
        this.clientId = clientId;
        this.endpoint = endpoint;
        this.allocator = new OffsetAllocator(size, alignment);
    }

    public double freeRatio() {
        return (double) allocator.freeBytes() / allocator.size();
    }
}
