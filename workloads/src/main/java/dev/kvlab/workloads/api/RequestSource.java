package dev.kvlab.workloads.api;

import java.util.Iterator;

/**
 * A stream of requests in non-decreasing intended arrival order, produced lazily so that a million-request
 * trace never needs a million objects at once. Close it to release files.
 */
public interface RequestSource extends Iterator<Request>, AutoCloseable {

    /** Human-readable description for manifests and reports (source, seed, parameters). */
    String describe();

    @Override
    void close();
}
