package dev.kvlab.store.internal.ha;

import java.util.List;
import java.util.function.LongConsumer;

/**
 * The standby's side of the oplog: {@link #catchUp()} loads the latest snapshot when the log it needs starts after it
 * and applies every batch after what it applied; {@link #follow} then watches the cluster's keys, applies each new batch
 * as it lands (re-reading on a gap, or when the watch ends) and tells of changes of the leader key. Applying is done
 * under this object's lock, so a promotion ({@link #stop} then {@link #catchUp}) sees a finished view.
 */
final class OpLogReader {

    private final EtcdClient etcd;
    private final HaKeys keys;
    private final StandbyImage image;
    private final LongConsumer lagMicros;
    private volatile EtcdWatch watch;
    private volatile boolean stopped;
    private volatile String lastError = "";

    /** {@code lagMicros} hears, for every batch applied from the watch, how long after its first entry's append it was applied. */
    OpLogReader(EtcdClient etcd, HaKeys keys, StandbyImage image, LongConsumer lagMicros) {
        this.etcd = etcd;
        this.keys = keys;
        this.image = image;
        this.lagMicros = lagMicros;
    }

    String lastError() {
        return lastError;
    }

    /** Applies every batch etcd holds after the view; the etcd revision of the last read. */
    synchronized long catchUp() {
        long rev = 0;
        boolean reloaded = false;
        while (true) {
            EtcdClient.Range r = etcd.range(keys.log(image.applied() + 1), EtcdClient.prefixEnd(keys.logPrefix()), 64);
            rev = Math.max(rev, r.revision());
            boolean gap = false;
            for (EtcdClient.KeyValue kv : r.kvs()) {
                if (!image.applyBatch(kv.value())) {
                    gap = true;
                    break;
                }
            }
            if (gap || (r.kvs().isEmpty() && needsSnapshot())) {
                if (reloaded)
                    throw new IllegalStateException(
                            "the oplog after entry " + image.applied() + " is missing and no snapshot covers it");
                loadSnapshot();
                reloaded = true;
                continue;
            }
            if (!r.more()) return rev;
        }
    }

    /** True when a snapshot newer than the view exists (the log before it may be gone). */
    private boolean needsSnapshot() {
        EtcdClient.KeyValue m = etcd.get(keys.snapshot());
        if (m == null) return false;
        try {
            return EtcdClient.JSON.readTree(m.value()).path("seq").asLong() > image.applied();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private void loadSnapshot() {
        Snapshots.Stored s = Snapshots.read(etcd, keys);
        if (s == null || s.seq() <= image.applied()) return;
        image.loadSnapshot(s.data());
    }

    /** Boots the view: the latest snapshot (if any), then the log after it. */
    synchronized long bootstrap() {
        image.clear();
        loadSnapshot();
        return catchUp();
    }

    /** Watches from {@code fromRevision}: applies new batches; {@code onLeader} runs on every change of the leader key. */
    void follow(long fromRevision, Runnable onLeader) {
        stopped = false;
        watch = EtcdWatch.start(
                etcd,
                keys.root(),
                EtcdClient.prefixEnd(keys.root()),
                fromRevision,
                evs -> apply(evs, onLeader),
                why -> ended(why, onLeader));
    }

    private void apply(List<EtcdWatch.Event> evs, Runnable onLeader) {
        boolean leader = false;
        synchronized (this) {
            if (stopped) return;
            for (EtcdWatch.Event e : evs) {
                String k = e.kv().key();
                if (k.equals(keys.leader())) leader = true;
                if (e.delete() || !k.startsWith(keys.logPrefix())) continue;
                try {
                    OpLog.BatchHeader h = OpLog.readBatchHeader(e.kv().value());
                    if (!image.applyBatch(e.kv().value())) catchUp();
                    else lagMicros.accept(OpLogWriter.nowMicros() - h.appendedMicros());
                } catch (RuntimeException ex) {
                    lastError = String.valueOf(ex.getMessage());
                }
            }
        }
        if (leader) onLeader.run();
    }

    private void ended(String why, Runnable onLeader) {
        if (stopped) return;
        lastError = why;
        Thread.ofPlatform().daemon().name("kvlab-oplog-refollow").start(() -> {
            while (!stopped) {
                try {
                    Thread.sleep(200);
                    long rev = catchUp();
                    if (stopped) return;
                    follow(rev + 1, onLeader);
                    onLeader.run(); // the leader may have changed while nobody watched
                    return;
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    lastError = String.valueOf(e.getMessage());
                }
            }
        });
    }

    /** Stops following (the view stays as applied). */
    void stop() {
        stopped = true;
        EtcdWatch w = watch;
        if (w != null) w.close();
        synchronized (this) {
            // waits for an apply in progress
        }
    }
}
