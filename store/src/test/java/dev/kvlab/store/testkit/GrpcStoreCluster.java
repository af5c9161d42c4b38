package dev.kvlab.store.testkit;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.node.StorageNode;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A master behind a real loopback gRPC server and N storage nodes that reach it over gRPC, all in this JVM
 * (nodes over the given transport): what {@code kvlab://127.0.0.1:PORT} clients talk to in tests.
 */
public final class GrpcStoreCluster implements AutoCloseable {

    public final MasterService service;
    public final MasterServer server;
    public final List<StorageNode> nodes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    public GrpcStoreCluster(
            String transport,
            int nodeCount,
            long segmentBytes,
            MasterConfig config,
            Clock clock,
            MeterRegistry registry)
            throws IOException {
        service = new MasterService(
                new StoreMaster(config, clock), registry == null ? new SimpleMeterRegistry() : registry);
        server = MasterServer.start(service, "127.0.0.1", 0, null);
        String run = UUID.randomUUID().toString().substring(0, 6);
        for (int i = 0; i < nodeCount; i++) {
            TransferEngine e = Transports.discover().create(transport, TransportConfig.defaults());
            GrpcMasterChannel ch = new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), null);
            StorageNode n =
                    new StorageNode(ch, e, "gnode" + i + "-" + run, segmentBytes, Duration.ofSeconds(1)).start();
            nodes.add(n);
            closeables.add(n);
            closeables.add(ch);
            closeables.add(e);
        }
    }

    public static GrpcStoreCluster start(String transport, int nodes, long segmentBytes) throws IOException {
        return new GrpcStoreCluster(transport, nodes, segmentBytes, MasterConfig.defaults(), Clock.systemUTC(), null);
    }

    public String uri() {
        return "kvlab://127.0.0.1:" + server.port();
    }

    @Override
    public void close() {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        server.close();
        service.close();
    }
}
