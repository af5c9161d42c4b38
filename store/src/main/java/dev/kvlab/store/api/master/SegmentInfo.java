package dev.kvlab.store.api.master;

/** A mounted segment as the master sees it. */
public record SegmentInfo(String name, String clientId, String endpoint, long size, long usedBytes) {}
