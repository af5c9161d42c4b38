package dev.kvlab.harness.metrics;

import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import org.influxdb.InfluxDB;
import org.influxdb.InfluxDBFactory;
import org.influxdb.dto.Point;
import org.influxdb.dto.Query;

/**
 * Summary points to an InfluxDB 1.x database with the InfluxDB Java client ({@code org.influxdb:influxdb-java}),
 * one synchronous write per point; creates the database (idempotent {@code CREATE DATABASE}) before the first.
 */
final class InfluxV1SummaryWriter implements SummaryWriter {

    private final InfluxTarget.V1 target;
    private final InfluxDB influx;
    private boolean created;

    InfluxV1SummaryWriter(InfluxTarget.V1 target) {
        this.target = target;
        OkHttpClient.Builder http = new OkHttpClient.Builder()
                .connectTimeout(2, TimeUnit.SECONDS)
                .readTimeout(10, TimeUnit.SECONDS)
                .writeTimeout(10, TimeUnit.SECONDS);
        this.influx = InfluxDBFactory.connect(target.url().toString(), http);
        influx.setLogLevel(InfluxDB.LogLevel.NONE);
    }

    @Override
    public synchronized void write(Point point) {
        if (!created) {
            influx.query(new Query("CREATE DATABASE " + quoted(target.db())));
            created = true;
        }
        influx.write(target.db(), "", point);
    }

    /** An InfluxQL identifier in double quotes. */
    static String quoted(String id) {
        return "\"" + id.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Override
    public void close() {
        influx.close();
    }
}
