package dev.kvlab.workloads.api;

import java.util.Arrays;
import java.util.Objects;

/**
 * One inference request as every workload source produces it.
 *
 * @param id            position in its workload, 0-based
 * @param arrivalNanos  intended arrival time, nanoseconds from the start of the workload; all latencies are measured from it
 * @param session       conversation / user / document id (requests of one session share history)
 * @param inputTokens   prompt tokens
 * @param outputTokens  tokens to generate (>= 0; 0 is a prefill-only request, as some traces record: a serving
 *                      model still emits the first token, so it serves it as 1)
 * @param blockTokens   tokens per KV block
 * @param blockKeys     chained keys of the prompt's blocks, {@code ceil(inputTokens / blockTokens)} of them (see {@link BlockKeys});
 *                      the last block may be partial. Not copied: treat as read-only.
 * @param namespace     model, dtype, TP layout, LoRA, tenant
 */
public record Request(
        long id,
        long arrivalNanos,
        String session,
        int inputTokens,
        int outputTokens,
        int blockTokens,
        long[] blockKeys,
        Namespace namespace) {

    public Request {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(blockKeys, "blockKeys");
        Objects.requireNonNull(namespace, "namespace");
        if (inputTokens < 1) throw new IllegalArgumentException("inputTokens must be >= 1, got " + inputTokens);
        if (outputTokens < 0) throw new IllegalArgumentException("outputTokens must be >= 0, got " + outputTokens);
        if (blockTokens < 1) throw new IllegalArgumentException("blockTokens must be >= 1, got " + blockTokens);
        long want = (inputTokens + (long) blockTokens - 1) / blockTokens;
        if (blockKeys.length != want)
            throw new IllegalArgumentException("request " + id + ": " + blockKeys.length + " block keys for "
                    + inputTokens + " tokens at " + blockTokens + " tokens per block (want " + want + ")");
    }

    /** Blocks that are completely filled by the prompt (only these are written back to caches). */
    public int fullBlocks() {
        return inputTokens / blockTokens;
    }

    /** The same request at another intended arrival time (arrival processes re-time sources). */
    public Request withArrivalNanos(long nanos) {
        return new Request(id, nanos, session, inputTokens, outputTokens, blockTokens, blockKeys, namespace);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Request r
                && id == r.id
                && arrivalNanos == r.arrivalNanos
                && inputTokens == r.inputTokens
                && outputTokens == r.outputTokens
                && blockTokens == r.blockTokens
                && session.equals(r.session)
                && Arrays.equals(blockKeys, r.blockKeys)
                && namespace.equals(r.namespace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                id,
                arrivalNanos,
                session,
                inputTokens,
                outputTokens,
                blockTokens,
                Arrays.hashCode(blockKeys),
                namespace);
    }

    @Override
    public String toString() {
        return "Request[id=" + id + ", arrivalNanos=" + arrivalNanos + ", session=" + session + ", in=" + inputTokens
                + ", out=" + outputTokens + ", blocks=" + blockKeys.length + ", ns=" + namespace + "]";
    }
}
