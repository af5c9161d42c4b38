package dev.kvlab.store.internal.ha;

import dev.kvlab.store.internal.master.MasterImage;
import dev.kvlab.store.internal.master.MasterJournal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leader's side of the oplog: a {@link MasterJournal} that encodes every change into an in-memory buffer (under the
 * master's space lock, so in the master's order, numbered from {@code nextSeq} on) and a shipper thread that writes what
 * has accumulated to etcd as one batch key per transaction, as soon as the previous one is done and the batch's first
 * entry is {@link #LINGER_NANOS} old (group commit: a batch holds the changes of one etcd round trip, or of the linger). Each transaction holds only while this leader's election key
 * still exists ({@code createRevision(leader) == leaderRev}): once another master leads, nothing this one writes lands,
 * and it hears so ({@code onFenced}). A batch is at most {@link #MAX_BATCH_BYTES}; a snapshot cut ({@link #cut}) ends one.
 * The master is not held up by etcd: a change is acknowledged before it is in the log (the log trails by one round trip).
 */
final class OpLogWriter implements MasterJournal, AutoCloseable {

    /** Largest batch value (etcd refuses requests over 1.5 MiB; base64 adds a third). */
    static final int MAX_BATCH_BYTES = 768 << 10;

    /**
     * Most bytes of entries not yet in etcd before an append waits for the shipper (backpressure: the master's writes
     * slow down to what etcd takes, so the log, and a standby's view, trail by a bounded amount: about two batches).
     */
    static final long MAX_PENDING_BYTES = 2L * MAX_BATCH_BYTES;

    /** An append waits at most this long for the shipper (etcd unreachable: the lease runs out meanwhile anyway). */
    private static final long MAX_WAIT_NANOS = 2_000_000_000L;

    /** Where batches go: true when stored, false when this writer is fenced; {@link EtcdException} code -1 when unreachable (retried). */
    interface BatchSink {
        boolean put(String key, byte[] batch);
    }

    /** One sealed run of entries: its first sequence number, the encoded entries, where each ends, when the first was appended. */
    private record Run(long firstSeq, Bytes data, int[] ends, int count, long firstMicros) {}

    private final BatchSink sink;
    private final HaKeys keys;
    private final long term;
    private final Runnable onFenced;
    private final Object lock = new Object();
    private final ArrayDeque<Run> sealed = new ArrayDeque<>();
    private final Map<String, Integer> ordinals;
    private int nextOrdinal;
    // guarded by lock: the run being appended to
    private Bytes data = new Bytes(64 << 10);
    private int[] ends = new int[1024];
    private int count;
    private long firstSeq, firstMicros, nextSeq;
    private final long startSeq;
    private boolean shipperWaiting;
    private long pendingBytes;
    private final AtomicLong backpressureNanos = new AtomicLong();
    private volatile boolean running = true;
    private volatile boolean fenced;
    private volatile long durableSeq;
    private final AtomicLong batches = new AtomicLong(), bytesWritten = new AtomicLong();
    private final Thread shipper;

    /** A writer to etcd: every batch a transaction that holds only while the election key created at {@code leaderRev} exists. */
    OpLogWriter(
            EtcdClient etcd,
            HaKeys keys,
            long term,
            long leaderRev,
            long nextSeq,
            Map<String, Integer> ordinals,
            Runnable onFenced) {
        this(
                (key, batch) -> etcd.txn(
                                List.of(EtcdClient.Compare.createRevision(keys.leader(), leaderRev)),
                                List.of(new EtcdClient.Put(key, batch, 0)),
                                List.of())
                        .succeeded(),
                keys,
                term,
                nextSeq,
                ordinals,
                onFenced);
    }

    OpLogWriter(
            BatchSink sink, HaKeys keys, long term, long nextSeq, Map<String, Integer> ordinals, Runnable onFenced) {
        this.sink = sink;
        this.keys = keys;
        this.term = term;
        this.onFenced = onFenced;
        this.nextSeq = nextSeq;
        this.startSeq = nextSeq;
        this.firstSeq = nextSeq;
        this.durableSeq = nextSeq - 1;
        this.ordinals = new HashMap<>(ordinals);
        for (int o : ordinals.values()) nextOrdinal = Math.max(nextOrdinal, o + 1);
        this.shipper = Thread.ofPlatform().daemon().name("kvlab-oplog-shipper").start(this::ship);
    }

    /** The last entry appended. */
    long appendedSeq() {
        synchronized (lock) {
            return nextSeq - 1;
        }
    }

    /** The first entry this writer appended (or would have). */
    long firstSeqOfTerm() {
        return startSeq;
    }

    /** The last entry etcd holds. */
    long durableSeq() {
        return durableSeq;
    }

    long batches() {
        return batches.get();
    }

    long bytesWritten() {
        return bytesWritten.get();
    }

    boolean fenced() {
        return fenced;
    }

    // ---------------------------------------------------------------- MasterJournal (the master's space lock is held)

    @Override
    public void mounted(String clientId, String segment, long size, String endpoint) {
        synchronized (lock) {
            int ord = nextOrdinal++;
            ordinals.put(segment, ord);
            OpLog.mount(data, ord, segment, clientId, endpoint, size);
            ended();
        }
    }

    @Override
    public void unmounted(String segment) {
        synchronized (lock) {
            Integer ord = ordinals.remove(segment);
            if (ord == null) return;
            OpLog.unmount(data, ord);
            ended();
        }
    }

    @Override
    public void started(MasterImage.ObjectRecord o) {
        synchronized (lock) {
            int[] ords = new int[o.replicas().size()];
            for (int i = 0; i < ords.length; i++)
                ords[i] = ordinals.getOrDefault(o.replicas().get(i).segment(), -1);
            OpLog.object(data, o, ords, false);
            ended();
        }
    }

    @Override
    public void completed(String key, long putId, long nowNanos) {
        synchronized (lock) {
            OpLog.complete(data, putId, nowNanos);
            ended();
        }
    }

    @Override
    public void removed(String key, long putId) {
        synchronized (lock) {
            OpLog.removed(data, key, putId);
            ended();
        }
    }

    @Override
    public void replicaDropped(String key, long putId, String segment, long offset) {
        synchronized (lock) {
            OpLog.drop(data, key, putId, ordinals.getOrDefault(segment, -1), offset);
            ended();
        }
    }

    private void ended() {
        if (count == 0) firstMicros = nowMicros();
        if (count == ends.length) ends = java.util.Arrays.copyOf(ends, count * 2);
        int before = count == 0 ? 0 : ends[count - 1];
        ends[count++] = data.length();
        pendingBytes += data.length() - before;
        nextSeq++;
        if (shipperWaiting) lock.notifyAll();
        if (pendingBytes > MAX_PENDING_BYTES) awaitShipper();
    }

    /** Backpressure: waits (lock held by the caller, released while waiting) until the shipper caught up, or at most {@link #MAX_WAIT_NANOS}. */
    private void awaitShipper() {
        long t0 = System.nanoTime(), until = t0 + MAX_WAIT_NANOS;
        try {
            while (pendingBytes > MAX_PENDING_BYTES && running && !fenced) {
                long left = until - System.nanoTime();
                if (left <= 0) break;
                lock.wait(Math.max(1, left / 1_000_000L));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            backpressureNanos.addAndGet(System.nanoTime() - t0);
        }
    }

    /** Time appends spent waiting for the shipper (backpressure), in nanoseconds. */
    long backpressureNanos() {
        return backpressureNanos.get();
    }

    static long nowMicros() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }

    /**
     * Ends the current batch here (a snapshot's cut: no batch straddles it, so the log before it can be deleted whole);
     * returns the sequence number of the last entry before the cut, and puts each mounted segment's number into
     * {@code ordinalsOut}. Called under the master's space lock.
     */
    long cut(Map<String, Integer> ordinalsOut) {
        synchronized (lock) {
            seal();
            ordinalsOut.putAll(ordinals);
            return nextSeq - 1;
        }
    }

    private void seal() {
        if (count == 0) return;
        sealed.add(new Run(firstSeq, data, java.util.Arrays.copyOf(ends, count), count, firstMicros));
        data = new Bytes(64 << 10);
        count = 0;
        firstSeq = nextSeq;
    }

    /** Waits until etcd holds every entry up to {@code seq}; false when the time ran out or this writer was fenced. */
    boolean awaitDurable(long seq, long timeoutMillis) throws InterruptedException {
        long until = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (durableSeq < seq && !fenced && running && System.nanoTime() < until) Thread.sleep(2);
        return durableSeq >= seq;
    }

    // ---------------------------------------------------------------- the shipper

    private void ship() {
        while (running && !fenced) {
            List<Run> runs = new ArrayList<>();
            synchronized (lock) {
                while (running && count == 0 && sealed.isEmpty()) {
                    shipperWaiting = true;
                    try {
                        lock.wait(100);
                    } catch (InterruptedException e) {
                        return;
                    } finally {
                        shipperWaiting = false;
                    }
                }
            }
            linger();
            synchronized (lock) {
                seal();
                runs.addAll(sealed);
                sealed.clear();
            }
            for (Run r : runs) if (!write(r)) return;
        }
    }

    /**
     * How long a batch may wait for more entries after its first (the linger of a group commit, as Kafka's
     * {@code linger.ms}): etcd's cost is per transaction (a Raft round, an fsync, the JSON gateway, a watch event per
     * standby), so a batch of a few milliseconds instead of one round trip's costs etcd a fraction of the CPU for the
     * same entries; the log trails by at most this much more. Measured in docs/store-ha.md.
     */
    static final long LINGER_NANOS = 20_000_000L;

    /** A batch this large is shipped without lingering. */
    static final int LINGER_BYTES = 64 << 10;

    /** Lets the open run grow for up to {@link #LINGER_NANOS} after its first entry while it is under {@link #LINGER_BYTES}. */
    private void linger() {
        while (running) {
            long left;
            synchronized (lock) {
                if (!sealed.isEmpty() || count == 0 || data.length() >= LINGER_BYTES) return;
                // firstMicros is wall time (the lag is read across processes): a clock stepped back must not stretch
                // the wait
                left = Math.min(LINGER_NANOS, LINGER_NANOS - (nowMicros() - firstMicros) * 1000);
            }
            if (left <= 0) return;
            java.util.concurrent.locks.LockSupport.parkNanos(left);
        }
    }

    /** Writes {@code r} as batches of at most {@link #MAX_BATCH_BYTES}; false when fenced or stopped. */
    private boolean write(Run r) {
        int from = 0, entry = 0;
        while (entry < r.count()) {
            int last = entry;
            while (last + 1 < r.count() && r.ends()[last + 1] - from <= MAX_BATCH_BYTES) last++;
            int to = r.ends()[last];
            Bytes batch = new Bytes(to - from + 32);
            OpLog.batchHeader(batch, term, r.firstSeq() + entry, last - entry + 1, r.firstMicros());
            batch.write(r.data().array(), from, to - from);
            if (!put(keys.log(r.firstSeq() + entry), batch.copy(0, batch.length()))) return false;
            durableSeq = r.firstSeq() + last;
            synchronized (lock) {
                pendingBytes -= to - from;
                lock.notifyAll();
            }
            batches.incrementAndGet();
            bytesWritten.addAndGet(batch.length());
            from = to;
            entry = last + 1;
        }
        return true;
    }

    /** One fenced put, retried while etcd cannot be reached; false when fenced (or stopped). */
    private boolean put(String key, byte[] value) {
        while (running) {
            try {
                if (sink.put(key, value)) return true;
                fence("another master leads (this leader's election key is gone)");
                return false;
            } catch (EtcdException e) {
                if (e.code() >= 0) {
                    fence("etcd refused an oplog batch: " + e.getMessage());
                    return false;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    return false;
                }
            }
        }
        return false;
    }

    private void fence(String why) {
        if (fenced) return;
        fenced = true;
        synchronized (lock) {
            lock.notifyAll(); // appends waiting for the shipper go on (the gate refuses the next calls)
        }
        System.err.println("kvlab master: oplog writer of term " + term + " stops: " + why);
        onFenced.run();
    }

    @Override
    public void close() {
        running = false;
        synchronized (lock) {
            lock.notifyAll();
        }
        synchronized (lock) {
            lock.notifyAll();
        }
        shipper.interrupt();
        try {
            shipper.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
