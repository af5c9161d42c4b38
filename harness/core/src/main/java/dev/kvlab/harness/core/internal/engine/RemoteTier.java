package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.transport.api.TransportModel;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The shared store as the serving model sees it, with every operation asynchronous: the answer is delivered
 * on the loop thread. Sim implementations run the store's metadata logic under the virtual clock and cost data
 * movement with a transport model; live ones move real bytes through the real store.
 *
 * <p>The contract both clocks keep (checked by the remote-tier compatibility tests):
 * <ul>
 *   <li>{@code lookup} counts only a contiguous run of stored blocks from {@code from};</li>
 *   <li>{@code fetch} verifies every block and delivers a {@link Fetched} whose {@code verifiedBlocks} is the
 *       verified prefix; the first block that fails and every later one are {@code fallbackBlocks}; the tier
 *       writes nothing into the sequence;</li>
 *   <li>write-backs go through {@link WriteBackLanes} (per-instance queue and concurrency);</li>
 *   <li>every transfer (fetch, write-back, handoff) counts in its instance's {@code activeTransfers} while it
 *       is in flight, so that {@code auto} sees the link's sharers;</li>
 *   <li>the tier owns its {@link RemoteCounters} and counts each outcome once.</li>
 * </ul>
 */
public interface RemoteTier {

    /** How many of {@code s}'s prompt blocks {@code [from, max)} the store holds contiguously from {@code from}. */
    void lookup(Seq s, int from, int max, IntConsumer done);

    /** Fetches blocks {@code [from, from + count)} of {@code s} into its instance; {@code done} gets what came back. */
    void fetch(Seq s, int from, int count, Consumer<Fetched> done);

    /**
     * What a fetch delivered.
     *
     * @param verifiedBlocks the verified prefix (blocks the model may use)
     * @param fallbackBlocks the planned blocks to recompute instead (the first failed one and every later one)
     * @param bytes          bytes moved
     */
    record Fetched(int verifiedBlocks, int fallbackBlocks, long bytes) {}

    /** Writes blocks {@code [from, to)} of {@code s} back to the store (PutStart → transfer → PutEnd), in the background. */
    void writeBack(Seq s, int from, int to);

    /** PD disaggregation: moves {@code s}'s prompt KV from its prefill instance to its decode instance, then runs {@code done}. */
    void handoff(Seq s, Runnable done);

    /** What the auto policy expects a transfer on one instance's link to cost (sim: the data path's model; live: the measured link or a profile). */
    TransportModel linkModel();

    /** Bytes one block moves into an instance. */
    long blockBytesAllRanks();

    /** Expected seconds to fetch {@code blocks} blocks into {@code instance} now, with the link's current sharers (for the auto policy). */
    default double expectedFetchSeconds(Instance instance, int blocks) {
        return linkModel().batchSeconds(blocks * blockBytesAllRanks(), blocks, instance.activeTransfers() + 1);
    }

    /** Counters for the summary. */
    RemoteStats stats();

    /** What moves data and how, for reports (e.g. {@code transport model 4x200gbps (emulated)}). */
    String describe();

    /**
     * Counters of the remote tier.
     *
     * @param writtenBlocks   blocks written back (PutEnd done)
     * @param writtenBytes    their bytes
     * @param writeSkipped    write-backs skipped: already stored or being stored by another writer
     * @param writeNoSpace    write-backs refused for lack of space
     * @param writeFailed     write-backs that failed (revoked)
     * @param writeDropped    blocks not written back because the instance's write-back queue was full
     * @param handoffBytes    KV bytes moved prefill → decode (PD)
     * @param verifiedBlocks  fetched blocks that passed verification
     * @param rejectedBlocks  fetched blocks that failed it (checksum, content, lease, timeout, miss after lookup)
     * @param wrongHitsUsed   blocks the model used that the audit found wrong (must stay 0)
     */
    record RemoteStats(
            long writtenBlocks,
            long writtenBytes,
            long writeSkipped,
            long writeNoSpace,
            long writeFailed,
            long writeDropped,
            long handoffBytes,
            long verifiedBlocks,
            long rejectedBlocks,
            long wrongHitsUsed) {
        public static final RemoteStats NONE = new RemoteStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        /** The same counters with {@code wrongHitsUsed} replaced (for wrappers that audit on their own). */
        public RemoteStats withWrongHitsUsed(long v) {
            return new RemoteStats(
                    writtenBlocks,
                    writtenBytes,
                    writeSkipped,
                    writeNoSpace,
                    writeFailed,
                    writeDropped,
                    handoffBytes,
                    verifiedBlocks,
                    rejectedBlocks,
                    v);
        }
    }
}
