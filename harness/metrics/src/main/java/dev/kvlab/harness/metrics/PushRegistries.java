package dev.kvlab.harness.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.ipc.http.HttpUrlConnectionSender;
import io.micrometer.influx.InfluxApiVersion;
import io.micrometer.influx.InfluxConfig;
import io.micrometer.influx.InfluxMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/**
 * Makes the meter registry of one cell × replicate. The publisher closes it when the cell ends, which for a
 * push registry is the cell's final push. {@link #influx} makes Micrometer Influx registries (1.x or 2.x API)
 * pushing every {@link InfluxTarget#interval()} with wall-clock timestamps and counting pushes in a
 * {@link PushHealth}.
 */
@FunctionalInterface
public interface PushRegistries {

    MeterRegistry open();

    /** Micrometer Influx registries for {@code target}; their pushes are counted in {@code health}. */
    static PushRegistries influx(InfluxTarget target, PushHealth health, Clock clock) {
        InfluxConfig config = config(target);
        ThreadFactory threads =
                Thread.ofPlatform().daemon().name("kvlab-influx-push-", 0).factory();
        return () -> InfluxMeterRegistry.builder(config)
                .clock(clock)
                .threadFactory(threads)
                .httpClient(new CountingHttpSender(
                        new HttpUrlConnectionSender(config.connectTimeout(), config.readTimeout()), health))
                .build();
    }

    /** Micrometer's config for {@code target}: 1.x creates the database if missing; 2.x expects the bucket to exist. */
    static InfluxConfig config(InfluxTarget target) {
        return new InfluxConfig() {
            @Override
            public String get(String key) {
                return null;
            }

            @Override
            public String prefix() {
                return "kvlab.influx";
            }

            @Override
            public String uri() {
                return target.url().toString().replaceAll("/+$", "");
            }

            @Override
            public Duration step() {
                return target.interval();
            }

            @Override
            public Duration connectTimeout() {
                return Duration.ofSeconds(1);
            }

            @Override
            public Duration readTimeout() {
                return Duration.ofSeconds(5);
            }

            @Override
            public InfluxApiVersion apiVersion() {
                return target instanceof InfluxTarget.V2 ? InfluxApiVersion.V2 : InfluxApiVersion.V1;
            }

            @Override
            public String db() {
                return target instanceof InfluxTarget.V1 v1 ? v1.db() : "kvlab";
            }

            @Override
            public boolean autoCreateDb() {
                return target instanceof InfluxTarget.V1;
            }

            @Override
            public String org() {
                return target instanceof InfluxTarget.V2 v2 ? v2.org() : null;
            }

            @Override
            public String bucket() {
                return target instanceof InfluxTarget.V2 v2 ? v2.bucket() : db();
            }

            @Override
            public String token() {
                return target instanceof InfluxTarget.V2 v2 ? v2.token() : null;
            }

            @Override
            public boolean compressed() {
                return false;
            }
        };
    }
}
