package dev.kvlab.store.internal.ha;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * The value of the {@code leader} key: who leads, where clients reach it, its term, and whether it serves yet (a new
 * leader replays the rest of the log first). {@code createRevision} is etcd's revision of the key's creation.
 */
public record LeaderInfo(String name, String address, long term, boolean serving, long createRevision) {

    String json() {
        return "{\"name\":\"" + name + "\",\"address\":\"" + address + "\",\"term\":" + term + ",\"serving\":" + serving
                + "}";
    }

    static LeaderInfo parse(EtcdClient.KeyValue kv) {
        try {
            JsonNode n = EtcdClient.JSON.readTree(kv.value());
            return new LeaderInfo(
                    n.path("name").asText(""),
                    n.path("address").asText(""),
                    n.path("term").asLong(0),
                    n.path("serving").asBoolean(false),
                    kv.createRevision());
        } catch (IOException e) {
            throw new IllegalStateException("unreadable leader record: " + kv.text(), e);
        }
    }

    /** The leader etcd names now, or null when there is none. */
    static LeaderInfo read(EtcdClient etcd, HaKeys keys) {
        EtcdClient.KeyValue kv = etcd.get(keys.leader());
        return kv == null ? null : parse(kv);
    }
}
