package dev.kvlab.store.api;

/**
 * A snapshot of the master's state and counters.
 *
 * @param objects           COMPLETE (visible) objects
 * @param processing        objects being written (PROCESSING)
 * @param bytesUsed         bytes allocated in mounted segments (complete, processing and discarded puts)
 * @param capacityBytes     total size of mounted segments
 * @param segments          mounted segments
 * @param clients           clients known (pinged within the TTL)
 * @param activeLeases      objects whose lease has not expired
 * @param leasesGranted     lease grants so far (one per found key of a lookup)
 * @param evictedObjects    objects evicted so far
 * @param evictedBytes      bytes those objects occupied
 * @param evictionRuns      eviction runs so far (watermark or allocation failure)
 * @param takenOverPuts     abandoned PROCESSING puts discarded because another writer took the key over
 * @param reclaimedPuts     abandoned puts whose space was reclaimed after the release timeout
 * @param droppedObjects    objects that lost their last replica because its segment was unmounted
 */
public record MasterStats(
        long objects,
        long processing,
        long bytesUsed,
        long capacityBytes,
        int segments,
        int clients,
        long activeLeases,
        long leasesGranted,
        long evictedObjects,
        long evictedBytes,
        long evictionRuns,
        long takenOverPuts,
        long reclaimedPuts,
        long droppedObjects) {

    /** Used fraction of capacity (0 with no segments). */
    public double usage() {
        return capacityBytes == 0 ? 0 : (double) bytesUsed / capacityBytes;
    }
}
