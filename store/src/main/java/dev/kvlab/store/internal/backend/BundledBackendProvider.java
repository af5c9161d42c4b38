package dev.kvlab.store.internal.backend;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.internal.cluster.BackendExtras;
import dev.kvlab.store.internal.cluster.EmbeddedCluster;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.spi.KvBackendProvider;
import dev.kvlab.transport.api.TransportConfig;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * {@code bundled}: an embedded cluster (master + {@code nodes} storage nodes in this JVM) and a client of it; closing
 * the client stops the cluster. Extras ({@link BackendExtras}): {@code control} ({@code inproc}: the client calls the
 * master in process [default]; {@code grpc}: through a loopback gRPC server, as an external cluster's clients do),
 * {@code strategy}, {@code seed}, {@code lease-ttl}, {@code client-ttl}, {@code read-delay}.
 */
public final class BundledBackendProvider implements KvBackendProvider {

    @Override
    public String name() {
        return "bundled";
    }

    @Override
    public boolean accepts(String spec) {
        return "bundled".equals(spec);
    }

    @Override
    public KvBackend open(String spec, BackendOptions options) {
        BackendExtras.check(options);
        MasterConfig mc = BackendExtras.masterConfig(options);
        TransportConfig tc = TransportConfig.defaults().withTimeout(options.timeout());
        EmbeddedCluster.Settings s = EmbeddedCluster.Settings.of(
                        options.transport(), options.nodes(), options.segmentBytes())
                .withMaster(mc)
                .withTransportConfig(tc);
        String control = options.extra().getOrDefault("control", "inproc");
        if (!control.equals("inproc") && !control.equals("grpc"))
            throw new IllegalArgumentException("unknown control plane '" + control + "' (use inproc or grpc)");
        EmbeddedCluster cluster = EmbeddedCluster.start(s, null);
        try {
            if (control.equals("inproc")) return cluster.client(cluster.service(), options, cluster);
            MasterServer server = MasterServer.start(cluster.service(), "127.0.0.1", 0, null);
            GrpcMasterChannel channel = new GrpcMasterChannel("127.0.0.1", server.port(), options.timeout(), null);
            return cluster.client(channel, options, () -> {
                channel.close();
                server.close();
                cluster.close();
            });
        } catch (IOException e) {
            cluster.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }
}
