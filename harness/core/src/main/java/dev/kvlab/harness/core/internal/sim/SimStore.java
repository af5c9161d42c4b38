package dev.kvlab.harness.core.internal.sim;

import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.engine.Instance;
import dev.kvlab.harness.core.internal.engine.RemoteCounters;
import dev.kvlab.harness.core.internal.engine.RemoteTier;
import dev.kvlab.harness.core.internal.engine.Seq;
import dev.kvlab.harness.core.internal.engine.WriteBackLanes;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.store.Masters;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.Master;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.workloads.api.BlockKeys;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The shared store in simulation: the store's own master metadata logic ({@link Master}: allocation,
 * replicas, leases, watermark eviction) runs under the virtual clock with the run's seed; data movement costs
 * what the {@link TransportModel} says on the instance's link, shared by its concurrent transfers. Objects carry a
 * key-derived checksum instead of bytes, and every fetched block is verified against it (length, checksum,
 * lease still valid when the transfer ends); only the verified prefix is delivered. The sim's checksum is a
 * 32-bit digest of the key and length, standing in for the CRC32C of the key-derived payload.
 */
public final class SimStore implements RemoteTier {

    /** Metadata shards of the simulated master. */
    static final int SIM_SHARDS = 16;

    private final CellPlan plan;
    private final EventLoop loop;
    private final Master master;
    private final TransportModel model;
    private final long blockBytes;
    private final long blockBytesAllRanks;
    private final ReplicateConfig replicate;
    private final FaultHook faults;
    /** PD with a handover path of its own ({@link CellPlan#handoffPath}): each prefill instance's link to the decode side. */
    private final Map<Instance, List<SharedLink>> handoffLinks = new java.util.IdentityHashMap<>();
    /** Calls made to the master, by operation (for observers; the sim has no RPC, these are its master calls). */
    private long existsCalls, replicaListCalls, putStartCalls, putEndCalls;

    private final RemoteCounters counters = new RemoteCounters();
    /** Gets and puts of the cell's data in flight, and since when none has been (the path's idle spell). */
    private int dataInFlight;

    private long dataIdleSince;
    private final WriteBackLanes lanes;
    /**
     * Recently made store keys by block key, direct-mapped (a cache of bounded size, not a map): requests sharing a
     * prefix then pass the master the same {@code String}, whose hash is already computed and which its map
     * compares by identity — the master's map lookups were a quarter of a trace replay. Which string instance a
     * key is never changes a result. Sized to the objects the store can hold, at most 2^18 slots.
     */
    private final long[] keyCacheBlocks;

    private final String[] keyCache;
    private final int keyCacheMask;

    /** Lets tests (and fault injection) alter what a read returns: the checksum a block comes back with. */
    public interface FaultHook {
        int checksumRead(String key, int stored);

        /** The checksum a read of {@code key} from the replicas of {@code read} comes back with (fault injection may look at where they live). */
        default int checksumRead(String key, ReplicaList read) {
            return checksumRead(key, read.crc32c());
        }

        /** Extra time every fetch takes now (a slowed read or link: the fault injection's lease-expiry and link-delay). */
        default long fetchDelayNanos() {
            return 0;
        }

        /**
         * Whether a call of {@code keys} keys reaches a master now (false while a modelled failover has no leader serving:
         * the call fails, as a live client's does, and the hook counts its keys).
         */
        default boolean masterReachable(int keys) {
            return true;
        }

        FaultHook NONE = (k, c) -> c;
    }

    public SimStore(CellPlan plan, EventLoop loop, Clock clock, TransportModel model, FaultHook faults) {
        this.plan = plan;
        this.loop = loop;
        this.model = model;
        this.faults = faults == null ? FaultHook.NONE : faults;
        var st = plan.config().store();
        // the sim is single-threaded: metadata shards (lock striping of the real server) only cost scans here;
        // no decision of the master depends on their number; no client goes silent
        MasterConfig mc = plan.masterConfig().withClientTtl(Duration.ofDays(3650));
        mc = new MasterConfig(
                SIM_SHARDS,
                mc.strategy(),
                mc.seed(),
                mc.alignment(),
                mc.leaseTtl(),
                mc.softPinTtl(),
                mc.discardTimeout(),
                mc.releaseTimeout(),
                mc.highWatermark(),
                mc.evictionRatio(),
                mc.clientTtl());
        this.master = Masters.singleThreaded(mc, clock); // the loop is its only caller
        long perNode = plan.storeCapacity() / st.nodes();
        for (int i = 0; i < st.nodes(); i++) master.mountSegment(clientName(i), segmentName(i), perNode);
        this.blockBytes = plan.blockBytes();
        this.blockBytesAllRanks = plan.blockBytesAllRanks();
        long objects = plan.storeCapacity() / Math.max(1, blockBytes);
        int slots = 16;
        while (slots < objects && slots < 1 << 18) slots <<= 1;
        this.keyCacheBlocks = new long[slots];
        this.keyCache = new String[slots];
        this.keyCacheMask = slots - 1;
        this.replicate = ReplicateConfig.replicas(st.replicas());
        this.lanes = new WriteBackLanes(
                plan.config().cluster().instances(),
                st.writeBackConcurrency(),
                st.writeBackQueueBlocks(),
                counters,
                this::startWrite);
    }

    public Master master() {
        return master;
    }

    /** The master's client id of sim node {@code i}. */
    public static String clientName(int i) {
        return "sim-node-" + i;
    }

    /** The segment sim node {@code i} mounts. */
    public static String segmentName(int i) {
        return "sim-node-" + i + "/seg-0";
    }

    /** The checksum an intact object of block key {@code key} carries (the store key is derived from it one to one). */
    public static int checksum(long key, long length) {
        long h = BlockKeys.mix(BlockKeys.mix(key ^ 0x243F6A8885A308D3L) + length);
        return (int) (h ^ (h >>> 32));
    }

    private int checksum(Seq s, int block) {
        return checksum(s.request.blockKeys()[block], blockBytes);
    }

    /** The store key of block {@code block} of {@code s}, from the key cache when it holds it. */
    private String key(Seq s, int block) {
        long b = s.request.blockKeys()[block];
        int i = (int) ((b * 0x9E3779B97F4A7C15L) >>> 40) & keyCacheMask;
        String k = keyCache[i];
        if (k == null || keyCacheBlocks[i] != b) {
            k = BlockKeys.storeKey(b);
            keyCache[i] = k;
            keyCacheBlocks[i] = b;
        }
        return k;
    }

    @Override
    public void lookup(Seq s, int from, int max, IntConsumer done) {
        if (max > from
                && !faults.masterReachable(
                        max - from)) { // no master: a live client's exists call fails, every block is a miss
            loop.after(plan.lookupNanos(), () -> done.accept(0));
            return;
        }
        int n = 0;
        while (from + n < max && master.exists(key(s, from + n))) n++;
        existsCalls += Math.min(n + 1, Math.max(0, max - from));
        int found = n;
        loop.after(plan.lookupNanos(), () -> done.accept(found));
    }

    @Override
    public void fetch(Seq s, int from, int count, Consumer<Fetched> done) {
        Instance in = s.instance();
        ReplicaList[] lists = new ReplicaList[count];
        int found = 0;
        while (found < count) {
            ReplicaList rl = master.getReplicaList(key(s, from + found));
            replicaListCalls++;
            if (!rl.found()) break;
            lists[found++] = rl;
        }
        int moved = found;
        long bytes = moved * blockBytesAllRanks;
        in.activeTransfersInc();
        double secs = moved == 0 ? 0 : model.batchSeconds(bytes, moved, in.activeTransfers()) + dataBegins();
        loop.after(plan.lookupNanos() + Math.round(secs * 1e9) + faults.fetchDelayNanos(), () -> {
            in.activeTransfersDec();
            if (moved > 0) dataEnds();
            long now = master.nowNanos();
            int ok = 0;
            while (ok < moved) {
                String k = key(s, from + ok);
                ReplicaList rl = lists[ok];
                int crc = faults.checksumRead(k, rl);
                if (now > rl.leaseDeadlineNanos() || rl.length() != blockBytes || crc != checksum(s, from + ok)) break;
                lists[ok] = new ReplicaList(
                        rl.status(), rl.length(), crc, rl.replicas(), rl.leaseDeadlineNanos(), rl.leaseTtlNanos());
                ok++;
            }
            // audit: every block the model will use must carry its key's checksum
            int wrong = 0;
            for (int i = 0; i < ok; i++) if (lists[i].crc32c() != checksum(s, from + i)) wrong++;
            counters.fetched(ok, count - ok, wrong);
            done.accept(new Fetched(ok, count - ok, bytes));
        });
    }

    @Override
    public void writeBack(Seq s, int from, int to) {
        lanes.offer(s, from, to);
    }

    /** PutStart every block, move the bytes, PutEnd them; false when nothing needed writing. */
    private boolean startWrite(Seq s, int from, int to, Instance in, Runnable done) {
        int n = to - from;
        if (n > 0 && !faults.masterReachable(n)) { // no master: the put fails, nothing is written
            counters.writeFailed(n);
            return false;
        }
        String[] keys = new String[n];
        long[] ids = new long[n];
        int started = 0;
        int replicas = 0;
        for (int i = 0; i < n; i++) {
            String k = key(s, from + i);
            PutStartResult r = master.putStart(k, blockBytes, checksum(s, from + i), replicate);
            putStartCalls++;
            switch (r.status()) {
                case STARTED -> {
                    keys[started] = k;
                    ids[started++] = r.putId();
                    replicas += r.replicas().size();
                }
                case EXISTS, IN_PROGRESS -> counters.skipped();
                case NO_SPACE -> counters.noSpace();
            }
        }
        if (started == 0) return false;
        int m = started;
        long bytes = replicas * blockBytes;
        in.activeTransfersInc();
        double secs = model.batchSeconds(bytes, replicas, in.activeTransfers()) + dataBegins();
        loop.after(plan.lookupNanos() + Math.round(secs * 1e9), () -> {
            in.activeTransfersDec();
            dataEnds();
            boolean reachable = faults.masterReachable(m);
            for (int i = 0; i < m; i++) {
                putEndCalls++;
                if (!reachable) { // the PutEnd finds no master: the put is never visible (the new leader reclaims it)
                    master.putRevoke(keys[i], ids[i]);
                    counters.writeFailed(1);
                } else if (master.putEnd(keys[i], ids[i]) == EndStatus.OK) counters.written(blockBytes);
                else counters.writeFailed(1);
            }
            done.run();
        });
        return true;
    }

    @Override
    public void handoff(Seq s, Runnable done) {
        Instance in = s.instance();
        long bytes = (long) s.promptBlocks() * blockBytesAllRanks;
        counters.handoff(bytes);
        in.activeTransfersInc();
        if (!plan.handoffPath().isEmpty()) { // a path of its own, measured: each leg a link its handovers share
            List<SharedLink> legs = handoffLinks.computeIfAbsent(in, k -> {
                List<SharedLink> l = new ArrayList<>();
                for (TransportModel m : plan.handoffPath()) l.add(new SharedLink(loop, m));
                return l;
            });
            overLegs(legs, 0, bytes, () -> {
                in.activeTransfersDec();
                done.run();
            });
            return;
        }
        double secs = model.batchSeconds(bytes, s.promptBlocks(), in.activeTransfers());
        loop.after(Math.round(secs * 1e9), () -> {
            in.activeTransfersDec();
            done.run();
        });
    }

    /**
     * A get or put of the store's data begins: what the path's wake adds to it (s; {@link TransportModel#wakeSeconds},
     * 0 on a modelled link), when nothing of the cell was moving on it before.
     */
    private double dataBegins() {
        double wake = dataInFlight == 0 ? model.wakeSeconds(loop.now() - dataIdleSince) : 0;
        dataInFlight++;
        return wake;
    }

    private void dataEnds() {
        if (--dataInFlight == 0) dataIdleSince = loop.now();
    }

    private static void overLegs(List<SharedLink> legs, int i, long bytes, Runnable done) {
        if (i == legs.size()) done.run();
        else legs.get(i).transfer(bytes, () -> overLegs(legs, i + 1, bytes, done));
    }

    @Override
    public TransportModel linkModel() {
        return model;
    }

    @Override
    public long blockBytesAllRanks() {
        return blockBytesAllRanks;
    }

    @Override
    public RemoteStats stats() {
        return counters.snapshot();
    }

    /** Calls made to the master so far, by operation ({@code exists, get_replica_list, put_start, put_end}). */
    public Map<String, Long> masterCalls() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("exists", existsCalls);
        m.put("get_replica_list", replicaListCalls);
        m.put("put_start", putStartCalls);
        m.put("put_end", putEndCalls);
        return m;
    }

    @Override
    public String describe() {
        return "store master metadata under the virtual clock; data movement by transport model " + model.name()
                + (model.emulated() ? " (emulated)" : " (calibrated)");
    }
}
