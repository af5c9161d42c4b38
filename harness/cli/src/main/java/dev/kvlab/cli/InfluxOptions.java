package dev.kvlab.cli;

import dev.kvlab.harness.metrics.InfluxPublisher;
import dev.kvlab.harness.metrics.InfluxTarget;
import java.io.PrintStream;
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
    public static final String DEFAULT_TOKEN_ENV = InfluxTarget.DEFAULT_TOKEN_ENV;

    @Option(
            names = "--influx",
            paramLabel = "URL",
            description =
                    "push live per-cell metrics and every cell's summary row to this InfluxDB, e.g. http://127.0.0.1:8086")
    String url;

    @Option(names = "--influx-db", paramLabel = "DB", description = "InfluxDB 1.x database, created if missing [kvlab]")
    String db;

    @Option(
            names = "--influx-org",
            paramLabel = "ORG",
            description = "InfluxDB 2.x organisation (with --influx-bucket; token from the environment)")
    String org;

    @Option(names = "--influx-bucket", paramLabel = "BUCKET", description = "InfluxDB 2.x bucket (must exist)")
    String bucket;

    @Option(
            names = "--influx-token-env",
            paramLabel = "NAME",
            description = "environment variable holding the InfluxDB 2.x token [" + DEFAULT_TOKEN_ENV
                    + "]; the token is never taken from the command line")
    String tokenEnv;

    @Option(
            names = "--influx-interval",
            paramLabel = "DURATION",
            description = "time between live pushes, 100ms..1h [1s]")
    String interval;

    /** The target the options name; {@code null} without {@code --influx}. Bad combinations are a BadInputException (exit 2). */
    public InfluxTarget target(Function<String, String> env) {
        return InfluxTarget.of(url, db, org, bucket, tokenEnv, interval, env);
    }

    /** A publisher to the target, or {@code null} without {@code --influx}. */
    public InfluxPublisher open(PrintStream err) {
        InfluxTarget t = target(System::getenv);
        return t == null ? null : InfluxPublisher.open(t, err);
    }

    /** The target's description for the manifest (no secret), or {@code null}. */
    public InfluxTarget.Description describe() {
        InfluxTarget t = target(System::getenv);
        return t == null ? null : t.describe();
    }
}
