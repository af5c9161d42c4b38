package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;

/** The largest request of a cell's workload, which sizes its contexts and transfer buffers. */
final class WorkloadExtent {

    private WorkloadExtent() {}

    /** {@code {most prompt tokens, most output tokens, most full prompt blocks}} over the workload's requests. */
    static int[] of(CellSpec spec) {
        int[] most = new int[3];
        try (RequestSource s = Workloads.open(
                spec.workload().spec(),
                spec.workload().namespace(),
                spec.config().seed())) {
            while (s.hasNext()) {
                Request r = s.next();
                most[0] = Math.max(most[0], r.inputTokens());
                most[1] = Math.max(most[1], Math.max(1, r.outputTokens()));
                most[2] = Math.max(most[2], r.fullBlocks());
            }
        }
        return most;
    }
}
