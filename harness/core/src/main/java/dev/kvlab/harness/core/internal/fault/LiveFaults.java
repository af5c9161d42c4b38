package dev.kvlab.harness.core.internal.fault;

import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.FaultPlan;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.spi.StoreFaults;
import dev.kvlab.store.BreakableStore;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.transport.api.LinkFault;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The faults of a live cell, done for real on a {@link FaultStore}: the cell's backend is that store's client (the
 * live cell puts it behind its audit, as every live cell's); the fault strikes on the chosen measured arrival (a {@link FaultTrigger} in front
 * of the measurement) and its action runs on a fault thread, never on the loop: {@code node-crash} SIGKILLs node
 * processes and times the master's unmount; {@code corrupt} flips payload bytes in the hit nodes' registered
 * segments; {@code lease-expiry} delays every read batch past the lease; {@code link-delay}/{@code link-loss} switch
 * the client's fault-injecting transport (healed after the duration); {@code master-restart} stops the master,
 * waits the downtime and starts a fresh one on the same port. What happened when goes to the extras
 * ({@code fault_at_s} for the report's time series).
 */
public final class LiveFaults implements StoreFaults {

    private final CellPlan plan;
    private final FaultPlan fault;
    private final long corruptStride;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kvlab-fault");
        t.setDaemon(true);
        return t;
    });
    private BreakableStore store;
    private ReplicatedStore replicated;
    private volatile ReplicatedStore.Outcome failover;
    private volatile long failoverFailedKeys;
    private volatile FaultTrigger trigger;
    private volatile long struckWallNanos;
    private volatile java.util.concurrent.Future<?> action;
    private volatile String actionError;
    private final AtomicLong killed = new AtomicLong(), flipped = new AtomicLong();
    private volatile double unmountedAfter = Double.NaN, masterDown = Double.NaN, healedAt = Double.NaN;

    private LiveFaults(CellPlan plan, FaultPlan fault, long blockBytes) {
        this.plan = plan;
        this.fault = fault;
        this.corruptStride = Math.max(64, blockBytes / 2);
    }

    /** The cell's faults, or null when it has none. */
    public static LiveFaults of(CellPlan plan) {
        return of(plan, plan.blockBytes());
    }

    /**
     * The cell's faults for a cell whose store objects are {@code blockBytes} long (a real engine's KV blocks, not
     * the plan's model's): {@code corrupt} flips one byte in each half-block stretch it picks. Null: no fault.
     */
    public static LiveFaults of(CellPlan plan, long blockBytes) {
        FaultPlan f = FaultPlan.of(
                plan.config(), plan.leaseTtlNanos(), (k, why) -> new IllegalArgumentException(k + ": " + why));
        return f.none() ? null : new LiveFaults(plan, f, blockBytes);
    }

    /** Starts the fault cell's store; the returned backend is its client (closing it stops the store). */
    public KvBackend open(BackendOptions options) {
        if (fault.failover()) {
            replicated = ReplicatedStore.start(plan, fault, options);
            return replicated.client();
        }
        store = FaultStore.start(plan, fault, options);
        return store.client();
    }

    /** The measurement listener with the trigger in front; the fault strikes on the chosen of the {@code n} measured arrivals. */
    public ServingListener measured(ServingListener measurement, long origin, long n) {
        trigger = new FaultTrigger(
                measurement,
                origin,
                fault.strikeArrival(n),
                fault.lasts() ? fault.durationNanos() : Long.MAX_VALUE,
                this::strike);
        return trigger;
    }

    /** Whether the fault has struck and, at loop time {@code now}, not yet healed (false before the measured phase). */
    public boolean active(long now) {
        FaultTrigger t = trigger;
        return t != null && t.active(now);
    }

    /** The fault's plan. */
    public FaultPlan plan() {
        return fault;
    }

    @Override
    public Fault kind() {
        return fault.kind();
    }

    @Override
    public double corruptFraction() {
        return fault.corruptFraction();
    }

    private void strike() {
        struckWallNanos = System.nanoTime();
        action = worker.submit(() -> {
            try {
                act();
            } catch (Exception e) {
                actionError = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        });
    }

    private void act() throws Exception {
        switch (fault.kind()) {
            case NODE_CRASH -> {
                killed.set(store.killNodes(fault.hitNodes()));
                unmountedAfter = store.awaitUnmounted(
                        fault.hitNodes(),
                        Duration.ofNanos(fault.livenessNanos()).plusSeconds(10));
            }
            case CORRUPT -> flipped.set(store.corrupt(fault.hitNodes(), fault.corruptFraction(), corruptStride));
            case LEASE_EXPIRY -> lasting(LinkFault.readDelay(Duration.ofNanos(fault.readDelayNanos())));
            case LINK_DELAY ->
                lasting(new LinkFault(
                        Duration.ofNanos(fault.linkDelayNanos()), Duration.ofNanos(fault.linkJitterNanos()), 0));
            case LINK_LOSS -> lasting(LinkFault.loss(fault.linkLoss()));
            case MASTER_RESTART -> {
                long t0 = System.nanoTime();
                store.restartMaster(Duration.ofNanos(fault.downtimeNanos()));
                masterDown = (System.nanoTime() - t0) / 1e9;
            }
            case MASTER_FAILOVER, MASTER_PARTITION -> {
                ReplicatedStore.Outcome o = replicated.failover(fault.kind() == Fault.MASTER_PARTITION);
                failoverFailedKeys = replicated.failedKeys();
                failover = o;
                if (fault.kind() == Fault.MASTER_PARTITION && fault.durationNanos() != Long.MAX_VALUE) {
                    long left = fault.durationNanos() - (System.nanoTime() - struckWallNanos);
                    worker.schedule(
                            () -> {
                                replicated.heal(o.oldLeader());
                                healedAt = (trigger.struckAtNanos() + (System.nanoTime() - struckWallNanos)) / 1e9;
                            },
                            Math.max(0, left),
                            TimeUnit.NANOSECONDS);
                }
            }
            case NONE -> {}
        }
    }

    private void lasting(LinkFault f) {
        store.link().inject(f);
        if (fault.durationNanos() == Long.MAX_VALUE) return;
        worker.schedule(
                () -> {
                    store.link().inject(LinkFault.NONE);
                    long s = trigger.struckAtNanos();
                    healedAt = (s + (System.nanoTime() - struckWallNanos)) / 1e9;
                },
                fault.durationNanos(),
                TimeUnit.NANOSECONDS);
    }

    /** What the fault did and when (seconds since the measured phase began), for the cell's extras. */
    public void extras(Figures extras) {
        java.util.concurrent.Future<?> a = action;
        if (a != null
                && (fault.kind() == Fault.NODE_CRASH || fault.kind() == Fault.MASTER_RESTART || fault.failover())) {
            try { // the measured phase is over; let the crash's unmount (or the restart, or the failover) finish, so it
                // is on record
                a.get(
                        fault.livenessNanos() + fault.downtimeNanos() + fault.haLeaseNanos() + 60_000_000_000L,
                        TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                actionError = "the fault's action did not finish: " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long at = trigger == null ? -1 : trigger.struckAtNanos();
        Columns.FAULT.put(extras, fault.kind().label());
        Columns.FAULT_AT_S.put(extras, at < 0 ? Double.NaN : at / 1e9);
        Columns.FAULT_END_S.put(extras, healedAt);
        Columns.FAULT_DESCRIPTION.put(extras, fault.describe());
        if (fault.kind() == Fault.NODE_CRASH) {
            Columns.FAULT_NODES_KILLED.put(extras, killed.get());
            Columns.FAULT_UNMOUNTED_AFTER_S.put(extras, unmountedAfter);
        }
        if (fault.kind() == Fault.CORRUPT) Columns.FAULT_CORRUPTED_STRETCHES.put(extras, flipped.get());
        if (fault.kind() == Fault.MASTER_RESTART) Columns.FAULT_MASTER_DOWN_S.put(extras, masterDown);
        if (fault.failover()) failoverExtras(extras);
        if (store != null && fault.lasts()) {
            Columns.FAULT_DELAYED_BATCHES.put(extras, store.link().delayedBatches());
            Columns.FAULT_LOST_BATCHES.put(extras, store.link().lostBatches());
        }
        if (actionError != null) Columns.FAULT_ERROR.put(extras, actionError);
    }

    /** A failover's figures: its length, the blocks that found no master meanwhile, the objects the new leader does not know. */
    private void failoverExtras(Figures extras) {
        ReplicatedStore.Outcome o = failover;
        Columns.FAILOVER_S.put(extras, o == null ? Double.NaN : o.seconds());
        Columns.FAILOVER_FALLBACKS.put(extras, o == null ? Double.NaN : (double) failoverFailedKeys);
        Columns.OBJECTS_LOST.put(
                extras, o == null ? Double.NaN : (double) Math.max(0, o.objectsBefore() - o.objectsAfter()));
        if (o == null) return;
        Columns.FAULT_OBJECTS_BEFORE.put(extras, o.objectsBefore());
        Columns.FAULT_OBJECTS_AFTER.put(extras, o.objectsAfter());
        Columns.FAULT_OLD_LEADER.put(extras, o.oldLeader());
        Columns.FAULT_NEW_LEADER.put(extras, o.newLeader());
        Columns.FAULT_EPOCH_BEFORE.put(extras, o.epochBefore());
        Columns.FAULT_EPOCH_AFTER.put(extras, o.epochAfter());
    }

    @Override
    public void close() {
        worker.shutdownNow();
        try {
            worker.awaitTermination(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (store != null) store.close();
        if (replicated != null) replicated.close();
    }
}
