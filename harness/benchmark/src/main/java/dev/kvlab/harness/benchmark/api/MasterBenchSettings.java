package dev.kvlab.harness.benchmark.api;

import dev.kvlab.store.api.master.Master;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.DurationSpec;
import java.time.Duration;

/**
 * One run of the master's metadata benchmark ({@code kvlab bench master}). An out-of-range value fails with an
 * {@link IllegalArgumentException} naming its {@code kvlab bench master} option.
 *
 * @param master        how the master is named in the result (its address, or that it runs in this process)
 * @param clients       clients, 1 to 1024
 * @param batchSize     keys per batch call, 1 to {@link Master#MAX_BATCH}
 * @param duration      measured time, at least {@link #MIN_DURATION}
 * @param jitWait       after {@code warmup}, keep warming up while this process's JIT compilers are busy, at most this long
 * @param valueSize     object size the master allocates for: more than zero, at most {@code segmentBytes}
 * @param keysPerClient get runs: keys each client puts first and then looks up, at least 1
 * @param segments      fake segments mounted before the clients start, 1 to 4096, each of {@code segmentBytes} (at most 1 PiB)
 */
public record MasterBenchSettings(
        String master,
        MasterOp op,
        int clients,
        ClientMode mode,
        int batchSize,
        Duration duration,
        Duration warmup,
        Duration jitWait,
        long valueSize,
        int keysPerClient,
        int segments,
        long segmentBytes,
        String tenant,
        long seed) {

    /** The shortest measured window whose figures mean something. */
    public static final Duration MIN_DURATION = Duration.ofMillis(100);

    public MasterBenchSettings {
        // shorter, the window holds a handful of calls whose latency outlasts it: keys/s, mean latency and CPU per key
        // come out mutually impossible (1ms: 40,881 keys/s next to a 6,952 us mean from four one-in-flight clients)
        if (duration.compareTo(MIN_DURATION) < 0)
            throw new IllegalArgumentException("--duration must be at least " + MIN_DURATION.toMillis()
                    + "ms (a shorter window measures a few calls and the clock, not the master), got "
                    + DurationSpec.format(duration));
        if (clients < 1 || clients > 1024)
            throw new IllegalArgumentException("--clients must be 1..1024, got " + clients);
        if (batchSize < 1 || batchSize > Master.MAX_BATCH)
            throw new IllegalArgumentException("--batch-size must be 1.." + Master.MAX_BATCH + ", got " + batchSize);
        if (keysPerClient < 1) throw new IllegalArgumentException("--keys must be >= 1, got " + keysPerClient);
        if (segments < 1 || segments > 4096)
            throw new IllegalArgumentException("--segments must be 1..4096, got " + segments);
        if (valueSize <= 0 || valueSize > segmentBytes)
            throw new IllegalArgumentException(
                    "--value-size must be > 0 and fit a segment, got " + ByteSize.format(valueSize));
        if (segmentBytes > Master.MAX_SEGMENT_BYTES)
            throw new IllegalArgumentException("--segment-size must be at most 1PiB");
    }

    /** These settings with operation {@code o}. */
    public MasterBenchSettings withOp(MasterOp o) {
        return new MasterBenchSettings(
                master,
                o,
                clients,
                mode,
                batchSize,
                duration,
                warmup,
                jitWait,
                valueSize,
                keysPerClient,
                segments,
                segmentBytes,
                tenant,
                seed);
    }

    /** These settings with the master named {@code name}. */
    public MasterBenchSettings withMaster(String name) {
        return new MasterBenchSettings(
                name,
                op,
                clients,
                mode,
                batchSize,
                duration,
                warmup,
                jitWait,
                valueSize,
                keysPerClient,
                segments,
                segmentBytes,
                tenant,
                seed);
    }
}
