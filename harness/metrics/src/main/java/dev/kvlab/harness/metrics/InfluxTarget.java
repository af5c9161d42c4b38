package dev.kvlab.harness.metrics;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.transport.api.DurationSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * Where kvlab pushes metrics: an InfluxDB 1.x database ({@link V1}) or an InfluxDB 2.x organisation and bucket
 * with a token ({@link V2}). The token is held only in memory: {@link #toString()} and {@link #describe()} never
 * show it, only the name of the environment variable it came from.
 */
public sealed interface InfluxTarget {

    /** The environment variable the 2.x token is read from unless another is named. */
    String DEFAULT_TOKEN_ENV = "KVLAB_INFLUX_TOKEN";

    /**
     * The target {@code kvlab run}'s options name ({@code --influx URL} with {@code --influx-db}, or {@code --influx-org}
     * and {@code --influx-bucket} with the token from the environment variable {@code tokenEnv} names, read through
     * {@code env}); {@code null} without a URL. Bad combinations are a {@link BadInputException} naming the option.
     */
    static InfluxTarget of(
            String url,
            String db,
            String org,
            String bucket,
            String tokenEnv,
            String interval,
            Function<String, String> env) {
        if (url == null) {
            if (db != null || org != null || bucket != null || tokenEnv != null || interval != null)
                throw new BadInputException(
                        "--influx-db, --influx-org, --influx-bucket, --influx-token-env and --influx-interval need --influx URL");
            return null;
        }
        URI u;
        try {
            u = new URI(url);
        } catch (URISyntaxException e) {
            throw new BadInputException("--influx: not a URL: " + url);
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null)
            throw new BadInputException("--influx: expected http://HOST:PORT or https://HOST:PORT, got " + url);
        if (u.getUserInfo() != null)
            throw new BadInputException("--influx: credentials do not belong in the URL (use --influx-token-env)");
        if (u.getRawQuery() != null) throw new BadInputException("--influx: the URL takes no query (" + url + ")");
        Duration every;
        try {
            every = interval == null ? Duration.ofSeconds(1) : DurationSpec.parse(interval);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--influx-interval: " + e.getMessage());
        }
        if (every.compareTo(Duration.ofMillis(100)) < 0 || every.compareTo(Duration.ofHours(1)) > 0)
            throw new BadInputException("--influx-interval must be between 100ms and 1h, got " + interval);
        boolean v2 = org != null || bucket != null;
        if (!v2) {
            if (tokenEnv != null)
                throw new BadInputException("--influx-token-env is for the 2.x API (--influx-org and --influx-bucket)");
            String d = db == null ? "kvlab" : db;
            if (d.isBlank()) throw new BadInputException("--influx-db must not be empty");
            return new InfluxTarget.V1(u, d, every);
        }
        if (db != null)
            throw new BadInputException(
                    "--influx-db (1.x API) and --influx-org/--influx-bucket (2.x API) exclude each other");
        if (org == null || bucket == null || org.isBlank() || bucket.isBlank())
            throw new BadInputException("the InfluxDB 2.x API needs both --influx-org and --influx-bucket");
        String name = tokenEnv == null ? DEFAULT_TOKEN_ENV : tokenEnv;
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*"))
            throw new BadInputException("--influx-token-env: not an environment variable name: " + name);
        String token = env.apply(name);
        if (token == null || token.isBlank())
            throw new BadInputException(
                    "the InfluxDB 2.x token is read from the environment variable " + name + ", which is not set");
        return new InfluxTarget.V2(u, org, bucket, name, token.strip(), every);
    }

    /** Base URL, e.g. {@code http://127.0.0.1:8086}. */
    URI url();

    /** How often live metrics are pushed. */
    Duration interval();

    /** What to record about the target (manifest, logs): no secret. */
    Description describe();

    /**
     * What the manifest records about a target: its URL, API ({@code 1.x} or {@code 2.x}), the 1.x {@code db} or the
     * 2.x {@code org}, {@code bucket} and the environment variable the token came from (the other API's fields null
     * and absent), and the push interval. Never the token.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Description(
            String url, String api, String db, String org, String bucket, String tokenEnv, long intervalMs) {}

    /** The 1.x API: {@code /write?db=}, {@code /query} (the database is created if missing). */
    record V1(URI url, String db, Duration interval) implements InfluxTarget {
        public V1 {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(db, "db");
        }

        @Override
        public Description describe() {
            return new Description(url.toString(), "1.x", db, null, null, null, interval.toMillis());
        }
    }

    /** The 2.x API: {@code /api/v2/write?org=&bucket=} with {@code Authorization: Token …}. */
    record V2(URI url, String org, String bucket, String tokenEnv, String token, Duration interval)
            implements InfluxTarget {
        public V2 {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(org, "org");
            Objects.requireNonNull(bucket, "bucket");
            Objects.requireNonNull(tokenEnv, "tokenEnv");
            Objects.requireNonNull(token, "token");
        }

        @Override
        public Description describe() {
            return new Description(url.toString(), "2.x", null, org, bucket, tokenEnv, interval.toMillis());
        }

        @Override
        public String toString() {
            return "V2[url=" + url + ", org=" + org + ", bucket=" + bucket + ", token=<from $" + tokenEnv
                    + ">, interval=" + interval + "]";
        }
    }
}
