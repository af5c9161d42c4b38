package dev.kvlab.workloads;

import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.BlockKeys;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;
import dev.kvlab.workloads.internal.arrival.ClosedLoopProcess;
import dev.kvlab.workloads.internal.arrival.OpenLoopProcess;
import dev.kvlab.workloads.internal.arrival.RetimedSource;
import dev.kvlab.workloads.internal.arrival.TickSpreadSource;
import dev.kvlab.workloads.internal.gen.ChatGenerator;
import dev.kvlab.workloads.internal.gen.DocQaGenerator;
import dev.kvlab.workloads.internal.gen.PassesSource;
import dev.kvlab.workloads.internal.gen.SharedPrefixGenerator;
import dev.kvlab.workloads.internal.gen.ZipfGenerator;
import java.nio.file.Path;
import java.util.NoSuchElementException;

/**
 * Opens workloads from their specs. Everything is validated first ({@link WorkloadFormatException} naming the
 * field as {@code workload.FIELD} / {@code arrival.FIELD}) and seeded: the same spec, namespace and seed give the
 * same requests and times. The generator and the arrival process draw from independent streams derived from the
 * seed.
 */
public final class Workloads {

    /** Pending requests a closed loop reads ahead to find one whose session is free. */
    public static final int CLOSED_LOOP_WINDOW = 4096;

    private Workloads() {}

    /**
     * The requests of a workload with their natural timing: trace timestamps, or 0 for every generated request.
     * Relative trace paths resolve against the working directory (resolve them before, if they are config-relative).
     */
    public static RequestSource open(WorkloadSpec spec, Namespace namespace, long seed) {
        if (spec == null) throw new WorkloadFormatException("workload: missing");
        if (namespace == null) throw new IllegalArgumentException("namespace is null");
        spec.validate("workload");
        long s = derive(seed, 0x776F726B6C6F6164L);
        return switch (spec) {
            case WorkloadSpec.Trace t -> {
                RequestSource r = MooncakeTrace.open(
                        Path.of(t.path()), new TraceFormat(t.blockTokens(), t.ignoreUnknownFields(), 0), namespace);
                yield t.limit() > 0 ? limit(r, t.limit()) : r;
            }
            case WorkloadSpec.Chat c -> new ChatGenerator(c, namespace, s);
            case WorkloadSpec.SharedPrefix p -> new SharedPrefixGenerator(p, namespace, s);
            case WorkloadSpec.DocQa d -> new DocQaGenerator(d, namespace, s);
            case WorkloadSpec.Zipf z -> new ZipfGenerator(z, namespace, s);
        };
    }

    /**
     * A generated workload {@code passes} times over ({@link PassesSource}: the first pass is the one-pass workload,
     * each further pass the generator again with a seed of its own); a trace takes 1 only.
     */
    public static RequestSource open(WorkloadSpec spec, int passes, Namespace namespace, long seed) {
        if (passes == 1) return open(spec, namespace, seed);
        if (spec instanceof WorkloadSpec.Trace)
            throw new WorkloadFormatException("workload.passes: applies to generators; a trace is replayed once");
        return new PassesSource(p -> open(spec, namespace, p == 0 ? seed : derive(seed, 0x7061737365L + p)), passes);
    }

    /**
     * The requests of a workload timed by an open-loop arrival process ({@code trace}, {@code poisson},
     * {@code gamma}, {@code constant}). A closed loop or a concurrency cap needs completions: use
     * {@link #schedule}.
     */
    public static RequestSource open(WorkloadSpec spec, ArrivalSpec arrival, Namespace namespace, long seed) {
        return open(spec, 1, arrival, namespace, seed);
    }

    /** {@link #open(WorkloadSpec, ArrivalSpec, Namespace, long)} of the workload {@code passes} times over. */
    public static RequestSource open(
            WorkloadSpec spec, int passes, ArrivalSpec arrival, Namespace namespace, long seed) {
        if (arrival == null) throw new WorkloadFormatException("arrival: missing");
        arrival.validate("arrival");
        if (arrival.closedLoop() || arrival.maxConcurrency() > 0) {
            throw new WorkloadFormatException("arrival: a closed loop or max concurrency depends on completions; "
                    + "drive it with Workloads.schedule(...)");
        }
        RequestSource requests = open(spec, passes, namespace, seed);
        if (arrival.process().equals("trace"))
            requests = new TickSpreadSource(requests, arrival.spreadNanos(), derive(seed, 0x737072656164L));
        return new RetimedSource(requests, arrival, derive(seed, 0x617272697661L));
    }

    /**
     * What trace replay makes of the workload's stamps under {@code arrival} ({@code spread=auto (timestamps quantized
     * to 3000 ms: ...)}, {@code spread=none}), or null when {@code arrival} does not replay stamps. Reads at most the
     * requests tick detection reads.
     */
    public static String spreadDescription(WorkloadSpec spec, ArrivalSpec arrival, Namespace namespace) {
        if (!arrival.process().equals("trace")) return null;
        try (TickSpreadSource s = new TickSpreadSource(open(spec, namespace, 0), arrival.spreadNanos(), 0)) {
            return s.how();
        }
    }

    /** The workload released by its arrival process, driven by completions (see {@link ArrivalProcess}). */
    public static ArrivalProcess schedule(WorkloadSpec spec, ArrivalSpec arrival, Namespace namespace, long seed) {
        return schedule(spec, 1, arrival, namespace, seed);
    }

    /** {@link #schedule(WorkloadSpec, ArrivalSpec, Namespace, long)} of the workload {@code passes} times over. */
    public static ArrivalProcess schedule(
            WorkloadSpec spec, int passes, ArrivalSpec arrival, Namespace namespace, long seed) {
        if (arrival == null) throw new WorkloadFormatException("arrival: missing");
        arrival.validate("arrival");
        if (arrival.closedLoop()) {
            RequestSource requests = open(spec, passes, namespace, seed);
            long think = Math.round(arrival.thinkMs() * 1e6);
            return new ClosedLoopProcess(
                    requests, arrival.users(), think, Math.max(CLOSED_LOOP_WINDOW, 4 * arrival.users()));
        }
        RequestSource timed = open(spec, passes, arrival.withMaxConcurrency(0), namespace, seed);
        return new OpenLoopProcess(timed, arrival.maxConcurrency());
    }

    /** At most {@code n} requests of {@code source}. */
    public static RequestSource limit(RequestSource source, long n) {
        return new RequestSource() {
            long left = n;

            @Override
            public boolean hasNext() {
                return left > 0 && source.hasNext();
            }

            @Override
            public Request next() {
                if (!hasNext()) throw new NoSuchElementException();
                left--;
                return source.next();
            }

            @Override
            public String describe() {
                return source.describe() + " limit=" + n;
            }

            @Override
            public void close() {
                source.close();
            }
        };
    }

    private static long derive(long seed, long purpose) {
        return BlockKeys.mix(BlockKeys.mix(seed) ^ purpose);
    }
}
