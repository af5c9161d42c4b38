package dev.kvlab.store.internal.ha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A small etcd v3 client over etcd's JSON gateway ({@code POST /v3/kv/range}, {@code /v3/kv/txn}, {@code /v3/lease/*},
 * {@code /v3/watch}; keys and values base64, 64-bit numbers as strings), which every etcd 3.4+ serves on its client
 * port. Every call goes over {@link EtcdHttp}: a unary one blocking on the caller's thread, a watch's stream read by its
 * own thread. Requests go to the first endpoint that answers, sticking to it while it does. Each request has a deadline;
 * a failure to reach any endpoint is an {@link EtcdException} with code -1. Thread-safe.
 */
public final class EtcdClient implements AutoCloseable {

    /** One key as etcd holds it. */
    public record KeyValue(String key, byte[] value, long createRevision, long modRevision, long version, long lease) {
        public String text() {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    /** Keys read, and the store's revision at the read. */
    public record Range(long revision, List<KeyValue> kvs, boolean more) {}

    /** A transaction's outcome: whether its comparisons held, its revision, and the keys its range operations read. */
    public record TxnResult(boolean succeeded, long revision, List<KeyValue> kvs) {}

    /** A comparison of a transaction: {@code target} of {@code key} {@code result} {@code value}. */
    public record Compare(String key, String target, String result, Object value) {
        public static Compare createRevision(String key, long rev) {
            return new Compare(key, "CREATE", "EQUAL", rev);
        }

        public static Compare modRevision(String key, long rev) {
            return new Compare(key, "MOD", "EQUAL", rev);
        }
    }

    /** An operation of a transaction. */
    public sealed interface Op permits Put, Get, Delete {}

    public record Put(String key, byte[] value, long lease) implements Op {}

    public record Get(String key) implements Op {}

    public record Delete(String key, String end) implements Op {}

    static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private final List<URI> endpoints;
    private final EtcdHttp unary;
    private volatile int current;

    public EtcdClient(List<URI> endpoints, Duration deadline) {
        this.endpoints = List.copyOf(endpoints);
        this.unary = new EtcdHttp(deadline);
    }

    public EtcdClient(EtcdSpec spec, Duration deadline) {
        this(spec.endpoints(), deadline);
    }

    EtcdHttp unary() {
        return unary;
    }

    List<URI> endpoints() {
        return endpoints;
    }

    int current() {
        return current;
    }

    // ---------------------------------------------------------------- key-value

    /** The key's value, or null when it is absent. */
    public KeyValue get(String key) {
        List<KeyValue> kvs = range(key, null, 0).kvs();
        return kvs.isEmpty() ? null : kvs.getFirst();
    }

    /** Keys in [{@code key}, {@code end}) ({@code end} null: {@code key} alone), ascending, at most {@code limit} (0: all). */
    public Range range(String key, String end, long limit) {
        ObjectNode r = JSON.createObjectNode().put("key", b64(key));
        if (end != null) r.put("range_end", b64(end));
        if (limit > 0) r.put("limit", Long.toString(limit));
        JsonNode a = post("/v3/kv/range", r);
        return new Range(revision(a), kvs(a.path("kvs")), a.path("more").asBoolean(false));
    }

    /** The last key in [{@code key}, {@code end}) (keys only), or null when there is none. */
    public KeyValue lastKey(String key, String end) {
        ObjectNode r = JSON.createObjectNode()
                .put("key", b64(key))
                .put("range_end", b64(end))
                .put("limit", "1")
                .put("keys_only", true)
                .put("sort_order", "DESCEND")
                .put("sort_target", "KEY");
        List<KeyValue> kvs = kvs(post("/v3/kv/range", r).path("kvs"));
        return kvs.isEmpty() ? null : kvs.getFirst();
    }

    /** Puts {@code value} under {@code key} (attached to {@code lease}, 0: none); the revision it made. */
    public long put(String key, byte[] value, long lease) {
        return revision(post("/v3/kv/put", put(new Put(key, value, lease))));
    }

    /** Deletes [{@code key}, {@code end}); the revision after. */
    public long delete(String key, String end) {
        ObjectNode r = JSON.createObjectNode().put("key", b64(key));
        if (end != null) r.put("range_end", b64(end));
        return revision(post("/v3/kv/deleterange", r));
    }

    /** If every comparison holds, {@code success}, else {@code failure}. */
    public TxnResult txn(List<Compare> compares, List<Op> success, List<Op> failure) {
        ObjectNode r = JSON.createObjectNode();
        ArrayNode cs = r.putArray("compare");
        for (Compare c : compares) {
            ObjectNode n = cs.addObject()
                    .put("key", b64(c.key()))
                    .put("target", c.target())
                    .put("result", c.result());
            switch (c.target()) {
                case "CREATE" -> n.put("create_revision", c.value().toString());
                case "MOD" -> n.put("mod_revision", c.value().toString());
                case "VERSION" -> n.put("version", c.value().toString());
                case "VALUE" -> n.put("value", B64.encodeToString((byte[]) c.value()));
                default -> throw new IllegalArgumentException("compare target " + c.target());
            }
        }
        ops(r.putArray("success"), success);
        ops(r.putArray("failure"), failure);
        JsonNode a = post("/v3/kv/txn", r);
        List<KeyValue> kvs = new ArrayList<>();
        for (JsonNode resp : a.path("responses"))
            kvs.addAll(kvs(resp.path("response_range").path("kvs")));
        return new TxnResult(a.path("succeeded").asBoolean(false), revision(a), kvs);
    }

    /** Drops the history before {@code revision} (the keys' current values stay). */
    public void compact(long revision) {
        post("/v3/kv/compaction", JSON.createObjectNode().put("revision", Long.toString(revision)));
    }

    // ---------------------------------------------------------------- leases

    /** A new lease of {@code ttlSeconds}; its id. */
    public long grant(long ttlSeconds) {
        JsonNode a = post("/v3/lease/grant", JSON.createObjectNode().put("TTL", Long.toString(ttlSeconds)));
        long id = a.path("ID").asLong(0);
        if (id == 0) throw new EtcdException("etcd granted no lease: " + a, -1, null);
        return id;
    }

    /** Renews lease {@code id}; its TTL in seconds from now, 0 when the lease is gone. */
    public long keepAlive(long id) {
        try {
            JsonNode a = post("/v3/lease/keepalive", JSON.createObjectNode().put("ID", Long.toString(id)));
            return a.path("result").path("TTL").asLong(0);
        } catch (EtcdException e) {
            if (e.code() >= 0) return 0; // etcd answered: the lease is not there
            throw e;
        }
    }

    /** Ends lease {@code id} now (its keys go with it); an unknown lease is no error. */
    public void revoke(long id) {
        try {
            post("/v3/lease/revoke", JSON.createObjectNode().put("ID", Long.toString(id)));
        } catch (EtcdException e) {
            if (e.code() < 0) throw e;
        }
    }

    // ---------------------------------------------------------------- the wire

    JsonNode post(String path, ObjectNode body) {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        if (Thread.currentThread().isInterrupted()) throw new EtcdException("interrupted while calling etcd", -1, null);
        EtcdException last = null;
        int start = current;
        for (int i = 0; i < endpoints.size(); i++) {
            int at = (start + i) % endpoints.size();
            EtcdHttp.Response r;
            try {
                r = unary.post(endpoints.get(at), path, bytes);
            } catch (IOException e) {
                last = new EtcdException("etcd " + endpoints.get(at).getAuthority() + " unreachable: " + e, -1, e);
                continue;
            }
            JsonNode a;
            try {
                a = JSON.readTree(r.body());
            } catch (IOException e) {
                last = new EtcdException(
                        "etcd " + endpoints.get(at).getAuthority() + " answered " + r.status() + " with no JSON",
                        -1,
                        e);
                continue;
            }
            if (r.status() != 200 || a.has("error")) {
                int code = a.path("code").asInt(-1);
                String msg = a.path("message").asText(a.path("error").asText("HTTP " + r.status()));
                if (code == 14) { // UNAVAILABLE (no leader in this member): try another member
                    last = new EtcdException("etcd " + endpoints.get(at).getAuthority() + ": " + msg, code, null);
                    continue;
                }
                throw new EtcdException("etcd " + path + ": " + msg, code, null);
            }
            current = at;
            return a;
        }
        throw last;
    }

    private static void ops(ArrayNode out, List<Op> ops) {
        for (Op op : ops) {
            switch (op) {
                case Put p -> out.addObject().set("request_put", put(p));
                case Get g -> out.addObject().putObject("request_range").put("key", b64(g.key()));
                case Delete d -> {
                    ObjectNode n =
                            out.addObject().putObject("request_delete_range").put("key", b64(d.key()));
                    if (d.end() != null) n.put("range_end", b64(d.end()));
                }
            }
        }
    }

    private static ObjectNode put(Put p) {
        ObjectNode n = JSON.createObjectNode().put("key", b64(p.key())).put("value", B64.encodeToString(p.value()));
        if (p.lease() != 0) n.put("lease", Long.toString(p.lease()));
        return n;
    }

    static List<KeyValue> kvs(JsonNode arr) {
        List<KeyValue> out = new ArrayList<>(arr.size());
        for (JsonNode kv : arr) out.add(kv(kv));
        return out;
    }

    static KeyValue kv(JsonNode kv) {
        return new KeyValue(
                new String(B64D.decode(kv.path("key").asText("")), StandardCharsets.UTF_8),
                B64D.decode(kv.path("value").asText("")),
                kv.path("create_revision").asLong(0),
                kv.path("mod_revision").asLong(0),
                kv.path("version").asLong(0),
                kv.path("lease").asLong(0));
    }

    static long revision(JsonNode a) {
        return a.path("header").path("revision").asLong(0);
    }

    static String b64(String s) {
        return B64.encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The smallest key after every key starting with {@code prefix} (a range's end for "all keys with this prefix"). */
    public static String prefixEnd(String prefix) {
        char[] c = prefix.toCharArray();
        c[c.length - 1]++;
        return new String(c);
    }

    /** Closes the idle connections (a watch's stream is its own: {@link EtcdWatch#close()} ends it). */
    @Override
    public void close() {
        unary.close();
    }
}
