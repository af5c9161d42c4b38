package dev.kvlab.harness.benchmark.api;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KeyRules;
import dev.kvlab.transport.api.ByteSize;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * One run of the closed-loop store benchmark ({@code kvlab bench store}). An out-of-range value fails with an
 * {@link IllegalArgumentException} naming its {@code kvlab bench store} option.
 *
 * @param backend   the backend as it was named ({@code bundled}, {@code kvlab://HOST:PORT}, {@code redis://HOST:PORT})
 * @param transport the data plane, for the result
 * @param emulated  whether that data plane is an emulation, for the result
 * @param valueSize bytes per value, 1 byte to 1 GiB
 * @param op        {@code get} or {@code put}
 * @param clients   concurrent clients, 1 to 1024
 * @param duration  measured time, more than zero
 * @param keys      keys a get run loads and reads, at least 1
 * @param verify    check every hit against its key's content
 * @param load      get runs: load the keys first (unmeasured) when the store holds none of them; a store holding some is read as it is
 * @param hlog      where to write the latency histogram (HdrHistogram log, microseconds), or null
 */
public record StoreBenchSettings(
        String backend,
        String transport,
        boolean emulated,
        long valueSize,
        String op,
        int clients,
        Duration duration,
        Duration warmup,
        int keys,
        boolean verify,
        boolean load,
        Path hlog) {

    public StoreBenchSettings {
        if (!op.equals("get") && !op.equals("put"))
            throw new IllegalArgumentException("--op: '" + op + "' is not get or put");
        if (valueSize <= 0 || valueSize > (1L << 30))
            throw new IllegalArgumentException(
                    "--value-size must be between 1 byte and 1GiB, got " + ByteSize.format(valueSize));
        if (duration.isZero()) throw new IllegalArgumentException("--duration must be > 0");
        if (clients < 1 || clients > 1024)
            throw new IllegalArgumentException("--clients must be 1..1024, got " + clients);
        if (keys < 1) throw new IllegalArgumentException("--keys must be >= 1, got " + keys);
    }

    /**
     * The options its backend is opened with: data plane {@code transport}, content checks as {@link #verify}, keys under
     * {@code tenant}, a 5 s timeout, and for the bundled store {@code nodes} (1..64) nodes of {@code segmentBytes} each
     * (null: {@link #segmentPerNode}) whose client calls the master {@code control}: {@code inproc} or over {@code grpc}.
     * A bad value fails with an {@link IllegalArgumentException} naming its option.
     */
    public BackendOptions backendOptions(
            String transport, String tenant, int nodes, Long segmentBytes, String control) {
        if (nodes < 1 || nodes > 64) throw new IllegalArgumentException("--nodes must be 1..64, got " + nodes);
        if (!control.equals("inproc") && !control.equals("grpc"))
            throw new IllegalArgumentException("--control: '" + control + "' is not inproc or grpc");
        KeyRules.checkTenant(tenant);
        return BackendOptions.defaults()
                .withTransport(transport)
                .withVerifyContent(verify)
                .withTenant(tenant)
                .withNodes(nodes)
                .withSegmentBytes(segmentBytes != null ? segmentBytes : segmentPerNode(nodes))
                .withTimeout(Duration.ofSeconds(5))
                .withExtra(Map.of("control", control));
    }

    /**
     * The segment each of {@code nodes} bundled storage nodes gets when none is given: room for the keys with 30 %
     * headroom, at least 256 MiB and at most 2 GiB per node (beyond that, eviction makes misses).
     */
    public long segmentPerNode(int nodes) {
        long fp = (valueSize + 4095) & ~4095L;
        long need = (long) Math.ceil(keys * fp * 1.3 / nodes) + (16L << 20);
        return Math.min(2L << 30, Math.max(256L << 20, (need + (1L << 20) - 1) & -(1L << 20)));
    }
}
