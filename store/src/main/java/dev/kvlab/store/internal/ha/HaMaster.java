package dev.kvlab.store.internal.ha;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.store.api.server.HaLaunch;
import dev.kvlab.store.api.server.MasterStatus;
import dev.kvlab.store.internal.master.MasterImage;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.rpc.NotLeaderException;
import dev.kvlab.store.internal.server.MasterService;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One master of a replicated cluster: it campaigns for the leadership in etcd and, while another leads, stands by
 * applying the oplog to its view. Its {@link MasterService} serves object calls only while it leads (the gate: the
 * role is leader, the lease is {@link LeaseKeeper#valid() valid} by this process's clock, and the oplog writer was not
 * fenced) — so an old leader that stalled past its lease, or lost etcd, refuses every write at once.
 *
 * <p>Election: a master that finds no {@code leader} key creates it, on its lease, in a transaction that also raises
 * {@code term} (the epoch) by one — only if the leader key is still absent and the term unchanged. It then replays the
 * rest of the log (final now: the old leader's writes are conditional on its own election key), rebuilds its master
 * from its view ({@link StoreMaster#restore}), starts writing the log with put ids from {@code term << 40} (never an
 * id an older leader gave), and marks itself serving in the leader key. Clients follow that key. On losing the lease
 * (or being fenced) it stops serving, drops its metadata (it may hold changes no one else has) and starts over as a standby.
 */
public final class HaMaster implements AutoCloseable {

    private record Campaign(long term, long leaderRev) {}

    private final EtcdClient etcd;
    private final HaKeys keys;
    private final HaLaunch ha;
    private final String advertise;
    private final MasterConfig config;
    private final Clock clock;
    private final MasterService service;
    private final Object signal = new Object();
    private final Thread loop;
    private volatile boolean closed;
    private volatile String role = "starting";
    private volatile long term;
    private volatile String leaderName = "", leaderAddress = "";
    private volatile LeaseKeeper lease;
    private volatile OpLogWriter writer;
    private volatile StandbyImage image;
    private volatile String lastError = "";
    private volatile Thread warmup;

    public HaMaster(HaLaunch ha, String advertise, MasterConfig config, Clock clock, MasterService service) {
        EtcdSpec spec = EtcdSpec.parse(ha.etcd());
        this.etcd = new EtcdClient(spec, Duration.ofMillis(1500));
        this.keys = HaKeys.of(spec.cluster());
        this.ha = ha;
        this.advertise = advertise;
        this.config = config;
        this.clock = clock;
        this.service = service;
        service.replaceMaster(new StoreMaster(config, clock));
        service.gate(this::check);
        service.statusSource(this::status);
        this.loop = Thread.ofPlatform().daemon().name("kvlab-ha-" + ha.name()).start(this::run);
    }

    public String role() {
        return role;
    }

    public long term() {
        return term;
    }

    public String lastError() {
        return lastError;
    }

    /** Waits up to {@code millis} for the one-time warm-up of the serving path (see {@link StandbyWarmup}); true when it is done. */
    public boolean awaitWarm(long millis) throws InterruptedException {
        long until = System.nanoTime() + millis * 1_000_000L;
        while (warmup == null && System.nanoTime() < until) Thread.sleep(10);
        Thread t = warmup;
        if (t == null) return false;
        t.join(Math.max(1, (until - System.nanoTime()) / 1_000_000L));
        return !t.isAlive();
    }

    /** What this master wrote to the oplog in its current term (nothing unless it leads). */
    public dev.kvlab.store.api.server.OplogStats oplog() {
        OpLogWriter w = writer;
        if (w == null) return dev.kvlab.store.api.server.OplogStats.NONE;
        long first = w.firstSeqOfTerm();
        return new dev.kvlab.store.api.server.OplogStats(
                w.appendedSeq() - first + 1, w.durableSeq() - first + 1, w.batches(), w.bytesWritten());
    }

    private void check() {
        LeaseKeeper l = lease;
        OpLogWriter w = writer;
        if ("leader".equals(role) && l != null && l.valid() && w != null && !w.fenced()) return;
        throw new NotLeaderException(ha.name() + " is not the leader (" + role
                + (leaderName.isEmpty() || leaderName.equals(ha.name())
                        ? ""
                        : "; leader " + leaderName + " at " + leaderAddress)
                + ", term " + term + ")");
    }

    /** This master's role, term, leader and what it holds. */
    public MasterStatus status() {
        String r = role;
        if ("leader".equals(r)) {
            OpLogWriter w = writer;
            MasterStats s = service.statsSnapshot();
            return new MasterStatus(
                    lease != null && lease.valid() ? r : "fenced",
                    ha.name(),
                    term,
                    ha.name(),
                    advertise,
                    w == null ? 0 : w.appendedSeq(),
                    s.objects(),
                    s.segments());
        }
        StandbyImage i = image;
        return new MasterStatus(
                r,
                ha.name(),
                term,
                leaderName,
                leaderAddress,
                i == null ? 0 : i.applied(),
                i == null ? 0 : i.objects(),
                i == null ? 0 : i.segments());
    }

    private void run() {
        while (!closed) {
            try {
                cycle();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                lastError = String.valueOf(e.getMessage());
                if (!closed)
                    System.err.println("kvlab master " + ha.name() + ": " + e.getMessage() + "; starting over in 1 s");
                role = "starting";
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** One life: a lease, a standby view, and (perhaps) a leadership, until the lease is lost. */
    private void cycle() throws InterruptedException {
        LeaseKeeper l = new LeaseKeeper(etcd, ha.lease().toSeconds());
        lease = l;
        OpLogReader reader = null;
        try {
            StandbyImage img = new StandbyImage();
            image = img;
            reader = new OpLogReader(etcd, keys, img, ha.lagMicros() == null ? x -> {} : ha.lagMicros());
            long rev = reader.bootstrap();
            reader.follow(rev + 1, this::wake);
            role = "standby";
            if (warmup == null)
                warmup = StandbyWarmup.start(config, 2500, 5000, () -> "standby".equals(role) && !closed);
            long nextPublish = 0;
            while (!closed && l.valid()) {
                Campaign c = campaign(l);
                if (c != null) {
                    reader.stop();
                    lead(c, l, reader, img);
                    return;
                }
                if (System.nanoTime() >= nextPublish) {
                    publishMember(l, img.applied(), img.objects());
                    nextPublish = System.nanoTime() + 1_000_000_000L;
                }
                synchronized (signal) {
                    signal.wait(500);
                }
            }
        } finally {
            if (reader != null) reader.stop();
            role = "starting";
            l.close();
        }
    }

    private void wake() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** Takes the leadership if nobody holds it; null when another master leads (whose name and address are noted). */
    private Campaign campaign(LeaseKeeper l) {
        for (int attempt = 0; attempt < 5; attempt++) {
            EtcdClient.KeyValue t = etcd.get(keys.term());
            long seen = t == null ? 0 : Long.parseLong(t.text().strip());
            long seenRev = t == null ? 0 : t.modRevision();
            EtcdClient.TxnResult r = etcd.txn(
                    List.of(
                            EtcdClient.Compare.createRevision(keys.leader(), 0),
                            EtcdClient.Compare.modRevision(keys.term(), seenRev)),
                    List.of(
                            new EtcdClient.Put(keys.leader(), leaderValue(seen + 1, false), l.id()),
                            new EtcdClient.Put(
                                    keys.term(), Long.toString(seen + 1).getBytes(StandardCharsets.UTF_8), 0)),
                    List.of(new EtcdClient.Get(keys.leader())));
            if (r.succeeded()) return new Campaign(seen + 1, r.revision());
            if (!r.kvs().isEmpty()) {
                noteLeader(r.kvs().getFirst());
                return null;
            }
        }
        return null;
    }

    private void noteLeader(EtcdClient.KeyValue kv) {
        LeaderInfo li = LeaderInfo.parse(kv);
        leaderName = li.name();
        leaderAddress = li.address();
        term = li.term();
    }

    private byte[] leaderValue(long t, boolean serving) {
        return new LeaderInfo(ha.name(), advertise, t, serving, 0).json().getBytes(StandardCharsets.UTF_8);
    }

    /** Leads term {@code c.term()} until the lease is lost, this writer is fenced, or the master closes. */
    private void lead(Campaign c, LeaseKeeper l, OpLogReader reader, StandbyImage img) throws InterruptedException {
        long t0 = System.nanoTime();
        role = "promoting";
        term = c.term();
        leaderName = ha.name();
        leaderAddress = advertise;
        reader.catchUp();
        long now = clock.millis() * 1_000_000L;
        MasterImage mi = img.image();
        StoreMaster m = StoreMaster.restore(
                config, clock, mi, c.term() << 40, now + config.leaseTtl().toNanos());
        OpLogWriter w =
                new OpLogWriter(etcd, keys, c.term(), c.leaderRev(), img.applied() + 1, img.ordinals(), this::wake);
        m.journal(w);
        writer = w;
        service.replaceMaster(m);
        role = "leader";
        try {
            EtcdClient.TxnResult r = etcd.txn(
                    List.of(EtcdClient.Compare.createRevision(keys.leader(), c.leaderRev())),
                    List.of(new EtcdClient.Put(keys.leader(), leaderValue(c.term(), true), l.id())),
                    List.of());
            if (!r.succeeded()) return;
            System.err.printf(
                    "kvlab master %s: leading term %d: %d objects and %d segments from the oplog (entry %d) in %.0f ms%n",
                    ha.name(),
                    c.term(),
                    m.stats().objects(),
                    mi.segments().size(),
                    img.applied(),
                    (System.nanoTime() - t0) / 1e6);
            serve(c, l, m, w);
        } finally {
            role = "standby";
            w.close();
            writer = null;
            service.replaceMaster(new StoreMaster(config, clock));
            image = null;
            System.err.println("kvlab master " + ha.name() + ": no longer leads term " + c.term() + " ("
                    + (w.fenced() ? "fenced" : l.lostWhy() != null ? l.lostWhy() : "closing") + ")");
        }
    }

    /** The leader's watch: publishes its progress each second and writes snapshots when due. */
    private void serve(Campaign c, LeaseKeeper l, StoreMaster m, OpLogWriter w) throws InterruptedException {
        long lastSnapSeq = w.appendedSeq(), lastSnapAt = System.nanoTime();
        while (!closed && l.valid() && !w.fenced()) {
            if (l.awaitLost(1000)) return;
            long seq = w.appendedSeq();
            MasterStats st = service.statsSnapshot();
            try {
                publishMember(l, seq, st.objects());
                boolean due = seq - lastSnapSeq >= Math.max(ha.snapshotEntries(), 2 * st.objects())
                        || (seq > lastSnapSeq
                                && System.nanoTime() - lastSnapAt
                                        >= ha.snapshotInterval().toNanos());
                if (due && snapshot(c, m, w)) {
                    lastSnapSeq = seq;
                    lastSnapAt = System.nanoTime();
                }
            } catch (EtcdException e) {
                lastError = e.getMessage();
            }
        }
    }

    private boolean snapshot(Campaign c, StoreMaster m, OpLogWriter w) throws InterruptedException {
        Map<String, Integer> ords = new HashMap<>();
        long[] seq = new long[1];
        MasterImage img = m.export(() -> seq[0] = w.cut(ords));
        byte[] data = Snapshots.encode(img, seq[0], c.term(), ords);
        if (!w.awaitDurable(seq[0], 10_000)) return false;
        return Snapshots.write(etcd, keys, c.leaderRev(), seq[0], c.term(), data);
    }

    private void publishMember(LeaseKeeper l, long seq, long objects) {
        String v = "{\"name\":\"" + ha.name() + "\",\"address\":\"" + advertise + "\",\"role\":\"" + role
                + "\",\"term\":" + term + ",\"applied_seq\":" + seq + ",\"objects\":" + objects + "}";
        etcd.put(keys.member(ha.name()), v.getBytes(StandardCharsets.UTF_8), l.id());
    }

    @Override
    public void close() {
        closed = true;
        role = "closing";
        loop.interrupt();
        try {
            loop.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        etcd.close();
    }
}
