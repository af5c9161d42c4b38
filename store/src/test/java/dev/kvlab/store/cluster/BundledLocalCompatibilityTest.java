package dev.kvlab.store.cluster;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.internal.cluster.EmbeddedCluster;
import dev.kvlab.store.testkit.KvBackendCompatibilityKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The compatibility kit against an embedded cluster over the in-process transport, control plane in process. */
class BundledLocalCompatibilityTest extends KvBackendCompatibilityKit {

    static EmbeddedCluster cluster;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.start(EmbeddedCluster.Settings.of("local", 2, 64L << 20), null);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Override
    protected KvBackend open(BackendOptions options) {
        return cluster.client(options);
    }
}
