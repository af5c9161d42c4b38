package dev.kvlab.harness.api.benchmark;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One run of the closed-loop store benchmark ({@code kvlab bench store}); validated by whoever builds it.
 *
 * @param backend   the backend as it was named ({@code bundled}, {@code kvlab://HOST:PORT}, {@code redis://HOST:PORT})
 * @param transport the data plane, for the result
 * @param emulated  whether that data plane is an emulation, for the result
 * @param op        {@code get} or {@code put}
 * @param keys      keys a get run loads and reads
 * @param verify    check every hit against its key's content
 * @param load      get runs: load the keys first (unmeasured)
 * @param hlog      where to write the latency histogram (HdrHistogram log, microseconds), or null
 */
public record StoreBenchSettings(String backend, String transport, boolean emulated, long valueSize, String op, int clients, Duration duration,
                                 Duration warmup, int keys, boolean verify, boolean load, Path hlog) {}
