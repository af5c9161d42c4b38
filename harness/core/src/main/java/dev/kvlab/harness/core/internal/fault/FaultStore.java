package dev.kvlab.harness.core.internal.fault;

import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.FaultPlan;
import dev.kvlab.store.BreakableStore;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.server.BreakableStoreLaunch;
import dev.kvlab.transport.api.DurationSpec;
import java.time.Duration;
import java.util.UUID;

/**
 * The store of a live fault cell: the store's {@link BreakableStore} laid out for the fault. For {@code node-crash}
 * every node is a separate storage node process (so that a crash is a real SIGKILL); otherwise nodes live in this JVM
 * (so that {@code corrupt} can flip bytes in a node's registered segment). For {@code master-restart} the master is a
 * child process (killed and started again on the same port) and nodes and client talk to it over gRPC, so that they
 * see it go and come back; otherwise the master lives in this JVM. The master forgets a silent node after the fault
 * plan's liveness TTL.
 */
final class FaultStore {

    /** The nodes' liveness ping. */
    static final Duration PING = Duration.ofMillis(250);

    private FaultStore() {}

    static BreakableStore start(CellPlan plan, FaultPlan fault, BackendOptions options) {
        return BreakableStore.start(launch(plan, fault), options);
    }

    static BreakableStoreLaunch launch(CellPlan plan, FaultPlan fault) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        return new BreakableStoreLaunch(
                plan.masterConfig().withClientTtl(Duration.ofNanos(fault.livenessNanos())),
                DurationSpec.parse(plan.config().store().leaseTtl()),
                fault.kind() == Fault.MASTER_RESTART,
                fault.kind() == Fault.NODE_CRASH,
                plan.config().store().nodes(),
                plan.storeCapacity() / plan.config().store().nodes(),
                plan.transportName(),
                PING,
                "fault-" + run,
                "bundled/" + plan.transportName() + " (fault cell: "
                        + fault.kind().label() + ")",
                plan.config().seed());
    }
}
