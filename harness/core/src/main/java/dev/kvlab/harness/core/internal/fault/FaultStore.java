package dev.kvlab.harness.core.internal.fault;

import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.FaultPlan;
import dev.kvlab.store.LoopbackPorts;
import dev.kvlab.store.Masters;
import dev.kvlab.store.StoreChildProcess;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.master.Master;
import dev.kvlab.store.api.master.SegmentInfo;
import dev.kvlab.store.internal.client.StoreClient;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.node.StorageNode;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.internal.fault.FaultInjectingTransferEngine;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The store of a live fault cell, built so that its parts can really break: a master ({@link MasterService} behind
 * a loopback gRPC server) with the fault cell's liveness TTL, N storage nodes and one client whose transfer engine
 * is a {@link FaultInjectingTransferEngine}. For {@code node-crash} every node is a separate storage node
 * process ({@link StoreChildProcess}) (so that a crash is a real SIGKILL); otherwise nodes live in this JVM with their own engines (so
 * that {@code corrupt} can flip bytes in a node's registered segment). For {@code master-restart} the master is a
 * child process (killed and started again on the same port) and nodes and client talk to it over
 * gRPC, so that they see it go and come back; otherwise the master lives in this JVM and its clients call it in
 * process (node processes over loopback gRPC).
 */
final class FaultStore implements AutoCloseable {

    static final Duration PING = Duration.ofMillis(250);

    private final CellPlan plan;
    private final FaultPlan fault;
    private final MasterConfig masterConfig;
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final List<Process> processes = new ArrayList<>();
    private final List<StorageNode> nodes = new ArrayList<>();
    private final List<String> segmentNames = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private volatile MasterService service;
    private volatile MasterServer server;
    private volatile Process masterProcess;
    private int port;
    private FaultInjectingTransferEngine clientEngine;
    private StoreClient client;
    private volatile boolean closed;

    private FaultStore(CellPlan plan, FaultPlan fault) {
        this.plan = plan;
        this.fault = fault;
        this.masterConfig = plan.masterConfig().withClientTtl(Duration.ofNanos(fault.livenessNanos()));
    }

    static FaultStore start(CellPlan plan, FaultPlan fault, BackendOptions options) {
        FaultStore s = new FaultStore(plan, fault);
        try {
            s.startMaster(0);
            s.startNodes();
            s.startClient(options);
            return s;
        } catch (RuntimeException | IOException | InterruptedException e) {
            s.close();
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            throw e instanceof RuntimeException r ? r : new IllegalStateException("fault store: " + e.getMessage(), e);
        }
    }

    private void startMaster(int atPort) throws IOException, InterruptedException {
        if (fault.kind() == Fault.MASTER_RESTART) {
            startMasterProcess(atPort);
            return;
        }
        MasterService s = Masters.service(masterConfig, Clock.systemUTC(), new SimpleMeterRegistry()).startHousekeeping(Duration.ofMillis(100));
        for (int i = 0; ; i++) {
            try {
                server = MasterServer.start(s, "127.0.0.1", atPort, null);
                break;
            } catch (IOException e) {
                if (atPort == 0 || i == 100) {
                    s.close();
                    throw e;
                }
                Thread.sleep(50); // the old socket is still closing
            }
        }
        service = s;
        port = server.port();
    }

    /** A master child process on loopback ({@code atPort} 0: a free port), started again on the same port after a kill. */
    private void startMasterProcess(int atPort) throws IOException, InterruptedException {
        int p = atPort;
        if (p == 0) p = LoopbackPorts.free();
        String log = "";
        for (int attempt = 0; attempt < 50; attempt++) {
            StoreChildProcess child = StoreChildProcess.master(p, masterConfig.seed(), DurationSpec.parse(plan.config().store().leaseTtl()),
                    masterConfig.clientTtl());
            Process proc = child.process();
            while (!child.ready().await(100, TimeUnit.MILLISECONDS) && proc.isAlive()) {
                // starting
            }
            if (child.ready().getCount() == 0 && proc.isAlive()) {
                masterProcess = proc;
                port = p;
                return;
            }
            proc.destroyForcibly();
            log = child.log();
            Thread.sleep(100); // the port is still held by the killed master's socket: try again
        }
        throw new IllegalStateException("fault store: the master process did not start on port " + p + ":\n" + log);
    }

    private boolean grpcNodes() {
        return fault.kind() == Fault.NODE_CRASH || fault.kind() == Fault.MASTER_RESTART;
    }

    private MasterChannel channel(Duration deadline) {
        if (!grpcNodes()) return service;
        GrpcMasterChannel c = new GrpcMasterChannel("127.0.0.1", port, deadline, null);
        closeables.add(c);
        return c;
    }

    private long segmentBytes() {
        return plan.storeCapacity() / plan.config().store().nodes();
    }

    private void startNodes() throws IOException, InterruptedException {
        int n = plan.config().store().nodes();
        for (int i = 0; i < n; i++) segmentNames.add("fault-" + run + "-n" + i + "-seg0");
        if (fault.kind() == Fault.NODE_CRASH) {
            CountDownLatch mounted = new CountDownLatch(n);
            List<StoreChildProcess> children = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                StoreChildProcess c = nodeProcess(i, mounted);
                children.add(c);
                processes.add(c.process());
            }
            if (!mounted.await(90, TimeUnit.SECONDS)) {
                throw new IllegalStateException("fault store: storage node processes did not mount within 90 s:\n" + String.join("\n---\n",
                        children.stream().map(StoreChildProcess::log).toList()));
            }
        } else {
            Transports ts = Transports.discover();
            for (int i = 0; i < n; i++) {
                TransferEngine e = ts.create(plan.transportName(), TransportConfig.defaults());
                closeables.add(e);
                StorageNode node = new StorageNode(channel(Duration.ofSeconds(2)), e, "fault-" + run + "-n" + i, segmentBytes(), PING);
                nodes.add(node);
                node.start();
            }
        }
    }

    /** A storage node child process: same JVM binary and class path, exits with this process. */
    private StoreChildProcess nodeProcess(int i, CountDownLatch mounted) throws IOException {
        return StoreChildProcess.node(port, segmentBytes(), plan.transportName(), "fault-" + run + "-n" + i, PING, mounted);
    }

    private void startClient(BackendOptions options) {
        TransferEngine e = Transports.discover().create(plan.transportName(), TransportConfig.defaults().withTimeout(options.timeout()));
        clientEngine = FaultInjectingTransferEngine.wrap(e, plan.config().seed());
        MasterChannel ch = fault.kind() == Fault.MASTER_RESTART ? channel(options.timeout()) : service;
        client = new StoreClient("bundled/" + plan.transportName() + " (fault cell: " + fault.kind().label() + ")", ch, clientEngine, options, this);
    }

    StoreClient client() { return client; }

    FaultInjectingTransferEngine clientEngine() { return clientEngine; }

    MasterService service() { return service; }

    List<String> segmentNames() { return segmentNames; }

    // ---------------------------------------------------------------- the faults' actions (on the fault thread)

    /** SIGKILLs the node processes {@code which}; returns how many died. */
    int kill(List<Integer> which) throws InterruptedException {
        int n = 0;
        for (int i : which) {
            Process p = processes.get(i);
            p.destroyForcibly(); // SIGKILL
            if (p.waitFor(10, TimeUnit.SECONDS)) n++;
        }
        return n;
    }

    /** Seconds until the master no longer lists the segments of nodes {@code which} (polls; -1 if it did not within the limit). */
    double awaitUnmounted(List<Integer> which, Duration limit) throws InterruptedException {
        long t0 = System.nanoTime(), until = t0 + limit.toNanos();
        while (System.nanoTime() < until && !closed) {
            boolean any = false;
            Master master = service.master();
            for (SegmentInfo s : master.segments()) for (int i : which) any |= s.name().equals(segmentNames.get(i));
            if (!any) return (System.nanoTime() - t0) / 1e9;
            Thread.sleep(20);
        }
        return -1;
    }

    /**
     * Flips one byte in a {@code fraction} of the {@code stride}-byte stretches of each node's segment in {@code which}
     * (seeded); every object overlapping a flipped stretch is corrupt. Returns the stretches flipped.
     */
    long corrupt(List<Integer> which, double fraction, long stride) {
        long flipped = 0;
        for (int i : which) {
            MemorySegment m = nodes.get(i).segment().memory();
            SplittableRandom r = new SplittableRandom(plan.config().seed() * 31 + i);
            for (long off = 0; off < m.byteSize(); off += stride) {
                if (r.nextDouble() >= fraction) continue;
                long at = off + r.nextLong(Math.min(stride, m.byteSize() - off));
                m.set(ValueLayout.JAVA_BYTE, at, (byte) ~m.get(ValueLayout.JAVA_BYTE, at));
                flipped++;
            }
        }
        return flipped;
    }

    /** Kills the master process (SIGKILL: its metadata is gone), waits {@code downtime}, starts a fresh one on the same port. */
    void restartMaster(Duration downtime) throws IOException, InterruptedException {
        Process p = masterProcess;
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        Thread.sleep(downtime.toMillis());
        startMaster(port);
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        for (StorageNode n : nodes) {
            try {
                n.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        for (Process p : processes) p.destroyForcibly();
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (clientEngine != null) clientEngine.close();
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        if (server != null) server.close();
        if (service != null) service.close();
        Process m = masterProcess;
        if (m != null) {
            m.destroyForcibly();
            try {
                m.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static UncheckedIOException unchecked(IOException e) {
        return new UncheckedIOException(e);
    }
}
