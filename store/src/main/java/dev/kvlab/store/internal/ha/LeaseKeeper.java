package dev.kvlab.store.internal.ha;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One etcd lease kept alive: a keep-alive every third of the TTL, and {@link #valid()} true only while the lease
 * certainly still exists — until the TTL after the <i>sending</i> of the last keep-alive etcd answered, less a
 * margin. A master that stalls (a long pause, SIGSTOP) or loses etcd therefore knows its lease is gone by its own
 * clock, without asking anyone, no later than etcd drops it. Lost is final ({@link #awaitLost}).
 */
final class LeaseKeeper implements AutoCloseable {

    private final EtcdClient etcd;
    private final long id;
    private final long ttlNanos;
    private final long marginNanos;
    private volatile long validUntil;
    private volatile String lostWhy;
    private final CountDownLatch lost = new CountDownLatch(1);
    private final Thread keeper;
    private volatile boolean closed;

    LeaseKeeper(EtcdClient etcd, long ttlSeconds) {
        this.etcd = etcd;
        long t0 = System.nanoTime();
        this.id = etcd.grant(ttlSeconds);
        this.ttlNanos = ttlSeconds * 1_000_000_000L;
        this.marginNanos = Math.min(ttlNanos / 4, 500_000_000L);
        this.validUntil = t0 + ttlNanos - marginNanos;
        this.keeper = Thread.ofPlatform().daemon().name("kvlab-ha-lease").start(this::keep);
    }

    long id() {
        return id;
    }

    /** True while the lease certainly exists in etcd (by this process's monotonic clock). */
    boolean valid() {
        return lostWhy == null && System.nanoTime() < validUntil;
    }

    String lostWhy() {
        return lostWhy;
    }

    /** Waits up to {@code millis} for the lease to be lost; true when it was. */
    boolean awaitLost(long millis) throws InterruptedException {
        return lost.await(millis, TimeUnit.MILLISECONDS);
    }

    private void keep() {
        long every = Math.max(100_000_000L, ttlNanos / 3);
        while (!closed) {
            long t = System.nanoTime();
            if (t >= validUntil) {
                lose("no keep-alive answered within the lease's TTL");
                return;
            }
            try {
                long ttl = etcd.keepAlive(id);
                if (ttl <= 0) {
                    lose("etcd no longer has the lease (it expired)");
                    return;
                }
                validUntil = t + ttl * 1_000_000_000L - marginNanos;
            } catch (EtcdException e) {
                // unreachable: validity runs out by itself
            }
            long sleep = Math.min(every, validUntil - System.nanoTime());
            try {
                if (sleep > 0) Thread.sleep(sleep / 1_000_000L, (int) (sleep % 1_000_000L));
            } catch (InterruptedException e) {
                if (closed) return;
            }
        }
    }

    private void lose(String why) {
        if (lostWhy == null) lostWhy = why;
        validUntil = 0;
        lost.countDown();
    }

    /** Gives the lease up (its keys go now) and stops keeping it. */
    @Override
    public void close() {
        closed = true;
        lose("given up");
        keeper.interrupt();
        try {
            etcd.revoke(id);
        } catch (EtcdException e) {
            // it expires by itself
        }
    }
}
