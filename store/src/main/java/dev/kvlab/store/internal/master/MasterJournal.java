package dev.kvlab.store.internal.master;

/**
 * What a {@link StoreMaster} tells of every change to its metadata, in the order the changes happen (each call is made
 * under the master's space lock, so the order of calls is the order of the changes): the leader of a replicated master
 * appends them to its oplog, which standbys apply to their own view ({@link MasterImage}). Reads, lease grants and
 * liveness pings change nothing a standby needs and are not told. Calls must be quick and must not call the master.
 */
public interface MasterJournal {

    /** Tells nothing (a master on its own, and the simulator). */
    MasterJournal NONE = new MasterJournal() {
        @Override
        public void mounted(String clientId, String segment, long size, String endpoint) {}

        @Override
        public void unmounted(String segment) {}

        @Override
        public void started(MasterImage.ObjectRecord object) {}

        @Override
        public void completed(String key, long putId, long nowNanos) {}

        @Override
        public void removed(String key, long putId) {}

        @Override
        public void replicaDropped(String key, long putId, String segment, long offset) {}
    };

    /** {@code segment} of {@code size} bytes, owned by {@code clientId}, was mounted. */
    void mounted(String clientId, String segment, long size, String endpoint);

    /** {@code segment} was unmounted: every replica in it went, and every object left without one. */
    void unmounted(String segment);

    /** A put started: {@code object} is PROCESSING, its replicas allocated where it says. */
    void started(MasterImage.ObjectRecord object);

    /** Put {@code putId} of {@code key} completed at {@code nowNanos} (master clock): the object is visible. */
    void completed(String key, long putId, long nowNanos);

    /** The object {@code key} of put {@code putId} is gone (revoked, removed, evicted, reclaimed, taken over, or its last replica dropped). */
    void removed(String key, long putId);

    /** The replica of {@code key} (put {@code putId}) at ({@code segment}, {@code offset}) was dropped (found corrupt). */
    void replicaDropped(String key, long putId, String segment, long offset);
}
