package dev.kvlab.store.internal.server;

import dev.kvlab.store.internal.node.StorageNode;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * The meters of a storage node process ({@code kvlab store node}), on the registry given, tagged {@code node}:
 * {@code kvlab.node.segment.bytes} (the segment it contributes), {@code kvlab.node.mounted} (1 while the master
 * has it mounted), {@code kvlab.node.master.errors} (1 while its last call to the master failed), plus the JVM's
 * memory, threads, CPU and uptime. The objects themselves are the master's business: its endpoint has them.
 */
public final class NodeMeters {

    private NodeMeters() {}

    public static void bind(MeterRegistry registry, StorageNode node, String transport) {
        Gauge.builder("kvlab.node.segment.bytes", node, n -> n.segment().size())
                .baseUnit("bytes")
                .description("size of the segment this node contributes")
                .tag("node", node.nodeId())
                .tag("transport", transport)
                .strongReference(true)
                .register(registry);
        Gauge.builder("kvlab.node.mounted", node, n -> n.mounted() ? 1 : 0)
                .description("1 while the master has the segment mounted")
                .tag("node", node.nodeId())
                .strongReference(true)
                .register(registry);
        Gauge.builder("kvlab.node.master.errors", node, n -> n.lastError().isEmpty() ? 0 : 1)
                .description("1 while the last call to the master failed")
                .tag("node", node.nodeId())
                .strongReference(true)
                .register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }
}
