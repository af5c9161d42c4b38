package dev.kvlab.harness.metrics;

import io.micrometer.core.ipc.http.HttpSender;

/**
 * The HTTP client Micrometer's Influx registry pushes through, wrapped to count every write as pushed or
 * dropped in {@link PushHealth} (Micrometer itself only logs failures; its logger is silenced in kvlab, so that
 * an unreachable InfluxDB is reported once, by {@link PushHealth}).
 */
final class CountingHttpSender implements HttpSender {

    private final HttpSender delegate;
    private final PushHealth health;

    CountingHttpSender(HttpSender delegate, PushHealth health) {
        this.delegate = delegate;
        this.health = health;
    }

    @Override
    public Response send(Request request) throws Throwable {
        boolean write = request.getUrl().getPath().endsWith("/write");
        Response r;
        try {
            r = delegate.send(request);
        } catch (Throwable t) {
            String why = t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
            if (write) health.pushDropped(why);
            else health.failed(why);
            throw t;
        }
        if (write) {
            if (r.isSuccessful()) health.pushed();
            else health.pushDropped("HTTP " + r.code() + " " + abbreviate(r.body()));
        } else if (!r.isSuccessful()) {
            health.failed("HTTP " + r.code() + " " + abbreviate(r.body()) + " on "
                    + request.getUrl().getPath());
        }
        return r;
    }

    private static String abbreviate(String s) {
        if (s == null) return "";
        s = s.strip();
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
