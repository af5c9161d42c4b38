package dev.kvlab.store.internal.cluster;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.internal.client.StoreClient;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.node.StorageNode;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A whole store in one JVM: a master ({@link MasterService} over {@link StoreMaster}) and N storage nodes,
 * each with its own {@link TransferEngine} of the chosen transport; clients get their own engine, so every
 * byte crosses the transport (for {@code tcp}, real loopback sockets). The control plane is in-process calls
 * by default; {@link Settings#control} {@code grpc} puts a loopback gRPC server in between.
 */
public final class EmbeddedCluster implements AutoCloseable {

    /**
     * @param transport    data-plane transport name
     * @param nodes        storage nodes
     * @param segmentBytes segment each node contributes
     * @param master       master settings
     * @param clock        the master's clock
     * @param pingInterval nodes' liveness ping (null: nodes do not ping; tests drive {@link StorageNode#pingOnce()})
     * @param tickInterval master housekeeping (null: none; tests call {@link StoreMaster#tick()})
     * @param transportConfig settings for every engine
     */
    public record Settings(
            String transport,
            int nodes,
            long segmentBytes,
            MasterConfig master,
            Clock clock,
            Duration pingInterval,
            Duration tickInterval,
            TransportConfig transportConfig) {
        public Settings {
            Objects.requireNonNull(transport, "transport");
            if (nodes < 1) throw new IllegalArgumentException("nodes must be >= 1");
            if (segmentBytes <= 0) throw new IllegalArgumentException("segment size must be > 0");
            Objects.requireNonNull(master, "master");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(transportConfig, "transportConfig");
        }

        public static Settings of(String transport, int nodes, long segmentBytes) {
            return new Settings(
                    transport,
                    nodes,
                    segmentBytes,
                    MasterConfig.defaults(),
                    Clock.systemUTC(),
                    Duration.ofSeconds(1),
                    Duration.ofMillis(250),
                    TransportConfig.defaults());
        }

        public Settings withMaster(MasterConfig v) {
            return new Settings(transport, nodes, segmentBytes, v, clock, pingInterval, tickInterval, transportConfig);
        }

        public Settings withClock(Clock v) {
            return new Settings(transport, nodes, segmentBytes, master, v, pingInterval, tickInterval, transportConfig);
        }

        public Settings withPingInterval(Duration v) {
            return new Settings(transport, nodes, segmentBytes, master, clock, v, tickInterval, transportConfig);
        }

        public Settings withTickInterval(Duration v) {
            return new Settings(transport, nodes, segmentBytes, master, clock, pingInterval, v, transportConfig);
        }

        public Settings withTransportConfig(TransportConfig v) {
            return new Settings(transport, nodes, segmentBytes, master, clock, pingInterval, tickInterval, v);
        }
    }

    private final Settings settings;
    private final MasterService service;
    private final List<StorageNode> nodes = new ArrayList<>();
    private final List<TransferEngine> engines = new ArrayList<>();
    private final Transports transports = Transports.discover();

    private EmbeddedCluster(Settings settings, MeterRegistry registry) {
        this.settings = settings;
        this.service = new MasterService(new StoreMaster(settings.master(), settings.clock()), registry);
    }

    /** Starts a cluster; closes what it started if a part fails. */
    public static EmbeddedCluster start(Settings settings, MeterRegistry registry) {
        EmbeddedCluster c = new EmbeddedCluster(settings, registry == null ? new SimpleMeterRegistry() : registry);
        try {
            String run = UUID.randomUUID().toString().substring(0, 8);
            for (int i = 0; i < settings.nodes(); i++) {
                TransferEngine e = c.newEngine();
                Duration ping = settings.pingInterval() == null ? Duration.ofDays(365) : settings.pingInterval();
                StorageNode n = new StorageNode(c.service, e, "node" + i + "-" + run, settings.segmentBytes(), ping);
                c.nodes.add(n);
                n.start();
            }
            if (settings.tickInterval() != null) c.service.startHousekeeping(settings.tickInterval());
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private synchronized TransferEngine newEngine() {
        TransferEngine e = transports.create(settings.transport(), settings.transportConfig());
        engines.add(e);
        return e;
    }

    public Settings settings() {
        return settings;
    }

    public MasterService service() {
        return service;
    }

    public StoreMaster master() {
        return service.master();
    }

    public List<StorageNode> nodes() {
        return List.copyOf(nodes);
    }

    /** A client of this cluster over a channel of the caller's choice (the service itself for in-process calls). */
    public StoreClient client(MasterChannel channel, BackendOptions options, AutoCloseable onClose) {
        TransferEngine inner = newEngine();
        TransferEngine e = BackendExtras.clientEngine(inner, options);
        AutoCloseable closeAll = () -> {
            synchronized (this) {
                engines.remove(inner);
            }
            e.close();
            if (onClose != null) onClose.close();
        };
        return new StoreClient("bundled/" + settings.transport(), channel, e, options, closeAll);
    }

    /** A client calling the master in process. */
    public StoreClient client(BackendOptions options) {
        return client(service, options, null);
    }

    /**
     * Flips one byte in every replica of {@code tenant/key} that lives on a node of this cluster (the {@code corrupt}
     * fault); returns how many replicas were hit. The lookup grants a lease like any read.
     */
    public int corrupt(String tenant, String key) {
        dev.kvlab.store.api.master.ReplicaList l = master().getReplicaList(tenant + "/" + key);
        int n = 0;
        for (dev.kvlab.store.api.master.Replica r : l.replicas()) {
            for (StorageNode node : nodes) {
                if (!node.segmentName().equals(r.segment()) || !node.mounted()) continue;
                java.lang.foreign.MemorySegment mem = node.segment().memory();
                long at = r.offset() + r.length() / 2;
                mem.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, (byte)
                        ~mem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at));
                n++;
            }
        }
        return n;
    }

    /** Kills node {@code i} as a crash would: no unmount, its memory gone. */
    public void killNode(int i) {
        nodes.get(i).kill();
    }

    @Override
    public synchronized void close() {
        service.close();
        for (StorageNode n : nodes) {
            try {
                n.close();
            } catch (RuntimeException ignored) {
                // killed already
            }
        }
        nodes.clear();
        for (TransferEngine e : engines) {
            try {
                e.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        engines.clear();
    }
}
