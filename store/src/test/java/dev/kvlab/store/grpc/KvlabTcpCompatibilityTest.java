package dev.kvlab.store.grpc;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.testkit.GrpcStoreCluster;
import dev.kvlab.store.testkit.KvBackendCompatibilityKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The compatibility kit through {@code kvlab://} (gRPC control plane on loopback), nodes serving over real tcp sockets. */
class KvlabTcpCompatibilityTest extends KvBackendCompatibilityKit {

    static GrpcStoreCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = GrpcStoreCluster.start("tcp", 2, 64L << 20);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Override
    protected BackendOptions baseOptions() {
        return BackendOptions.defaults().withTransport("tcp");
    }

    @Override
    protected KvBackend open(BackendOptions options) {
        return KvBackends.discover().open(cluster.uri(), options);
    }
}
