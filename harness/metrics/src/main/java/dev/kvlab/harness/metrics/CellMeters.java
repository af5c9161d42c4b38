package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.store.api.MasterStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The live meters of one cell × replicate, registered on the {@link MeterRegistry} given and tagged with the
 * cell's {@link CellTags}: gauges reading the latest {@link CellSample} (NaN, i.e. not published, before the first
 * or where a value does not apply). Names (InfluxDB measurements after Micrometer's snake_case convention):
 * <ul>
 *   <li>{@code kvlab.cell.latency} {@code metric=ttft|tpot|itl|tbt|e2el|queue|fetch}, {@code stat=p50|p99|max}: ms,
 *       over the values recorded since the previous sample</li>
 *   <li>{@code kvlab.cell.requests} {@code state=arrived|completed|failed|good}; {@code kvlab.cell.goodput} (rps, run
 *       clock); {@code kvlab.cell.slo.attainment}; {@code kvlab.cell.hit.ratio} {@code tier=local|remote};
 *       {@code kvlab.cell.fetched.bytes}; {@code kvlab.cell.fallbacks}; {@code kvlab.cell.wrong.hits.used} (unpublished
 *       where kvlab's store path does not serve the cell: a real engine's own cache behind an endpoint);
 *       {@code kvlab.cell.queue.depth}; {@code kvlab.cell.in.flight}; {@code kvlab.cell.run.seconds}</li>
 *   <li>{@code kvlab.store.objects}, {@code .bytes.used}, {@code .capacity.bytes}, {@code .evictions},
 *       {@code .evicted.bytes}, {@code .leases.active}, {@code .leases.granted} (the names the store master's
 *       Prometheus endpoint uses), {@code kvlab.store.rpc} {@code rpc=…} (calls so far) and
 *       {@code kvlab.store.rpc.rate} {@code rpc=…} (calls per run-clock second): sim cells, and live cells whose
 *       store's master runs in this JVM (the bundled store, {@link dev.kvlab.store.api.KvBackend#storeStats()});
 *       unpublished where the store is not visible (Redis, an external {@code kvlab://} cluster)</li>
 *   <li>{@code kvlab.engine.hit.ratio} {@code tier=local|external}, {@code kvlab.engine.prompt.tokens},
 *       {@code kvlab.engine.cached.prompt.tokens}: a real engine's own counters over the measured phase so far
 *       (its {@code /metrics} scraped each second, its per-response usage); unpublished where it reports nothing
 *       and for emulated cells</li>
 * </ul>
 */
public final class CellMeters implements AutoCloseable {

    private final MeterRegistry registry;
    private final Supplier<CellSample> sample;
    private final Tags tags;
    private final List<Meter> meters = new ArrayList<>();

    public CellMeters(MeterRegistry registry, CellTags cellTags, Supplier<CellSample> sample) {
        this.registry = registry;
        this.sample = sample;
        List<Tag> t = new ArrayList<>();
        cellTags.tags().forEach((k, v) -> t.add(Tag.of(k, v)));
        this.tags = Tags.of(t);
        for (Metric m : Metric.values()) {
            gauge("kvlab.cell.latency", "ms", s -> s.percentileMs(m, CellSample.P50), "metric", m.id(), "stat", "p50");
            gauge("kvlab.cell.latency", "ms", s -> s.percentileMs(m, CellSample.P99), "metric", m.id(), "stat", "p99");
            gauge("kvlab.cell.latency", "ms", s -> s.percentileMs(m, CellSample.MAX), "metric", m.id(), "stat", "max");
        }
        gauge("kvlab.cell.requests", null, CellSample::requests, "state", "arrived");
        gauge("kvlab.cell.requests", null, CellSample::completed, "state", "completed");
        gauge("kvlab.cell.requests", null, CellSample::failed, "state", "failed");
        gauge("kvlab.cell.requests", null, CellSample::good, "state", "good");
        gauge("kvlab.cell.goodput", "requests/s", CellSample::goodputRps);
        gauge("kvlab.cell.slo.attainment", null, CellSample::sloAttainment);
        gauge("kvlab.cell.hit.ratio", null, CellSample::localHitRatio, "tier", "local");
        gauge("kvlab.cell.hit.ratio", null, CellSample::remoteHitRatio, "tier", "remote");
        gauge("kvlab.cell.fetched.bytes", "bytes", s -> s.storePath() ? s.fetchedBytes() : Double.NaN);
        gauge("kvlab.cell.fallbacks", "blocks", s -> s.storePath() ? s.fallbacks() : Double.NaN);
        gauge("kvlab.cell.wrong.hits.used", "blocks", s -> s.storePath() ? s.wrongHitsUsed() : Double.NaN);
        gauge("kvlab.cell.queue.depth", "requests", CellSample::queued);
        gauge("kvlab.cell.in.flight", "requests", CellSample::inFlight);
        gauge("kvlab.cell.run.seconds", "seconds", CellSample::runSeconds);
        store("kvlab.store.objects", "objects", MasterStats::objects);
        store("kvlab.store.bytes.used", "bytes", MasterStats::bytesUsed);
        store("kvlab.store.capacity.bytes", "bytes", MasterStats::capacityBytes);
        store("kvlab.store.evictions", "objects", MasterStats::evictedObjects);
        store("kvlab.store.evicted.bytes", "bytes", MasterStats::evictedBytes);
        store("kvlab.store.leases.active", "leases", MasterStats::activeLeases);
        store("kvlab.store.leases.granted", "leases", MasterStats::leasesGranted);
        storeCalls(STORE_OPS);
        engine("kvlab.engine.hit.ratio", null, Columns.ENGINE_LOCAL_HIT_RATIO.name(), "tier", "local");
        engine("kvlab.engine.hit.ratio", null, Columns.ENGINE_EXTERNAL_HIT_RATIO.name(), "tier", "external");
        engine("kvlab.engine.hit.ratio", null, Columns.ENGINE_DEVICE_HIT_RATIO.name(), "tier", "device");
        engine("kvlab.engine.hit.ratio", null, Columns.ENGINE_HOST_HIT_RATIO.name(), "tier", "host");
        engine("kvlab.engine.hit.ratio", null, Columns.ENGINE_STORAGE_HIT_RATIO.name(), "tier", "storage");
        engine("kvlab.engine.hit.ratio", null, Columns.ENGINE_CACHED_HIT_RATIO.name(), "tier", "all");
        engine("kvlab.engine.prompt.tokens", "tokens", Columns.ENGINE_PROMPT_TOKENS.name());
        engine("kvlab.engine.cached.prompt.tokens", "tokens", Columns.ENGINE_CACHED_PROMPT_TOKENS.name());
    }

    /** A real engine's own counter, by its summary column (NaN, not published, for an emulated target). */
    private void engine(String name, String unit, String column, String... kv) {
        gauge(name, unit, s -> s.engine().getOrDefault(column, Double.NaN), kv);
    }

    /** Master operations whose calls are published (an operation a cell does not report stays unpublished). */
    public static final List<String> STORE_OPS =
            List.of("exists", "get_replica_list", "put_start", "put_end", "put_revoke", "remove");

    private void storeCalls(Iterable<String> ops) {
        for (String op : ops) {
            gauge(
                    "kvlab.store.rpc",
                    "calls",
                    s -> {
                        Long v = s.storeCalls().get(op);
                        return v == null ? Double.NaN : v;
                    },
                    "rpc",
                    op);
            gauge(
                    "kvlab.store.rpc.rate",
                    "calls/s",
                    s -> {
                        Double v = s.storeCallRates().get(op);
                        return v == null ? Double.NaN : v;
                    },
                    "rpc",
                    op);
        }
    }

    private void store(String name, String unit, ToDoubleFunction<MasterStats> f) {
        gauge(name, unit, s -> s.store() == null ? Double.NaN : f.applyAsDouble(s.store()));
    }

    private void gauge(String name, String unit, ToDoubleFunction<CellSample> f, String... kv) {
        Supplier<CellSample> src = sample;
        Gauge g = Gauge.builder(name, src, x -> {
                    CellSample s = x.get();
                    return s == null ? Double.NaN : f.applyAsDouble(s);
                })
                .tags(tags)
                .tags(kv)
                .baseUnit(unit)
                .strongReference(true)
                .register(registry);
        meters.add(g);
    }

    /** The meters registered, for tests. */
    public List<Meter> meters() {
        return List.copyOf(meters);
    }

    /** Removes this cell's meters from the registry. */
    @Override
    public void close() {
        for (Meter m : meters) registry.remove(m);
        meters.clear();
    }
}
