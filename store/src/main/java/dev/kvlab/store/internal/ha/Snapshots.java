package dev.kvlab.store.internal.ha;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.store.internal.master.MasterImage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Snapshots of the metadata in etcd: the leader encodes a consistent cut ({@code StoreMaster.export}) as
 * MOUNT and OBJECT entries ({@link OpLog}), writes it in chunks of {@link #CHUNK} under {@code snap/SEQ/}, then — in
 * one transaction that holds only while it still leads — points {@code snapshot} at it; after that the log up to SEQ,
 * older snapshots and etcd's history before that revision are deleted. A standby that starts (or fell behind the
 * log) loads the latest snapshot and replays the log after it, so the replay is bounded by the snapshot interval.
 */
final class Snapshots {

    static final int CHUNK = 1 << 20;

    /** A snapshot as stored: the sequence number it includes up to, and its bytes. */
    record Stored(long seq, byte[] data) {}

    private Snapshots() {}

    static byte[] encode(MasterImage image, long seq, long term, Map<String, Integer> ordinals) {
        Bytes out = new Bytes(64 + image.objects().size() * 96);
        OpLog.snapshotHeader(out, seq, term);
        for (MasterImage.SegmentRecord s : image.segments())
            OpLog.mount(out, ordinals.getOrDefault(s.name(), -1), s.name(), s.clientId(), s.endpoint(), s.size());
        for (MasterImage.ObjectRecord o : image.objects()) {
            int[] ords = new int[o.replicas().size()];
            for (int i = 0; i < ords.length; i++)
                ords[i] = ordinals.getOrDefault(o.replicas().get(i).segment(), -1);
            OpLog.object(out, o, ords, true);
        }
        return out.copy(0, out.length());
    }

    /**
     * Writes {@code data} (the snapshot up to {@code seq}) and makes it the latest, if this leader (election key created at
     * {@code leaderRev}) still leads; then trims the log, older snapshots and etcd's history. False when it no longer leads.
     */
    static boolean write(EtcdClient etcd, HaKeys keys, long leaderRev, long seq, long term, byte[] data) {
        int chunks = (data.length + CHUNK - 1) / CHUNK;
        for (int i = 0; i < chunks; i++) {
            int from = i * CHUNK;
            etcd.put(
                    keys.snapChunk(seq, i),
                    java.util.Arrays.copyOfRange(data, from, Math.min(data.length, from + CHUNK)),
                    0);
        }
        String meta =
                "{\"seq\":" + seq + ",\"chunks\":" + chunks + ",\"term\":" + term + ",\"bytes\":" + data.length + "}";
        EtcdClient.TxnResult t = etcd.txn(
                List.of(EtcdClient.Compare.createRevision(keys.leader(), leaderRev)),
                List.of(new EtcdClient.Put(keys.snapshot(), meta.getBytes(StandardCharsets.UTF_8), 0)),
                List.of());
        if (!t.succeeded()) {
            etcd.delete(keys.snapPrefix(seq), EtcdClient.prefixEnd(keys.snapPrefix(seq)));
            return false;
        }
        etcd.delete(keys.snapAll(), keys.snapPrefix(seq)); // older snapshots
        long rev = etcd.delete(keys.logPrefix(), keys.log(seq + 1)); // the log they include
        try {
            etcd.compact(rev);
        } catch (EtcdException e) {
            // compacted already (by another writer or etcd's own policy): fine
        }
        return true;
    }

    /** The latest snapshot, or null when there is none. */
    static Stored read(EtcdClient etcd, HaKeys keys) {
        EtcdClient.KeyValue m = etcd.get(keys.snapshot());
        if (m == null) return null;
        JsonNode meta;
        try {
            meta = EtcdClient.JSON.readTree(m.value());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("unreadable snapshot record: " + m.text(), e);
        }
        long seq = meta.path("seq").asLong();
        int chunks = meta.path("chunks").asInt();
        ByteArrayOutputStream out = new ByteArrayOutputStream(meta.path("bytes").asInt(0));
        List<EtcdClient.KeyValue> kvs = etcd.range(keys.snapPrefix(seq), EtcdClient.prefixEnd(keys.snapPrefix(seq)), 0)
                .kvs();
        if (kvs.size() != chunks)
            throw new IllegalStateException("snapshot " + seq + " has " + kvs.size() + " of its " + chunks + " chunks");
        for (EtcdClient.KeyValue kv : kvs) out.writeBytes(kv.value());
        return new Stored(seq, out.toByteArray());
    }
}
