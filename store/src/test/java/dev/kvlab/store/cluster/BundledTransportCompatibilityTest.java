package dev.kvlab.store.cluster;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.internal.cluster.EmbeddedCluster;
import dev.kvlab.store.testkit.KvBackendCompatibilityKit;
import dev.kvlab.transport.Transports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Nested;

/** The compatibility kit against embedded clusters over each real transport (skipped while a transport is not built yet). */
class BundledTransportCompatibilityTest {

    abstract static class Over extends KvBackendCompatibilityKit {
        private static final java.util.Map<String, EmbeddedCluster> CLUSTERS =
                new java.util.concurrent.ConcurrentHashMap<>();

        abstract String transport();

        @Override
        protected KvBackend open(BackendOptions options) {
            Assumptions.assumeTrue(
                    Transports.discover().names().contains(transport()),
                    "transport " + transport() + " is not available yet");
            EmbeddedCluster c = CLUSTERS.computeIfAbsent(
                    transport(), t -> EmbeddedCluster.start(EmbeddedCluster.Settings.of(t, 2, 64L << 20), null));
            return c.client(options.withTransport(transport()));
        }

        static void stopAll() {
            CLUSTERS.values().forEach(EmbeddedCluster::close);
            CLUSTERS.clear();
        }
    }

    @AfterAll
    static void stop() {
        Over.stopAll();
    }

    @Nested
    class Tcp extends Over {
        @Override
        String transport() {
            return "tcp";
        }
    }

    @Nested
    class Shm extends Over {
        @Override
        String transport() {
            return "shm";
        }
    }

    @Nested
    class RdmaEmu extends Over {
        @Override
        String transport() {
            return "rdma-emu";
        }
    }
}
