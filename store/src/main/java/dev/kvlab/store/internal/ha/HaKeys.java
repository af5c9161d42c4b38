package dev.kvlab.store.internal.ha;

/**
 * Where a cluster of masters keeps its state in etcd, under {@code /kvlab/store/CLUSTER/}: {@code leader} (the leader's
 * name and address, on the leader's lease), {@code term} (the epoch, one more per leadership), {@code members/NAME}
 * (each master, on its own lease), {@code log/SEQ} (the oplog, one key per batch, named by its first entry's sequence
 * number), {@code snapshot} (the latest snapshot's sequence number and chunk count) and {@code snap/SEQ/I} (its chunks).
 */
public record HaKeys(String root) {

    public static HaKeys of(String cluster) {
        return new HaKeys("/kvlab/store/" + cluster + "/");
    }

    public String leader() {
        return root + "leader";
    }

    public String term() {
        return root + "term";
    }

    public String members() {
        return root + "members/";
    }

    public String member(String name) {
        return members() + name;
    }

    public String logPrefix() {
        return root + "log/";
    }

    public String log(long seq) {
        return logPrefix() + String.format("%020d", seq);
    }

    public String snapshot() {
        return root + "snapshot";
    }

    public String snapPrefix(long seq) {
        return root + "snap/" + String.format("%020d", seq) + "/";
    }

    public String snapChunk(long seq, int i) {
        return snapPrefix(seq) + String.format("%06d", i);
    }

    public String snapAll() {
        return root + "snap/";
    }

    /** The sequence number a log key names. */
    public long seqOf(String logKey) {
        return Long.parseLong(logKey.substring(logPrefix().length()));
    }
}
