package dev.kvlab.store;

import dev.kvlab.store.api.server.LaunchRefusedException;
import dev.kvlab.store.api.server.NodeLaunch;
import dev.kvlab.store.api.server.TokenRefusedException;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.ha.EtcdMasterChannel;
import dev.kvlab.store.internal.ha.EtcdSpec;
import dev.kvlab.store.internal.node.StorageNode;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.server.Loopback;
import dev.kvlab.store.internal.server.MetricsHttpServer;
import dev.kvlab.store.internal.server.NodeMeters;
import dev.kvlab.store.internal.server.ParentWatch;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Starts a storage node in this JVM ({@code kvlab store node}, and a fault cell's node child) in two steps:
 * {@link #create} registers the segment with the transport and opens the channel to the master and the Prometheus
 * endpoint; {@link Running#mount} mounts the segment at the master, retrying while the master is not reachable, and
 * starts the liveness ping. {@link Running#close()} stops everything.
 */
public final class NodeLauncher {

    private NodeLauncher() {}

    /** A node's parts: close it to unmount (by going silent) and free the segment. */
    public static final class Running implements AutoCloseable {
        private final NodeLaunch launch;
        private final TransferEngine engine;
        private final MasterChannel channel;
        private final StorageNode node;
        private final MetricsHttpServer metrics;

        private Running(
                NodeLaunch launch,
                TransferEngine engine,
                MasterChannel channel,
                StorageNode node,
                MetricsHttpServer metrics) {
            this.launch = launch;
            this.engine = engine;
            this.channel = channel;
            this.node = node;
            this.metrics = metrics;
        }

        /** The name the segment is mounted under at the master. */
        public String segmentName() {
            return node.segmentName();
        }

        /** Where the transport serves the segment (its handle's URI). */
        public String segmentUri() {
            return node.segment().handle().toUri();
        }

        public int metricsPort() {
            return metrics.port();
        }

        /**
         * Mounts the segment, retrying every second while the master cannot be reached ({@code notYet} is told each
         * time); watches the launch's parent process from the start. {@link IllegalStateException}: the master refused
         * the segment's name; {@link TokenRefusedException}: it refused the token (final; the node is closed).
         */
        public void mount(Consumer<RuntimeException> notYet) throws InterruptedException {
            ParentWatch.exitWith(launch.parentPid()); // also while waiting for a master that died with the parent
            while (true) {
                try {
                    node.start();
                    return;
                } catch (RuntimeException e) {
                    if (e instanceof IllegalStateException) throw e; // name conflict
                    if (refusedToken(e)) { // final: retrying with the same token cannot succeed
                        node.close();
                        channel.close();
                        engine.close();
                        throw new TokenRefusedException(
                                "master " + launch.masterName() + " refused this node's auth token");
                    }
                    notYet.accept(e);
                    Thread.sleep(1000);
                }
            }
        }

        @Override
        public void close() {
            metrics.close();
            node.close();
            channel.close();
            engine.close();
        }
    }

    /**
     * Creates the node of {@code l} (not yet mounted). {@link LaunchRefusedException}: an endpoint off loopback
     * without a token (message naming it); {@link OutOfMemoryError}: the segment could not be allocated (nothing is left open).
     */
    public static Running create(NodeLaunch l, Transports transports) throws IOException {
        String metricsBind = MetricsHttpServer.check(l.metricsHost(), l.token(), l.metricsPublic());
        if (metricsBind != null) throw new LaunchRefusedException(metricsBind, null);
        if (l.token() == null && !Loopback.only(l.bind()))
            throw new LaunchRefusedException(
                    "--bind " + l.bind()
                            + " is not a loopback address: the data plane then needs an auth token (KVLAB_STORE_TOKEN or --token-file)",
                    null);
        TransferEngine engine = transports.create(
                l.transport(), TransportConfig.defaults().withBindHost(l.bind()).withAuthToken(l.token()));
        MasterChannel channel;
        try {
            channel = l.etcd() != null
                    ? new EtcdMasterChannel(EtcdSpec.parse(l.etcd()), Duration.ofSeconds(5), l.token())
                    : new GrpcMasterChannel(l.masterHost(), l.masterPort(), Duration.ofSeconds(5), l.token());
        } catch (IllegalArgumentException e) {
            engine.close();
            throw new LaunchRefusedException("--master: " + e.getMessage(), e);
        }
        StorageNode node;
        try {
            node = new StorageNode(channel, engine, l.nodeId(), l.segmentBytes(), l.ping());
        } catch (OutOfMemoryError e) {
            channel.close();
            engine.close();
            throw e;
        }
        if (channel instanceof EtcdMasterChannel e)
            e.onLeaderChange(node::remountSoon); // register the segment with each new leader
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        NodeMeters.bind(registry, node, l.transport());
        MetricsHttpServer http = new MetricsHttpServer(
                registry,
                l.metricsHost(),
                l.metricsPort(),
                MasterLauncher.metricsToken(l.metricsHost(), l.token(), l.metricsPublic()));
        return new Running(l, engine, channel, node, http);
    }

    /** True when the master refused the call for its token (gRPC UNAUTHENTICATED). */
    public static boolean refusedToken(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof SecurityException) return true;
        return false;
    }
}
