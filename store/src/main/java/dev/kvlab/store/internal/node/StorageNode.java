package dev.kvlab.store.internal.node;

import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferEngine;
import java.time.Duration;
import java.util.Objects;

/**
 * A storage node: registers one segment with its {@link TransferEngine} (so that clients READ and WRITE it
 * one-sidedly), mounts it at the master under a cluster-unique name, and pings the master every interval; when
 * the master does not know it any more (it was silent past the TTL, or the master restarted) it mounts again.
 * The node never touches the objects itself.
 */
public final class StorageNode implements AutoCloseable {

    private final MasterChannel master;
    private final TransferEngine engine;
    private final String nodeId;
    private final String segmentName;
    private final Segment segment;
    private final long pingMillis;
    private volatile Thread pinger;
    private volatile boolean mounted;
    private volatile String lastError = "";
    private volatile boolean remount;

    /** Registers the segment; {@link #start()} mounts it and starts pinging. */
    public StorageNode(
            MasterChannel master, TransferEngine engine, String nodeId, long segmentBytes, Duration pingInterval) {
        this.master = Objects.requireNonNull(master, "master");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        this.segmentName = nodeId + "-seg0";
        this.pingMillis = Math.max(1, pingInterval.toMillis());
        this.segment = engine.registerSegment(segmentName, segmentBytes);
    }

    public String nodeId() {
        return nodeId;
    }

    public String segmentName() {
        return segmentName;
    }

    public Segment segment() {
        return segment;
    }

    public TransferEngine engine() {
        return engine;
    }

    public boolean mounted() {
        return mounted;
    }

    public String lastError() {
        return lastError;
    }

    /** Mounts the segment (failing if the master refuses it) and starts the ping thread. */
    public synchronized StorageNode start() {
        MountStatus s = master.mount(
                nodeId, segmentName, segment.size(), segment.handle().toUri());
        if (s == MountStatus.CONFLICT)
            throw new IllegalStateException("the master refused segment " + segmentName + ": its name is taken");
        mounted = true;
        pinger = Thread.ofPlatform().daemon().name("kvlab-node-ping-" + nodeId).start(this::pingLoop);
        return this;
    }

    /** The next liveness round mounts the segment again whatever the ping says (a new leader: register with it). */
    public void remountSoon() {
        remount = true;
    }

    /** One liveness round: ping, and mount again when the master has forgotten this node (or a new leader took over). */
    public void pingOnce() {
        try {
            boolean again = remount;
            if (!master.ping(nodeId) || again) {
                MountStatus s = master.mount(
                        nodeId, segmentName, segment.size(), segment.handle().toUri());
                mounted = s != MountStatus.CONFLICT;
            }
            if (again) remount = false;
            lastError = "";
        } catch (RuntimeException e) {
            lastError = String.valueOf(e.getMessage());
        }
    }

    private void pingLoop() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(pingMillis);
            } catch (InterruptedException e) {
                return;
            }
            pingOnce();
        }
    }

    /** Simulates a crash in process: stops pinging and drops the memory without telling the master. */
    public synchronized void kill() {
        stopPinging();
        mounted = false;
        segment.close();
    }

    private void stopPinging() {
        Thread t = pinger;
        pinger = null;
        if (t != null) {
            t.interrupt();
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Leaves gracefully: unmounts (its replicas are dropped) and releases the segment. */
    @Override
    public synchronized void close() {
        stopPinging();
        if (mounted) {
            try {
                master.unmount(nodeId, segmentName);
            } catch (RuntimeException e) {
                // master gone: it will expire this node by itself
            }
            mounted = false;
        }
        segment.close();
    }
}
