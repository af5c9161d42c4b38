package dev.kvlab.store.internal.ha;

import dev.kvlab.store.internal.master.MasterImage;

/**
 * The oplog's wire format. A batch (the value of one {@code log/SEQ} key) is a header — magic {@code 'K'}, version,
 * the writer's term, the first entry's sequence number, the entry count, the wall time (µs) its first entry was
 * appended — and the entries, each a type byte and varint fields:
 * <pre>
 *   MOUNT    segment#, name, client, endpoint, size          a segment mounted (segment# names it from here on)
 *   UNMOUNT  segment#                                        ... unmounted: its replicas go, objects without one go
 *   START    putId, key, length, crc32c, flags, started ns, n, (segment#, offset) x n    a put started (PROCESSING)
 *   COMPLETE putId, at ns                                    that put ended: visible
 *   REMOVED  key, putId                                      the object is gone (revoke, remove, evict, reclaim, takeover)
 *   DROP     key, putId, segment#, offset                    one replica dropped (found corrupt)
 * </pre>
 * A snapshot is a header — magic {@code 'S'}, version, the sequence number it includes up to, the term — and MOUNT
 * entries followed by OBJECT entries (START's fields, the COMPLETE flag in {@code flags}, and the lease deadline).
 */
final class OpLog {

    static final int MOUNT = 1, UNMOUNT = 2, START = 3, COMPLETE = 4, REMOVED = 5, DROP = 6, OBJECT = 7;
    static final int BATCH_MAGIC = 'K', SNAPSHOT_MAGIC = 'S', VERSION = 1;
    static final int SOFT_PIN = 1, HARD_PIN = 2, DONE = 4;

    private OpLog() {}

    /** A batch's header, decoded. */
    record BatchHeader(long term, long firstSeq, int count, long appendedMicros, int entriesAt) {
        long lastSeq() {
            return firstSeq + count - 1;
        }
    }

    static void batchHeader(Bytes out, long term, long firstSeq, int count, long appendedMicros) {
        out.write(BATCH_MAGIC);
        out.write(VERSION);
        out.varLong(term);
        out.varLong(firstSeq);
        out.varLong(count);
        out.varLong(appendedMicros);
    }

    static BatchHeader readBatchHeader(byte[] b) {
        Bytes.Reader r = new Bytes.Reader(b, 0, b.length);
        if (r.u8() != BATCH_MAGIC || r.u8() != VERSION)
            throw new IllegalArgumentException("not an oplog batch of version " + VERSION);
        return new BatchHeader(r.varLong(), r.varLong(), r.varInt(), r.varLong(), r.position());
    }

    static void mount(Bytes out, int ord, String name, String client, String endpoint, long size) {
        out.write(MOUNT);
        out.varLong(ord);
        out.string(name);
        out.string(client);
        out.string(endpoint);
        out.varLong(size);
    }

    static void unmount(Bytes out, int ord) {
        out.write(UNMOUNT);
        out.varLong(ord);
    }

    /** START (or, in a snapshot, OBJECT with its state and lease) of {@code o}; {@code ords} gives each replica's segment#. */
    static void object(Bytes out, MasterImage.ObjectRecord o, int[] ords, boolean snapshot) {
        out.write(snapshot ? OBJECT : START);
        out.varLong(o.putId());
        out.string(o.key());
        out.varLong(o.length());
        out.int32(o.crc32c());
        out.write((o.softPin() ? SOFT_PIN : 0) | (o.hardPin() ? HARD_PIN : 0) | (snapshot && o.complete() ? DONE : 0));
        out.varLong(o.startedNanos());
        out.varLong(ords.length);
        for (int i = 0; i < ords.length; i++) {
            out.varLong(ords[i]);
            out.varLong(o.replicas().get(i).offset());
        }
        if (snapshot) out.varLong(o.leaseDeadline());
    }

    static void complete(Bytes out, long putId, long atNanos) {
        out.write(COMPLETE);
        out.varLong(putId);
        out.varLong(atNanos);
    }

    static void removed(Bytes out, String key, long putId) {
        out.write(REMOVED);
        out.string(key);
        out.varLong(putId);
    }

    static void drop(Bytes out, String key, long putId, int ord, long offset) {
        out.write(DROP);
        out.string(key);
        out.varLong(putId);
        out.varLong(ord);
        out.varLong(offset);
    }

    static void snapshotHeader(Bytes out, long seq, long term) {
        out.write(SNAPSHOT_MAGIC);
        out.write(VERSION);
        out.varLong(seq);
        out.varLong(term);
    }
}
