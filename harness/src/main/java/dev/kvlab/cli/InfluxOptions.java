package dev.kvlab.cli;

import dev.kvlab.harness.api.BadInputException;
import dev.kvlab.harness.internal.metrics.InfluxPublisher;
import dev.kvlab.harness.internal.metrics.InfluxTarget;
import dev.kvlab.transport.api.DurationSpec;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * The InfluxDB options of {@code kvlab run} and {@code kvlab demo} (a picocli mixin): {@code --influx URL} with
 * {@code --influx-db DB} for the 1.x API, or {@code --influx-org ORG --influx-bucket BUCKET} for the 2.x API with
 * the token read from the environment variable {@code --influx-token-env} names (never from the command line);
 * {@code --influx-interval} between live pushes. Without {@code --influx} nothing is pushed.
 */
public final class InfluxOptions {

    /** The environment variable the 2.x token is read from unless {@code --influx-token-env} says otherwise. */
    public static final String DEFAULT_TOKEN_ENV = "KVLAB_INFLUX_TOKEN";

    @Option(names = "--influx", paramLabel = "URL",
            description = "push live per-cell metrics and every cell's summary row to this InfluxDB, e.g. http://127.0.0.1:8086")
    String url;

    @Option(names = "--influx-db", paramLabel = "DB", description = "InfluxDB 1.x database, created if missing [kvlab]")
    String db;

    @Option(names = "--influx-org", paramLabel = "ORG", description = "InfluxDB 2.x organisation (with --influx-bucket; token from the environment)")
    String org;

    @Option(names = "--influx-bucket", paramLabel = "BUCKET", description = "InfluxDB 2.x bucket (must exist)")
    String bucket;

    @Option(names = "--influx-token-env", paramLabel = "NAME",
            description = "environment variable holding the InfluxDB 2.x token [" + DEFAULT_TOKEN_ENV + "]; the token is never taken from the command line")
    String tokenEnv;

    @Option(names = "--influx-interval", paramLabel = "DURATION", description = "time between live pushes, 100ms..1h [1s]")
    String interval;

    /** The target the options name; {@code null} without {@code --influx}. Bad combinations are a BadInputException (exit 2). */
    public InfluxTarget target(Function<String, String> env) {
        if (url == null) {
            if (db != null || org != null || bucket != null || tokenEnv != null || interval != null)
                throw bad("--influx-db, --influx-org, --influx-bucket, --influx-token-env and --influx-interval need --influx URL");
            return null;
        }
        URI u;
        try {
            u = new URI(url);
        } catch (URISyntaxException e) {
            throw bad("--influx: not a URL: " + url);
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null)
            throw bad("--influx: expected http://HOST:PORT or https://HOST:PORT, got " + url);
        if (u.getUserInfo() != null) throw bad("--influx: credentials do not belong in the URL (use --influx-token-env)");
        if (u.getRawQuery() != null) throw bad("--influx: the URL takes no query (" + url + ")");
        Duration every;
        try {
            every = interval == null ? Duration.ofSeconds(1) : DurationSpec.parse(interval);
        } catch (IllegalArgumentException e) {
            throw bad("--influx-interval: " + e.getMessage());
        }
        if (every.compareTo(Duration.ofMillis(100)) < 0 || every.compareTo(Duration.ofHours(1)) > 0)
            throw bad("--influx-interval must be between 100ms and 1h, got " + interval);
        boolean v2 = org != null || bucket != null;
        if (!v2) {
            if (tokenEnv != null) throw bad("--influx-token-env is for the 2.x API (--influx-org and --influx-bucket)");
            String d = db == null ? "kvlab" : db;
            if (d.isBlank()) throw bad("--influx-db must not be empty");
            return new InfluxTarget.V1(u, d, every);
        }
        if (db != null) throw bad("--influx-db (1.x API) and --influx-org/--influx-bucket (2.x API) exclude each other");
        if (org == null || bucket == null || org.isBlank() || bucket.isBlank())
            throw bad("the InfluxDB 2.x API needs both --influx-org and --influx-bucket");
        String name = tokenEnv == null ? DEFAULT_TOKEN_ENV : tokenEnv;
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw bad("--influx-token-env: not an environment variable name: " + name);
        String token = env.apply(name);
        if (token == null || token.isBlank())
            throw bad("the InfluxDB 2.x token is read from the environment variable " + name + ", which is not set");
        return new InfluxTarget.V2(u, org, bucket, name, token.strip(), every);
    }

    /** A publisher to the target, or {@code null} without {@code --influx}. */
    public InfluxPublisher open(PrintStream err) {
        InfluxTarget t = target(System::getenv);
        return t == null ? null : InfluxPublisher.open(t, err);
    }

    /** The target's description for the manifest (no secret), or {@code null}. */
    public Map<String, Object> describe() {
        InfluxTarget t = target(System::getenv);
        return t == null ? null : t.describe();
    }

    private BadInputException bad(String message) {
        return new BadInputException(message);
    }
}
