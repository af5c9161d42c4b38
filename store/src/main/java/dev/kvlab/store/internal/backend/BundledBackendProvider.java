package dev.kvlab.store.internal.backend;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.master.AllocationStrategy;
import dev.kvlab.store.api.master.MasterConfig;
import dev.kvlab.store.internal.cluster.EmbeddedCluster;
import dev.kvlab.store.spi.KvBackendProvider;
import dev.kvlab.transport.api.TransportConfig;

/**
 * {@code bundled}: an embedded cluster (master + {@code nodes} storage nodes in this JVM) and a client of it; closing
 * the client stops the cluster. Extras: {@code strategy} (random | free-ratio-first), {@code seed}.
 */
public final class BundledBackendProvider implements KvBackendProvider {

    @Override
    public String name() { return "bundled"; }

    @Override
    public boolean accepts(String spec) {
        return "bundled".equals(spec);
    }

    @Override
    public KvBackend open(String spec, BackendOptions options) {
        MasterConfig mc = MasterConfig.defaults();
        String strategy = options.extra().get("strategy");
        if (strategy != null) mc = mc.withStrategy(AllocationStrategy.parse(strategy));
        String seed = options.extra().get("seed");
        if (seed != null) mc = mc.withSeed(Long.parseLong(seed));
        TransportConfig tc = TransportConfig.defaults().withTimeout(options.timeout());
        EmbeddedCluster.Settings s = EmbeddedCluster.Settings.of(options.transport(), options.nodes(), options.segmentBytes())
                .withMaster(mc).withTransportConfig(tc);
        EmbeddedCluster cluster = EmbeddedCluster.start(s, null);
        try {
            return cluster.client(cluster.service(), options, cluster);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }
}
