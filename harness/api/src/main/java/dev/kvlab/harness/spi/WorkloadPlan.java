package dev.kvlab.harness.spi;

import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.WorkloadSpec;

/**
 * A validated workload: what requests (trace or generator), when (arrival process), in which namespace.
 *
 * @param spec        trace or generator
 * @param arrival     arrival process
 * @param namespace   model, KV dtype, TP layout, LoRA, tenant of every block key
 * @param blockTokens tokens per block the requests will have
 * @param passes      the generated workload this many times over ({@code workload.passes})
 */
public record WorkloadPlan(WorkloadSpec spec, ArrivalSpec arrival, Namespace namespace, int blockTokens, int passes) {

    /** Opens the workload's arrival process with {@code seed}. */
    public ArrivalProcess open(long seed) {
        return Workloads.schedule(spec, passes, arrival, namespace, seed);
    }

    /** The requests without their arrival process ({@code passes} included). */
    public dev.kvlab.workloads.api.RequestSource requests(long seed) {
        return Workloads.open(spec, passes, namespace, seed);
    }

    /** Opens the first {@code n} requests only (a warm-up pass); traces and generators alike. */
    public ArrivalProcess open(long seed, long n) {
        WorkloadSpec s = spec;
        if (s instanceof WorkloadSpec.Trace t) {
            s = new WorkloadSpec.Trace(
                    t.path(), t.blockTokens(), t.ignoreUnknownFields(), t.limit() == 0 ? n : Math.min(n, t.limit()));
            return Workloads.schedule(s, arrival, namespace, seed);
        }
        return new LimitedProcess(Workloads.schedule(s, passes, arrival, namespace, seed), n);
    }

    public String describe() {
        String what = spec instanceof WorkloadSpec.Trace t
                ? "trace " + t.path() + (t.limit() > 0 ? " (first " + t.limit() + ")" : "")
                : "generator " + spec + (passes > 1 ? " x " + passes + " passes" : "");
        return what + "; arrival " + arrival.describe() + spread() + "; namespace " + namespace.model() + "/"
                + namespace.kvDtype() + "/" + namespace.tpLayout() + "/" + namespace.lora() + "/" + namespace.tenant();
    }

    /** What trace replay made of the stamps (a detected tick); empty for generators and other processes. */
    private String spread() {
        if (!(spec instanceof WorkloadSpec.Trace)) return "";
        String how = Workloads.spreadDescription(spec, arrival, namespace);
        return how == null ? "" : " " + how;
    }

    /** An arrival process cut after {@code n} releases. */
    private static final class LimitedProcess implements ArrivalProcess {
        private final ArrivalProcess p;
        private long left;

        LimitedProcess(ArrivalProcess p, long n) {
            this.p = p;
            this.left = n;
        }

        @Override
        public long nextReleaseNanos() {
            return left > 0 ? p.nextReleaseNanos() : NONE;
        }

        @Override
        public Release release() {
            left--;
            return p.release();
        }

        @Override
        public void complete(long requestId, long nanos) {
            p.complete(requestId, nanos);
        }

        @Override
        public int inFlight() {
            return p.inFlight();
        }

        @Override
        public boolean exhausted() {
            return left <= 0 || p.exhausted();
        }

        @Override
        public String describe() {
            return p.describe() + " (first " + left + ")";
        }

        @Override
        public void close() {
            p.close();
        }
    }
}
