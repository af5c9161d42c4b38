package dev.kvlab.harness.internal.metrics;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where kvlab pushes metrics: an InfluxDB 1.x database ({@link V1}) or an InfluxDB 2.x organisation and bucket
 * with a token ({@link V2}). The token is held only in memory: {@link #toString()} and {@link #describe()} never
 * show it, only the name of the environment variable it came from.
 */
public sealed interface InfluxTarget {

    /** Base URL, e.g. {@code http://127.0.0.1:8086}. */
    URI url();

    /** How often live metrics are pushed. */
    Duration interval();

    /** What to record about the target (manifest, logs): no secret. */
    Map<String, Object> describe();

    /** The 1.x API: {@code /write?db=}, {@code /query} (the database is created if missing). */
    record V1(URI url, String db, Duration interval) implements InfluxTarget {
        public V1 {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(db, "db");
        }

        @Override
        public Map<String, Object> describe() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("url", url.toString());
            m.put("api", "1.x");
            m.put("db", db);
            m.put("interval_ms", interval.toMillis());
            return m;
        }
    }

    /** The 2.x API: {@code /api/v2/write?org=&bucket=} with {@code Authorization: Token …}. */
    record V2(URI url, String org, String bucket, String tokenEnv, String token, Duration interval) implements InfluxTarget {
        public V2 {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(org, "org");
            Objects.requireNonNull(bucket, "bucket");
            Objects.requireNonNull(token, "token");
        }

        @Override
        public Map<String, Object> describe() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("url", url.toString());
            m.put("api", "2.x");
            m.put("org", org);
            m.put("bucket", bucket);
            m.put("token_env", tokenEnv);
            m.put("interval_ms", interval.toMillis());
            return m;
        }

        @Override
        public String toString() {
            return "V2[url=" + url + ", org=" + org + ", bucket=" + bucket + ", token=<from $" + tokenEnv + ">, interval=" + interval + "]";
        }
    }
}
