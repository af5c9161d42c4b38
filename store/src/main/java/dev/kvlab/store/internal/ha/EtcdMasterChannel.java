package dev.kvlab.store.internal.ha;

import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.api.server.MasterStatus;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.rpc.MasterUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A {@link MasterChannel} to whichever master leads the cluster of an etcd ({@code etcd://HOST:PORT[/CLUSTER]}): the
 * leader key names it, a watch of that key follows every change, and calls go to it over gRPC. A call that finds its
 * master gone or no longer leading asks etcd once who leads now and, if that is another master already serving, makes
 * the call there; otherwise it fails at once ({@link MasterUnavailableException}: a client falls back, it does not
 * wait out the failover). Listeners hear of each new leader (nodes re-register their segments with it).
 */
public final class EtcdMasterChannel implements MasterChannel {

    private record Target(LeaderInfo leader, GrpcMasterChannel channel) {}

    private final EtcdSpec spec;
    private final EtcdClient etcd;
    private final HaKeys keys;
    private final Duration deadline;
    private final String token;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile Target current;
    private volatile EtcdWatch watch;
    private volatile boolean closed;

    public EtcdMasterChannel(EtcdSpec spec, Duration deadline, String token) {
        this.spec = spec;
        this.etcd = new EtcdClient(spec, Duration.ofMillis(Math.min(2000, Math.max(500, deadline.toMillis()))));
        this.keys = HaKeys.of(spec.cluster());
        this.deadline = deadline;
        this.token = token;
        try {
            refresh();
        } catch (EtcdException e) {
            // not reachable yet: the first call says so
        }
        watchLeader();
    }

    /** Runs {@code r} whenever another master starts leading (on the watch's thread). */
    public void onLeaderChange(Runnable r) {
        listeners.add(r);
    }

    /** The leader calls go to now, or null. */
    public LeaderInfo leader() {
        Target t = current;
        return t == null ? null : t.leader();
    }

    private void watchLeader() {
        if (closed) return;
        long rev;
        try {
            rev = etcd.range(keys.leader(), null, 0).revision();
            refresh();
        } catch (EtcdException e) {
            Thread.ofVirtual().start(() -> {
                sleep(500);
                watchLeader();
            });
            return;
        }
        watch = EtcdWatch.start(etcd, keys.leader(), null, rev + 1, evs -> refreshQuietly(), why -> {
            if (closed) return;
            Thread.ofVirtual().start(() -> {
                sleep(200);
                watchLeader();
            });
        });
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            // the next call asks again
        }
    }

    /** Reads the leader key; switches to the leader it names when that one serves. The target now (null: none serving). */
    private synchronized Target refresh() {
        LeaderInfo li = LeaderInfo.read(etcd, keys);
        Target t = current;
        if (t != null
                && li != null
                && t.leader().createRevision() == li.createRevision()
                && t.leader().address().equals(li.address())) return t;
        if (li == null
                || !li.serving()
                || li.address().isEmpty()) { // none serving: calls fail at once instead of trying a gone master
            retire(t);
            return null;
        }
        int colon = li.address().lastIndexOf(':');
        GrpcMasterChannel ch = new GrpcMasterChannel(
                li.address().substring(0, colon), Integer.parseInt(li.address().substring(colon + 1)), deadline, token);
        Target n = new Target(li, ch);
        retire(t);
        current = n;
        for (Runnable r : listeners) r.run();
        return n;
    }

    private void retire(Target t) {
        if (t == null || current != t) return;
        current = null;
        GrpcMasterChannel old = t.channel();
        Thread.ofVirtual()
                .start(
                        () -> { // calls still in flight on the old master finish or fail first
                            sleep(deadline.toMillis());
                            old.close();
                        });
    }

    private <T> T call(Function<MasterChannel, T> f) {
        Target t = current;
        if (t == null) {
            try {
                t = refresh();
            } catch (EtcdException e) {
                throw new MasterUnavailableException("etcd " + spec.first() + ": " + e.getMessage(), e);
            }
            if (t == null)
                throw new MasterUnavailableException(
                        "no master leads the cluster '" + spec.cluster() + "' in etcd " + spec.first() + " now", null);
        }
        try {
            return f.apply(t.channel());
        } catch (MasterUnavailableException e) {
            Target n;
            try {
                n = refresh();
            } catch (RuntimeException re) {
                throw e;
            }
            if (n == null || n == t) throw e;
            return f.apply(n.channel()); // another master leads and serves already: the call completes there
        }
    }

    @Override
    public boolean ping(String clientId) {
        return call(c -> c.ping(clientId));
    }

    @Override
    public MountStatus mount(String clientId, String segment, long size, String endpoint) {
        return call(c -> c.mount(clientId, segment, size, endpoint));
    }

    @Override
    public boolean unmount(String clientId, String segment) {
        return call(c -> c.unmount(clientId, segment));
    }

    @Override
    public List<PutStartResult> putStart(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config) {
        return call(c -> c.putStart(tenant, keys, lengths, crcs, config));
    }

    @Override
    public List<EndStatus> putEnd(String tenant, List<String> keys, long[] putIds) {
        return call(c -> c.putEnd(tenant, keys, putIds));
    }

    @Override
    public List<EndStatus> putRevoke(String tenant, List<String> keys, long[] putIds) {
        return call(c -> c.putRevoke(tenant, keys, putIds));
    }

    @Override
    public ReplicaList getReplicaList(String tenant, String key) {
        return call(c -> c.getReplicaList(tenant, key));
    }

    @Override
    public List<ReplicaList> getReplicaLists(String tenant, List<String> keys) {
        return call(c -> c.getReplicaLists(tenant, keys));
    }

    @Override
    public boolean[] exists(String tenant, List<String> keys) {
        return call(c -> c.exists(tenant, keys));
    }

    @Override
    public RemoveStatus remove(String tenant, String key) {
        return call(c -> c.remove(tenant, key));
    }

    @Override
    public boolean reportCorrupt(String tenant, String key, String segment, long offset) {
        return call(c -> c.reportCorrupt(tenant, key, segment, offset));
    }

    @Override
    public MasterStatus status() {
        return call(MasterChannel::status);
    }

    @Override
    public void close() {
        closed = true;
        EtcdWatch w = watch;
        if (w != null) w.close();
        Target t = current;
        if (t != null) t.channel().close();
        etcd.close();
    }
}
