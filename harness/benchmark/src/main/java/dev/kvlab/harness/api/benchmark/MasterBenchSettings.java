package dev.kvlab.harness.api.benchmark;

import java.time.Duration;

/**
 * One run of the master's metadata benchmark ({@code kvlab bench master}); validated by whoever builds it.
 *
 * @param master        how the master is named in the result (its address, or that it runs in this process)
 * @param keysPerClient get runs: keys each client puts first and then looks up
 * @param segments      fake segments mounted before the clients start, each of {@code segmentBytes}
 * @param jitWait       after {@code warmup}, keep warming up while this process's JIT compilers are busy, at most this long
 */
public record MasterBenchSettings(String master, MasterOp op, int clients, ClientMode mode, int batchSize, Duration duration, Duration warmup,
                                  Duration jitWait, long valueSize, int keysPerClient, int segments, long segmentBytes, String tenant, long seed) {}
