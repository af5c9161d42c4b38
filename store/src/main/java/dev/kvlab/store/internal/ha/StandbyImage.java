package dev.kvlab.store.internal.ha;

import dev.kvlab.store.internal.master.MasterImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A standby's view of the leader's metadata, built by applying the oplog in order ({@link #applyBatch}) on top of a
 * snapshot ({@link #loadSnapshot}): the segments and the objects with where their blocks are. It decides nothing
 * (the leader did): it only records. {@link #image()} is what a promoted standby starts its master from. Single-threaded.
 */
final class StandbyImage {

    private static final class Obj {
        final String key;
        final long putId, length, started;
        final int crc;
        final int flags;
        boolean complete;
        long lease;
        final List<MasterImage.BlockRef> replicas;

        Obj(
                String key,
                long putId,
                long length,
                int crc,
                int flags,
                long started,
                List<MasterImage.BlockRef> replicas) {
            this.key = key;
            this.putId = putId;
            this.length = length;
            this.crc = crc;
            this.flags = flags;
            this.started = started;
            this.replicas = replicas;
        }
    }

    private final Map<Integer, MasterImage.SegmentRecord> segments = new LinkedHashMap<>();
    private final Map<String, Obj> objects = new HashMap<>();
    private final Map<Long, Obj> processing = new HashMap<>();
    private long applied;
    private long term;
    private long complete;

    /** The sequence number of the last entry applied (0: none). */
    long applied() {
        return applied;
    }

    /** The term of the last batch applied. */
    long term() {
        return term;
    }

    long objects() {
        return complete;
    }

    int segments() {
        return segments.size();
    }

    /** Each mounted segment's number in the log (a promoted standby's writer goes on numbering after them). */
    Map<String, Integer> ordinals() {
        Map<String, Integer> m = new HashMap<>();
        segments.forEach((ord, s) -> m.put(s.name(), ord));
        return m;
    }

    void clear() {
        segments.clear();
        objects.clear();
        processing.clear();
        applied = 0;
        term = 0;
        complete = 0;
    }

    /** Replaces the view with a snapshot's ({@code chunks} concatenated). */
    void loadSnapshot(byte[] data) {
        clear();
        Bytes.Reader r = new Bytes.Reader(data, 0, data.length);
        if (r.u8() != OpLog.SNAPSHOT_MAGIC || r.u8() != OpLog.VERSION)
            throw new IllegalArgumentException("not a snapshot of version " + OpLog.VERSION);
        long seq = r.varLong();
        term = r.varLong();
        while (r.more()) apply(r);
        applied = seq;
    }

    /**
     * Applies the entries of {@code batch} after {@link #applied()} (earlier ones were applied before). False, applying
     * nothing, when it starts after the next entry (a gap: the caller reads what it missed first).
     */
    boolean applyBatch(byte[] batch) {
        OpLog.BatchHeader h = OpLog.readBatchHeader(batch);
        if (h.firstSeq() > applied + 1) return false;
        if (h.lastSeq() <= applied) return true;
        Bytes.Reader r = new Bytes.Reader(batch, h.entriesAt(), batch.length);
        for (long seq = h.firstSeq(); seq <= h.lastSeq(); seq++) {
            if (seq <= applied) skip(r);
            else apply(r);
        }
        applied = h.lastSeq();
        term = h.term();
        return true;
    }

    private void skip(Bytes.Reader r) {
        // entries are self-delimiting only by decoding them: apply to a scratch view would change state, so decode and
        // drop
        decode(r, false);
    }

    private void apply(Bytes.Reader r) {
        decode(r, true);
    }

    private void decode(Bytes.Reader r, boolean apply) {
        int type = r.u8();
        switch (type) {
            case OpLog.MOUNT -> {
                int ord = r.varInt();
                MasterImage.SegmentRecord s =
                        new MasterImage.SegmentRecord(r.string(), r.string(), r.string(), r.varLong());
                if (apply) segments.put(ord, s);
            }
            case OpLog.UNMOUNT -> {
                int ord = r.varInt();
                if (apply) unmount(ord);
            }
            case OpLog.START, OpLog.OBJECT -> {
                long putId = r.varLong();
                String key = r.string();
                long length = r.varLong();
                int crc = r.int32();
                int flags = r.u8();
                long started = r.varLong();
                int n = r.varInt();
                List<MasterImage.BlockRef> reps = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    int ord = r.varInt();
                    long off = r.varLong();
                    MasterImage.SegmentRecord s = segments.get(ord);
                    if (s != null) reps.add(new MasterImage.BlockRef(s.name(), off));
                }
                long lease = type == OpLog.OBJECT ? r.varLong() : 0;
                if (apply)
                    started(
                            new Obj(key, putId, length, crc, flags, started, reps),
                            type == OpLog.OBJECT && (flags & OpLog.DONE) != 0,
                            lease);
            }
            case OpLog.COMPLETE -> {
                long putId = r.varLong();
                long at = r.varLong();
                if (apply) completed(putId, at);
            }
            case OpLog.REMOVED -> {
                String key = r.string();
                long putId = r.varLong();
                if (apply) removed(key, putId);
            }
            case OpLog.DROP -> {
                String key = r.string();
                long putId = r.varLong();
                int ord = r.varInt();
                long off = r.varLong();
                if (apply) dropped(key, putId, ord, off);
            }
            default -> throw new IllegalArgumentException("unknown oplog entry type " + type);
        }
    }

    private void started(Obj o, boolean done, long lease) {
        Obj old = objects.put(o.key, o);
        if (old != null) forget(old);
        if (done) {
            o.complete = true;
            o.lease = lease;
            complete++;
        } else {
            processing.put(o.putId, o);
        }
    }

    private void completed(long putId, long at) {
        Obj o = processing.remove(putId);
        if (o == null) return;
        o.complete = true;
        o.lease = at;
        complete++;
    }

    private void removed(String key, long putId) {
        Obj o = objects.get(key);
        if (o == null || o.putId != putId) return;
        objects.remove(key);
        forget(o);
    }

    private void forget(Obj o) {
        if (o.complete) complete--;
        else processing.remove(o.putId);
    }

    private void dropped(String key, long putId, int ord, long off) {
        Obj o = objects.get(key);
        MasterImage.SegmentRecord s = segments.get(ord);
        if (o == null || o.putId != putId || s == null) return;
        o.replicas.removeIf(b -> b.segment().equals(s.name()) && b.offset() == off);
        if (o.replicas.isEmpty()) removed(key, putId);
    }

    private void unmount(int ord) {
        MasterImage.SegmentRecord s = segments.remove(ord);
        if (s == null) return;
        List<Obj> gone = new ArrayList<>();
        for (Obj o : objects.values())
            if (o.replicas.removeIf(b -> b.segment().equals(s.name())) && o.replicas.isEmpty()) gone.add(o);
        for (Obj o : gone) {
            objects.remove(o.key);
            forget(o);
        }
    }

    /** The view as records (for a promoted standby's master). */
    MasterImage image() {
        List<MasterImage.ObjectRecord> objs = new ArrayList<>(objects.size());
        for (Obj o : objects.values())
            objs.add(new MasterImage.ObjectRecord(
                    o.key,
                    o.putId,
                    o.length,
                    o.crc,
                    (o.flags & OpLog.SOFT_PIN) != 0,
                    (o.flags & OpLog.HARD_PIN) != 0,
                    o.started,
                    o.complete,
                    o.lease,
                    o.replicas));
        return new MasterImage(List.copyOf(segments.values()), objs);
    }
}
