package dev.kvlab.harness.metrics;

import org.influxdb.dto.Point;

/** Writes summary points to one InfluxDB, synchronously; a failure throws. */
public interface SummaryWriter extends AutoCloseable {

    void write(Point point) throws Exception;

    @Override
    void close();

    /** The writer for {@code target}: influxdb-java for 1.x, the JDK's HTTP client on the v2 write API for 2.x. */
    static SummaryWriter forTarget(InfluxTarget target) {
        return switch (target) {
            case InfluxTarget.V1 v1 -> new InfluxV1SummaryWriter(v1);
            case InfluxTarget.V2 v2 -> new InfluxV2SummaryWriter(v2);
        };
    }
}
