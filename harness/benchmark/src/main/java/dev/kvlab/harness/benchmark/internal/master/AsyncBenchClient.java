package dev.kvlab.harness.benchmark.internal.master;

import dev.kvlab.harness.benchmark.api.ClientMode;
import dev.kvlab.harness.benchmark.api.MasterBenchSettings;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.MasterConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One {@link ClientMode#ASYNC} bench client: one operation in flight on its own connection, the next issued from the
 * previous one's completion (on gRPC's transport thread), until {@code stop}; then, or at its first failure, it
 * counts {@code stopped} down. A put is PutStart then, on its answer, PutEnd of the keys it started.
 */
final class AsyncBenchClient {

    private static final ReplicateConfig ONE_REPLICA = ReplicateConfig.replicas(1);

    private final MasterBenchSettings s;
    private final MasterConnection ch;
    private final ClientKeys keys;
    private final AtomicBoolean stop;
    private final List<Throwable> failures;
    private final CountDownLatch stopped;

    AsyncBenchClient(
            MasterBenchSettings s,
            MasterConnection ch,
            ClientKeys keys,
            AtomicBoolean stop,
            List<Throwable> failures,
            CountDownLatch stopped) {
        this.s = s;
        this.ch = ch;
        this.keys = keys;
        this.stop = stop;
        this.failures = failures;
        this.stopped = stopped;
    }

    void start() {
        next();
    }

    private void next() {
        if (stop.get()) {
            stopped.countDown();
            return;
        }
        CompletableFuture<?> op;
        try {
            op = issue(keys.next());
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        op.whenComplete((r, e) -> {
            if (e != null) fail(e);
            else next();
        });
    }

    private CompletableFuture<?> issue(List<String> k) {
        if (s.op().reads()) return ch.getReplicaListsAsync(s.tenant(), k);
        return ch.putStartAsync(s.tenant(), k, MasterBench.lengths(s, k.size()), new int[k.size()], ONE_REPLICA)
                .thenCompose(started -> {
                    PendingEnds p = PendingEnds.of(k, started);
                    return p.isEmpty()
                            ? CompletableFuture.completedFuture(null)
                            : ch.putEndAsync(s.tenant(), p.keys(), p.putIds());
                });
    }

    private void fail(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        synchronized (failures) {
            failures.add(cause);
        }
        stop.set(true);
        stopped.countDown();
    }
}
