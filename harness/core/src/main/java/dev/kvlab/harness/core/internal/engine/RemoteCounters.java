package dev.kvlab.harness.core.internal.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of a remote tier, in one place for both clocks. The tier that does the work owns them and counts
 * each outcome once, where it is decided (thread-safe: live I/O threads count). Read as {@link RemoteTier.RemoteStats}.
 */
public final class RemoteCounters {

    private final LongAdder written = new LongAdder(),
            writtenBytes = new LongAdder(),
            skipped = new LongAdder(),
            noSpace = new LongAdder(),
            writeFailed = new LongAdder(),
            dropped = new LongAdder(),
            handoffBytes = new LongAdder(),
            verified = new LongAdder(),
            rejected = new LongAdder(),
            wrongHitsUsed = new LongAdder();

    /** One block written back (PutEnd done) of {@code bytes}. */
    public void written(long bytes) {
        written.increment();
        writtenBytes.add(bytes);
    }

    /** A write-back skipped: already stored or being stored by another writer. */
    public void skipped() {
        skipped.increment();
    }

    /** A write-back refused for lack of space. */
    public void noSpace() {
        noSpace.increment();
    }

    /** {@code blocks} write-backs that failed (revoked, or the call threw). */
    public void writeFailed(long blocks) {
        writeFailed.add(blocks);
    }

    /** {@code blocks} not written back: the instance's write-back queue was full. */
    public void dropped(long blocks) {
        dropped.add(blocks);
    }

    /** KV bytes moved prefill → decode. */
    public void handoff(long bytes) {
        handoffBytes.add(bytes);
    }

    /** A fetch's outcome: {@code used} blocks verified, {@code refused} not used, {@code wrongUsed} used that the audit found wrong. */
    public void fetched(long used, long refused, long wrongUsed) {
        verified.add(used);
        rejected.add(refused);
        wrongHitsUsed.add(wrongUsed);
    }

    /** Blocks the audit found wrong after their fetch was delivered (the audit runs off the measured path). */
    public void wrongHitsUsed(long n) {
        wrongHitsUsed.add(n);
    }

    public RemoteTier.RemoteStats snapshot() {
        return new RemoteTier.RemoteStats(
                written.sum(),
                writtenBytes.sum(),
                skipped.sum(),
                noSpace.sum(),
                writeFailed.sum(),
                dropped.sum(),
                handoffBytes.sum(),
                verified.sum(),
                rejected.sum(),
                wrongHitsUsed.sum());
    }
}
