package dev.kvlab.store;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.master.Master;
import dev.kvlab.store.api.master.SegmentInfo;
import dev.kvlab.store.api.server.BreakableStoreLaunch;
import dev.kvlab.store.internal.client.StoreClient;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.node.StorageNode;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.FaultableEngine;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A store built so that its parts can really break (a live fault cell's, {@link BreakableStoreLaunch}): a master (in
 * this JVM behind a loopback gRPC server, or a child process), N storage nodes (in this JVM, or child processes:
 * {@link StoreChildProcess}) and one client whose transfer engine is a {@link FaultableEngine}. The breaking is done
 * here: {@link #killNodes}, {@link #corrupt}, {@link #restartMaster}, {@link #link()}'s faults. Closing it (or its
 * client) stops everything.
 */
public final class BreakableStore implements AutoCloseable {

    private final BreakableStoreLaunch launch;
    private final List<Process> processes = new ArrayList<>();
    private final List<StorageNode> nodes = new ArrayList<>();
    private final List<String> segmentNames = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private volatile MasterService service;
    private volatile MasterServer server;
    private volatile Process masterProcess;
    private int port;
    private FaultableEngine clientEngine;
    private StoreClient client;
    private volatile boolean closed;

    private BreakableStore(BreakableStoreLaunch launch) {
        this.launch = launch;
    }

    /** Starts the master, the nodes (mounted) and the client of {@code l}; the client's calls take {@code options}. */
    public static BreakableStore start(BreakableStoreLaunch l, BackendOptions options) {
        BreakableStore s = new BreakableStore(l);
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
        if (launch.masterProcess()) {
            startMasterProcess(atPort);
            return;
        }
        MasterService s = Masters.service(launch.master(), Clock.systemUTC(), new SimpleMeterRegistry())
                .startHousekeeping(Duration.ofMillis(100));
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
            StoreChildProcess child = StoreChildProcess.master(
                    p,
                    launch.master().seed(),
                    launch.processLeaseTtl(),
                    launch.master().clientTtl());
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

    /** The master as this JVM's nodes and client call it: in process, or over gRPC to a master process. */
    private MasterChannel channel(Duration deadline) {
        if (!launch.masterProcess() && !launch.nodeProcesses()) return service;
        GrpcMasterChannel c = new GrpcMasterChannel("127.0.0.1", port, deadline, null);
        closeables.add(c);
        return c;
    }

    private void startNodes() throws IOException, InterruptedException {
        int n = launch.nodes();
        for (int i = 0; i < n; i++) segmentNames.add(launch.name() + "-n" + i + "-seg0");
        if (launch.nodeProcesses()) {
            CountDownLatch mounted = new CountDownLatch(n);
            List<StoreChildProcess> children = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                StoreChildProcess c = StoreChildProcess.node(
                        port,
                        launch.segmentBytes(),
                        launch.transport(),
                        launch.name() + "-n" + i,
                        launch.ping(),
                        mounted);
                children.add(c);
                processes.add(c.process());
            }
            if (!mounted.await(90, TimeUnit.SECONDS)) {
                throw new IllegalStateException("fault store: storage node processes did not mount within 90 s:\n"
                        + String.join(
                                "\n---\n",
                                children.stream().map(StoreChildProcess::log).toList()));
            }
        } else {
            Transports ts = Transports.discover();
            for (int i = 0; i < n; i++) {
                TransferEngine e = ts.create(launch.transport(), TransportConfig.defaults());
                closeables.add(e);
                StorageNode node = new StorageNode(
                        channel(Duration.ofSeconds(2)),
                        e,
                        launch.name() + "-n" + i,
                        launch.segmentBytes(),
                        launch.ping());
                nodes.add(node);
                node.start();
            }
        }
    }

    private void startClient(BackendOptions options) {
        TransferEngine e = Transports.discover()
                .create(launch.transport(), TransportConfig.defaults().withTimeout(options.timeout()));
        clientEngine = Transports.withLinkFaults(e, launch.seed());
        MasterChannel ch = launch.masterProcess() ? channel(options.timeout()) : service;
        client = new StoreClient(launch.clientName(), ch, clientEngine, options, this);
    }

    /** The store's client (closing it closes the store). */
    public KvBackend client() {
        return client;
    }

    /** The client's transfer engine, whose link can be broken. */
    public FaultableEngine link() {
        return clientEngine;
    }

    /** The nodes' segment names, node by node. */
    public List<String> segmentNames() {
        return segmentNames;
    }

    // ---------------------------------------------------------------- breaking it

    /** SIGKILLs the node processes {@code which} ({@code nodeProcesses}); returns how many died. */
    public int killNodes(List<Integer> which) throws InterruptedException {
        int n = 0;
        for (int i : which) {
            Process p = processes.get(i);
            p.destroyForcibly(); // SIGKILL
            if (p.waitFor(10, TimeUnit.SECONDS)) n++;
        }
        return n;
    }

    /**
     * Seconds until the master (in this JVM) no longer lists the segments of nodes {@code which} (polls; -1 if it did not
     * within {@code limit}).
     */
    public double awaitUnmounted(List<Integer> which, Duration limit) throws InterruptedException {
        long t0 = System.nanoTime(), until = t0 + limit.toNanos();
        while (System.nanoTime() < until && !closed) {
            boolean any = false;
            Master master = service.master();
            for (SegmentInfo s : master.segments())
                for (int i : which) any |= s.name().equals(segmentNames.get(i));
            if (!any) return (System.nanoTime() - t0) / 1e9;
            Thread.sleep(20);
        }
        return -1;
    }

    /**
     * Flips one byte in a {@code fraction} of the {@code stride}-byte stretches of each node's segment in {@code which}
     * (nodes in this JVM; node i's stretches drawn from {@code seed * 31 + i}); every object overlapping a flipped stretch
     * is corrupt. Returns the stretches flipped.
     */
    public long corrupt(List<Integer> which, double fraction, long stride) {
        long flipped = 0;
        for (int i : which) {
            MemorySegment m = nodes.get(i).segment().memory();
            SplittableRandom r = new SplittableRandom(launch.seed() * 31 + i);
            for (long off = 0; off < m.byteSize(); off += stride) {
                if (r.nextDouble() >= fraction) continue;
                long at = off + r.nextLong(Math.min(stride, m.byteSize() - off));
                m.set(ValueLayout.JAVA_BYTE, at, (byte) ~m.get(ValueLayout.JAVA_BYTE, at));
                flipped++;
            }
        }
        return flipped;
    }

    /**
     * Kills the master process ({@code masterProcess}; SIGKILL: its metadata is gone), waits {@code downtime}, starts a
     * fresh one on the same port.
     */
    public void restartMaster(Duration downtime) throws IOException, InterruptedException {
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
}
