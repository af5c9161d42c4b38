package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.internal.common.BatchProgress;
import dev.kvlab.transport.internal.common.Deadlines;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tcp transport: real sockets with blocking NIO channels and platform threads (no event loop, no
 * staging buffers). A target serves its segments from a {@link TcpServer}; an initiator keeps a
 * {@link PeerPool} of several connections per peer and spreads the slices of each batch over them. Bytes go
 * from the target segment into the kernel and from the kernel straight into the initiator's buffer (and the
 * reverse for WRITE). Wire format: {@code transport/WIRE.md}.
 *
 * <p>Garbage: nothing is allocated per request or per slice by this code (rings, views and headers are reused).
 * The JDK's scattering and gathering socket calls do allocate two small session-bookkeeping objects (~56 bytes)
 * per {@link MemorySegment}-backed buffer per call, about 80 bytes per 64 KiB slice (0.1% of the bytes moved);
 * avoiding them would take a second system call per slice, which costs far more.
 *
 * <p>Options: {@code tcp.port} (listen port, default ephemeral), {@code tcp.advertiseHost} (host put in
 * handles when bound to a wildcard address), {@code tcp.socketBuffer} (SO_SNDBUF/SO_RCVBUF bytes; default 0 =
 * kernel autotuning).
 */
public final class TcpTransferEngine implements TransferEngine {

    private final String id = UUID.randomUUID().toString().substring(0, 8);
    private final TransportConfig config;
    private final ConcurrentHashMap<String, PeerPool> pools = new ConcurrentHashMap<>();
    private final Arena buffers = Arena.ofShared();
    private final Deadlines deadlines;
    private volatile TcpServer server;
    private volatile boolean closed;

    TcpTransferEngine(TransportConfig config) {
        this.config = config;
        int payload = maxPayload(config);
        if (config.sliceSize() > payload)
            throw new IllegalArgumentException(
                    "tcp: slice size " + config.sliceSize() + " exceeds the largest frame payload " + payload
                            + " (maxFrameBytes " + config.maxFrameBytes() + " minus the 32-byte header)");
        this.deadlines = new Deadlines("kvlab-tcp-" + id, config.timeout(), this::expired);
    }

    static int maxPayload(TransportConfig config) {
        return config.maxFrameBytes() - Wire.REQUEST_BYTES;
    }

    static int intOption(TransportConfig config, String key, int fallback, int min, int max) {
        String v = config.options().get(key);
        if (v == null) return fallback;
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(
                "option " + key + " must be an integer in " + min + ".." + max + ", got '" + v + "'");
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public boolean emulated() {
        return false;
    }

    @Override
    public String copySemantics() {
        return "READ: target segment -> kernel socket buffer -> initiator buffer; WRITE: the reverse"
                + " (2 CPU copies + kernel TCP, no user-space staging; " + config.connectionsPerPeer()
                + " connections per peer)";
    }

    private TcpServer server() {
        TcpServer s = server;
        if (s == null) {
            synchronized (this) {
                ensureOpen();
                if (server == null) server = new TcpServer(config, id);
                s = server;
            }
        }
        return s;
    }

    @Override
    public Segment registerSegment(String name, long bytes) {
        ensureOpen();
        return server().register(name, bytes);
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        ensureOpen();
        return buffers.allocate(bytes, 4096);
    }

    @Override
    public RemoteSegment openSegment(SegmentHandle handle) {
        ensureOpen();
        if (!"tcp".equals(handle.transport()))
            throw new IllegalArgumentException(
                    "not a tcp segment: " + handle + " (the tcp transport opens tcp://host:port/name handles)");
        InetSocketAddress address = parseAddress(handle);
        PeerPool pool = pools.computeIfAbsent(
                address.getHostString() + ":" + address.getPort(), k -> new PeerPool(this, address, config));
        long[] idSize = pool.open(handle.segment());
        return new TcpRemoteSegment(handle, pool, (int) idSize[0], Math.min(idSize[1], handle.size()));
    }

    private static InetSocketAddress parseAddress(SegmentHandle handle) {
        String a = handle.address();
        int colon = a.lastIndexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("tcp handle has no host:port: " + handle);
        String host = a.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        try {
            int port = Integer.parseInt(a.substring(colon + 1));
            if (port < 1 || port > 65535) throw new NumberFormatException();
            return new InetSocketAddress(host, port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("tcp handle has a bad port: " + handle);
        }
    }

    @Override
    public CompletableFuture<TransferBatch> submit(TransferBatch batch) {
        ensureOpen();
        PeerPool first = null;
        boolean several = false;
        for (int i = 0; i < batch.size(); i++) {
            if (!(batch.target(i) instanceof TcpRemoteSegment r) || r.pool().engine != this)
                throw new IllegalArgumentException("request " + i + " targets "
                        + batch.target(i).handle() + ", which this tcp engine did not open");
            if (first == null) first = r.pool();
            else if (r.pool() != first) several = true;
        }
        BatchProgress p =
                new BatchProgress(batch, config.sliceSize(), config.timeout().toNanos());
        if (p.totalSlices() == 0) {
            p.complete();
            return p.future;
        }
        deadlines.add(p);
        try {
            if (!several) {
                first.submit(new PoolCursor(p, first));
            } else {
                for (PeerPool pool : poolsOf(batch)) pool.submit(new PoolCursor(p, pool));
            }
        } catch (TransferException e) {
            failBatch(p, TransferStatus.FAILED, e);
        }
        return p.future;
    }

    private static java.util.List<PeerPool> poolsOf(TransferBatch batch) {
        java.util.List<PeerPool> out = new java.util.ArrayList<>(2);
        for (int i = 0; i < batch.size(); i++) {
            PeerPool pool = ((TcpRemoteSegment) batch.target(i)).pool();
            if (!out.contains(pool)) out.add(pool);
        }
        return out;
    }

    /** The last slice of {@code p} arrived. */
    void finish(BatchProgress p) {
        deadlines.remove(p);
        p.complete();
    }

    /**
     * Fails {@code p} after stopping every pool it used (so nothing touches its buffers after the future
     * completes). Pools already stopped return at once.
     */
    void failBatch(BatchProgress p, TransferStatus status, TransferException cause) {
        if (p.isDone()) return;
        PeerPool only = null;
        boolean several = false;
        for (int i = 0; i < p.batch.size(); i++) {
            PeerPool pool = ((TcpRemoteSegment) p.batch.target(i)).pool();
            if (only == null) only = pool;
            else if (pool != only) several = true;
        }
        if (several) for (PeerPool pool : poolsOf(p.batch)) pool.stop(cause, null);
        deadlines.remove(p);
        p.fail(p.failStatus(status), cause);
    }

    private void expired(BatchProgress p) {
        p.markTimedOut();
        TransferException cause = Deadlines.timeoutException(p);
        for (PeerPool pool : poolsOf(p.batch)) pool.stop(cause, null);
        deadlines.remove(p);
        p.fail(TransferStatus.TIMEOUT, cause);
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("the tcp transfer engine is closed");
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        TransferException cause = new TransferException("transfer engine closed");
        for (PeerPool pool : pools.values()) pool.stop(cause, null);
        pools.clear();
        deadlines.close();
        for (BatchProgress p : deadlines.drain()) p.fail(TransferStatus.FAILED, cause);
        TcpServer s = server;
        if (s != null) s.close();
        buffers.close();
    }
}
