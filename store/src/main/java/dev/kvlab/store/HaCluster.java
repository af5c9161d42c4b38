package dev.kvlab.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.store.api.server.ClusterStatus;
import dev.kvlab.store.api.server.MasterStatus;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.ha.EtcdClient;
import dev.kvlab.store.internal.ha.EtcdSpec;
import dev.kvlab.store.internal.ha.HaKeys;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A replicated store's masters seen from outside ({@code kvlab store status}): what etcd says of them, and what one
 * master says of itself. Failures to reach etcd are {@link IllegalStateException}s saying so.
 */
public final class HaCluster {

    private static final ObjectMapper JSON = new ObjectMapper();

    private HaCluster() {}

    /** True for {@code etcd://...} and {@code kvlab+etcd://...}. */
    public static boolean isEtcd(String spec) {
        return EtcdSpec.is(spec);
    }

    /** {@code spec} checked as an etcd address ({@link IllegalArgumentException} saying what is wrong), normalized. */
    public static String checkEtcd(String spec) {
        return EtcdSpec.parse(spec).toString();
    }

    /** The HOST:PORT of the first etcd endpoint of {@code spec}. */
    public static String firstEndpoint(String spec) {
        return EtcdSpec.parse(spec).first();
    }

    /** The cluster of masters in the etcd of {@code spec}, read within {@code timeout} per request. */
    public static ClusterStatus status(String spec, Duration timeout) {
        EtcdSpec s = EtcdSpec.parse(spec);
        HaKeys keys = HaKeys.of(s.cluster());
        try (EtcdClient etcd = new EtcdClient(s, timeout)) {
            EtcdClient.KeyValue term = etcd.get(keys.term());
            EtcdClient.KeyValue lead = etcd.get(keys.leader());
            JsonNode l = lead == null ? null : JSON.readTree(lead.value());
            boolean serving = l != null && l.path("serving").asBoolean(false);
            List<ClusterStatus.Member> members = new ArrayList<>();
            for (EtcdClient.KeyValue kv : etcd.range(keys.members(), EtcdClient.prefixEnd(keys.members()), 0)
                    .kvs()) {
                JsonNode m = JSON.readTree(kv.value());
                members.add(new ClusterStatus.Member(
                        m.path("name").asText(),
                        m.path("address").asText(),
                        m.path("role").asText(),
                        m.path("term").asLong(),
                        m.path("applied_seq").asLong(),
                        m.path("objects").asLong()));
            }
            EtcdClient.KeyValue snap = etcd.get(keys.snapshot());
            long snapSeq =
                    snap == null ? 0 : JSON.readTree(snap.value()).path("seq").asLong();
            EtcdClient.KeyValue last = etcd.lastKey(keys.logPrefix(), EtcdClient.prefixEnd(keys.logPrefix()));
            return new ClusterStatus(
                    s.toString(),
                    serving ? l.path("name").asText() : null,
                    serving ? l.path("address").asText() : null,
                    term == null ? 0 : Long.parseLong(term.text().strip()),
                    l != null && !serving ? l.path("name").asText() : null,
                    members,
                    snapSeq,
                    last == null ? 0 : keys.seqOf(last.key()));
        } catch (IOException e) {
            throw new IllegalStateException("unreadable record in etcd " + s.first() + ": " + e.getMessage(), e);
        } catch (dev.kvlab.store.internal.ha.EtcdException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * A client of the replicated store of {@code spec} ({@code kvlab+etcd://} as {@code KvBackends} opens it, no token) that
     * also tells {@code failedKeys} how many keys each object call carried that found no master (a failover's cost).
     */
    public static dev.kvlab.store.api.KvBackend openClient(
            String spec, dev.kvlab.store.api.BackendOptions options, java.util.function.LongConsumer failedKeys) {
        return dev.kvlab.store.internal.ha.HaClients.open(spec, options, failedKeys);
    }

    /** Deletes every key of the cluster of {@code spec} from its etcd (a benchmark's own cluster, once its masters are gone). */
    public static void forget(String spec) {
        EtcdSpec s = EtcdSpec.parse(spec);
        HaKeys keys = HaKeys.of(s.cluster());
        try (EtcdClient etcd = new EtcdClient(s, Duration.ofSeconds(5))) {
            etcd.delete(keys.root(), EtcdClient.prefixEnd(keys.root()));
        } catch (dev.kvlab.store.internal.ha.EtcdException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** What the master at {@code host:port} says of itself ({@code token}: null for none). */
    public static MasterStatus master(String host, int port, String token, Duration timeout) {
        try (GrpcMasterChannel ch = new GrpcMasterChannel(host, port, timeout, token)) {
            return ch.status();
        }
    }
}
