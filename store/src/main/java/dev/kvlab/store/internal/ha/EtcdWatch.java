package dev.kvlab.store.internal.ha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A watch of a key range from a revision on ({@code POST /v3/watch}, a stream of JSON results), read on a daemon
 * thread of its own: every batch of events goes to {@code onEvents} in etcd's order; when the stream ends (etcd went,
 * the history was compacted past the start, {@link #close()}) {@code onEnd} is told why, once. Whoever watches
 * re-reads what it missed and watches again.
 */
public final class EtcdWatch implements AutoCloseable {

    /** One change: a put (with the key's new value) or a delete. */
    public record Event(boolean delete, EtcdClient.KeyValue kv) {}

    private final Thread reader;
    private volatile AutoCloseable stream;
    private volatile boolean closed;

    private EtcdWatch(
            EtcdClient etcd,
            String key,
            String end,
            long fromRevision,
            Consumer<List<Event>> onEvents,
            Consumer<String> onEnd) {
        ObjectNode create = EtcdClient.JSON.createObjectNode();
        ObjectNode c = create.putObject("create_request")
                .put("key", EtcdClient.b64(key))
                .put("start_revision", Long.toString(fromRevision));
        if (end != null) c.put("range_end", EtcdClient.b64(end));
        URI at = etcd.endpoints().get(etcd.current()).resolve("/v3/watch");
        reader = Thread.ofPlatform().daemon().name("kvlab-etcd-watch").start(() -> {
            String why = "closed";
            try {
                EtcdHttp.Stream r = etcd.unary().stream(at, "/v3/watch", EtcdClient.JSON.writeValueAsBytes(create));
                stream = r;
                if (closed) { // closed while the request was on its way: close() saw no stream, so end the exchange
                    // here
                    r.close();
                    return;
                }
                try (r;
                        MappingIterator<JsonNode> it =
                                EtcdClient.JSON.readerFor(JsonNode.class).readValues(r.body())) {
                    while (!closed && it.hasNextValue()) {
                        JsonNode msg = it.nextValue();
                        if (msg.has("error")) {
                            why = "etcd: "
                                    + msg.path("error")
                                            .path("message")
                                            .asText(msg.path("error").toString());
                            break;
                        }
                        JsonNode res = msg.path("result");
                        if (res.path("compact_revision").asLong(0) > 0
                                || res.path("canceled").asBoolean(false)) {
                            why = "the watch was cancelled (history compacted to "
                                    + res.path("compact_revision").asLong(0) + ")";
                            break;
                        }
                        List<Event> evs = new ArrayList<>();
                        for (JsonNode e : res.path("events"))
                            evs.add(new Event(
                                    "DELETE".equals(e.path("type").asText("PUT")), EtcdClient.kv(e.path("kv"))));
                        if (!evs.isEmpty()) onEvents.accept(evs);
                    }
                    if (!closed && why.equals("closed")) why = "etcd ended the watch";
                }
            } catch (Exception e) {
                why = closed ? "closed" : "watch failed: " + e;
            } finally {
                onEnd.accept(why);
            }
        });
    }

    /** Watches [{@code key}, {@code end}) ({@code end} null: the key alone) from {@code fromRevision} on. */
    public static EtcdWatch start(
            EtcdClient etcd,
            String key,
            String end,
            long fromRevision,
            Consumer<List<Event>> onEvents,
            Consumer<String> onEnd) {
        return new EtcdWatch(etcd, key, end, fromRevision, onEvents, onEnd);
    }

    public boolean alive() {
        return reader.isAlive();
    }

    @Override
    public void close() {
        closed = true;
        AutoCloseable s = stream;
        if (s != null) {
            try {
                s.close();
            } catch (Exception ignored) {
                // ending anyway
            }
        }
        reader.interrupt();
    }
}
