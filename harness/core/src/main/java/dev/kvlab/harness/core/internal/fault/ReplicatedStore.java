package dev.kvlab.harness.core.internal.fault;

import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.FaultPlan;
import dev.kvlab.store.EtcdServer;
import dev.kvlab.store.HaCluster;
import dev.kvlab.store.LoopbackPorts;
import dev.kvlab.store.NodeLauncher;
import dev.kvlab.store.StoreChildProcess;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.server.ClusterStatus;
import dev.kvlab.store.api.server.NodeLaunch;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.DurationSpec;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The store of a live {@code master-failover} / {@code master-partition} cell: a real etcd on loopback, two replicated
 * master processes ({@code kvlab store master --ha}: a leader and a standby applying its oplog), the cell's storage
 * nodes in this JVM and a client that find the leader through etcd. For a partition each master reaches etcd through a
 * {@link LoopbackRelay} the fault cuts. The client counts the keys of every object call that found no master while
 * the failover lasts.
 */
final class ReplicatedStore implements AutoCloseable {

    /** What a failover did: its length, the objects the old and the new leader knew, who led before and after. */
    record Outcome(
            double seconds,
            long objectsBefore,
            long objectsAfter,
            String oldLeader,
            String newLeader,
            long epochBefore,
            long epochAfter) {}

    private final CellPlan plan;
    private final FaultPlan fault;
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private EtcdServer etcd;
    private final Map<String, StoreChildProcess> masters = new LinkedHashMap<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, LoopbackRelay> relays = new LinkedHashMap<>();
    private final List<NodeLauncher.Running> nodes = new ArrayList<>();
    private final LongAdder failedKeys = new LongAdder();
    private volatile boolean counting;
    private KvBackend client;

    private ReplicatedStore(CellPlan plan, FaultPlan fault) {
        this.plan = plan;
        this.fault = fault;
    }

    static ReplicatedStore start(CellPlan plan, FaultPlan fault, BackendOptions options) {
        ReplicatedStore s = new ReplicatedStore(plan, fault);
        try {
            s.startMasters();
            s.startNodes();
            s.client = HaCluster.openClient("kvlab+" + s.etcd.spec(), options, k -> {
                if (s.counting) s.failedKeys.add(k);
            });
            return s;
        } catch (IOException | InterruptedException | RuntimeException e) {
            s.close();
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            throw e instanceof RuntimeException r ? r : new IllegalStateException("fault store: " + e.getMessage(), e);
        }
    }

    private void startMasters() throws IOException, InterruptedException {
        etcd = EtcdServer.start();
        for (String name : List.of("m1", "m2")) {
            int etcdPort = etcd.port();
            if (fault.kind() == Fault.MASTER_PARTITION) {
                LoopbackRelay r = new LoopbackRelay(etcd.port());
                relays.put(name, r);
                etcdPort = r.port();
            }
            int port = LoopbackPorts.free();
            ports.put(name, port);
            masters.put(
                    name,
                    StoreChildProcess.haMaster(
                            port,
                            plan.masterConfig().seed(),
                            DurationSpec.parse(plan.config().store().leaseTtl()),
                            Duration.ofNanos(fault.livenessNanos()),
                            "etcd://127.0.0.1:" + etcdPort,
                            name,
                            Duration.ofNanos(fault.haLeaseNanos())));
        }
        for (StoreChildProcess m : masters.values())
            if (!m.ready().await(90, TimeUnit.SECONDS))
                throw new IllegalStateException("fault store: a master process did not start:\n" + m.log());
        awaitLeader(null, Duration.ofSeconds(30));
    }

    private void startNodes() throws IOException, InterruptedException {
        int n = plan.config().store().nodes();
        long seg = plan.storeCapacity() / n;
        for (int i = 0; i < n; i++) {
            NodeLauncher.Running node = NodeLauncher.create(
                    new NodeLaunch(
                            "127.0.0.1",
                            1,
                            seg,
                            plan.transportName(),
                            "127.0.0.1",
                            "fault-" + run + "-n" + i,
                            null,
                            FaultStore.PING,
                            "127.0.0.1",
                            0,
                            false,
                            null,
                            etcd.spec()),
                    Transports.discover());
            nodes.add(node);
            node.mount(e -> {});
        }
        long until = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < until) {
            ClusterStatus s = HaCluster.status(etcd.spec(), Duration.ofSeconds(2));
            if (s.leader() != null
                    && HaCluster.master("127.0.0.1", ports.get(s.leader()), null, Duration.ofSeconds(2))
                                    .segments()
                            >= n) return;
            Thread.sleep(50);
        }
        throw new IllegalStateException(
                "fault store: the leader did not list the " + n + " nodes' segments within 30 s");
    }

    KvBackend client() {
        return client;
    }

    /** Keys of object calls that found no master while {@link #failover} counted. */
    long failedKeys() {
        return failedKeys.sum();
    }

    /**
     * SIGKILLs the leader ({@code partition}: cuts its link to etcd instead) and waits until another master serves;
     * counts the client's failed keys meanwhile.
     */
    Outcome failover(boolean partition) throws InterruptedException {
        ClusterStatus s = awaitLeader(null, Duration.ofSeconds(30));
        String old = s.leader();
        long before = HaCluster.master("127.0.0.1", ports.get(old), null, Duration.ofSeconds(2))
                .objects();
        counting = true;
        long t0 = System.nanoTime();
        if (partition) relays.get(old).cut();
        else masters.get(old).process().destroyForcibly(); // SIGKILL
        ClusterStatus after = awaitLeader(old, Duration.ofSeconds(60));
        double secs = (System.nanoTime() - t0) / 1e9;
        counting = false;
        long known = HaCluster.master("127.0.0.1", ports.get(after.leader()), null, Duration.ofSeconds(2))
                .objects();
        return new Outcome(secs, before, known, old, after.leader(), s.epoch(), after.epoch());
    }

    /** Reconnects {@code master} to etcd (a partition heals: it comes back as a standby). */
    void heal(String master) {
        LoopbackRelay r = relays.get(master);
        if (r != null) r.heal();
    }

    private ClusterStatus awaitLeader(String notThis, Duration limit) throws InterruptedException {
        long until = System.nanoTime() + limit.toNanos();
        ClusterStatus s = null;
        while (System.nanoTime() < until) {
            try {
                s = HaCluster.status(etcd.spec(), Duration.ofSeconds(2));
                if (s.leader() != null && !s.leader().equals(notThis)) return s;
            } catch (IllegalStateException e) {
                // etcd busy: ask again
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(
                "fault store: no master " + (notThis == null ? "" : "other than " + notThis + " ") + "led within "
                        + limit.toSeconds() + " s: " + s);
    }

    @Override
    public void close() {
        if (client != null) client.close();
        for (NodeLauncher.Running n : nodes) {
            try {
                n.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        for (StoreChildProcess m : masters.values()) m.process().destroyForcibly();
        for (StoreChildProcess m : masters.values()) {
            try {
                m.process().waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (LoopbackRelay r : relays.values()) r.close();
        if (etcd != null) etcd.close();
    }
}
