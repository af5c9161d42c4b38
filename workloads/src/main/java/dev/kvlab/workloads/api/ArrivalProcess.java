package dev.kvlab.workloads.api;

/**
 * Releases a workload's requests over (virtual or wall-clock) time, driven by the serving model: it asks when the
 * next request is due, takes it, and reports completions, which may make further requests due (closed loop,
 * concurrency cap). Open-loop processes never wait for completions unless capped.
 *
 * <p>Driving contract (sim and live alike): process events in time order; before handling an event at time
 * {@code t}, {@link #release()} every request whose {@link #nextReleaseNanos()} is {@code <= t}; after every
 * {@link #complete} ask {@link #nextReleaseNanos()} again. Release times are never earlier than the completion
 * that enabled them. Not thread-safe: one driver thread.
 *
 * <p>Timing: {@link Release#releaseNanos()} is when the request is sent. {@code request().arrivalNanos()} is its
 * intended arrival, from which latency is measured: the same as the release time for open-loop and closed-loop
 * processes, and the open-loop time for a capped process (so the wait for a free slot counts as latency).
 */
public interface ArrivalProcess extends AutoCloseable {

    /** "No release is due until a completion is reported, or none remains". */
    long NONE = Long.MAX_VALUE;

    /** Release time of the next request, in ns from the start of the workload, or {@link #NONE}. */
    long nextReleaseNanos();

    /** Takes the next request; its release time is the last {@link #nextReleaseNanos()}. Fails when that is {@link #NONE}. */
    Release release();

    /** Reports that a released request completed at {@code nanos} (not before its release). */
    void complete(long requestId, long nanos);

    /** Requests released and not yet completed. */
    int inFlight();

    /** True when every request has been released (some may still be in flight). */
    boolean exhausted();

    /** Source and process, for manifests. */
    String describe();

    @Override
    void close();

    /** A request and the time it is sent. */
    record Release(Request request, long releaseNanos) {
        /** Time spent waiting for a slot after the intended arrival (0 unless capped). */
        public long waitNanos() {
            return releaseNanos - request.arrivalNanos();
        }
    }
}
