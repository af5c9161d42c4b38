package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.api.config.Policy;
import dev.kvlab.harness.api.config.RouterKind;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.workloads.api.Request;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The serving model: instances behind a router, each with continuous batching and a local prefix cache, the
 * shared store as the remote tier, the fetch policy, asynchronous write-back and optional PD disaggregation.
 * It runs on an {@link EventLoop} (sim or live clock) and reports to a {@link ServingListener}; it measures
 * nothing itself.
 *
 * <p>Life of a request: arrive → route → wait in the instance's queue → admit (reserve KV blocks, pin the
 * local HBM prefix hit) → look up the continuation in the store → fetch what the policy picks (and load it into the
 * engine, where the hardware has a {@link dev.kvlab.harness.api.catalog.KvLoadCost}), load DRAM hits →
 * prefill the rest in batches → first token → decode (one token per iteration) → done. Prefix dependence holds
 * throughout: a hit is always a contiguous run of blocks from the start, and a fetch delivers only its verified
 * prefix (the remote tier's guarantee), the rest being recomputed.
 */
public final class ServingModel implements Server {

    /** Outcome of an admission attempt. */
    enum Admission {
        ADMITTED,
        WAIT,
        FAILED
    }

    final EventLoop loop;
    private final CellPlan plan;
    private final RemoteTier remote;
    private final FetchPolicy policy;
    private final Router router;
    private final PoolIndex pool;
    private final boolean localTier, remoteTier, pd, cacheChunks;
    private final List<Instance> instances = new ArrayList<>();
    private final List<Instance> prefillSide = new ArrayList<>();
    private final List<Instance> decodeSide = new ArrayList<>();
    private final double dramBytesPerSecond;
    private ServingListener listener;
    private long inFlight, completed, failed;

    public ServingModel(CellPlan plan, EventLoop loop, RemoteTier remote, ServingListener listener) {
        RunConfig c = plan.config();
        this.plan = plan;
        this.loop = loop;
        this.remote = remote;
        this.listener = listener;
        this.localTier = c.tiers().local();
        this.remoteTier = c.tiers().remote();
        this.pd = c.pd() == Pd.DISAGGREGATED;
        this.cacheChunks = c.scheduler().cacheChunks();
        this.policy = new FetchPolicy(c.policy(), plan.roofline());
        // only the kv-centric router reads the pool index; the others do not pay for keeping it on every write-back
        boolean poolView = remoteTier && c.cluster().router() == RouterKind.KV_CENTRIC;
        this.pool = new PoolIndex(poolView ? plan.storeCapacity() / Math.max(1, plan.blockBytes()) : 0);
        this.router = new Router(
                c.cluster().router(),
                c.cluster().cacheAware(),
                localTier,
                c.seed(),
                new KvCentricEstimate(
                        plan.roofline(), remote, pool, localTier, remoteTier, c.policy() != Policy.RECOMPUTE));
        this.dramBytesPerSecond =
                plan.hardware().hostLinkBandwidth() * plan.kv().tp();
        int n = c.cluster().instances();
        int prefill = pd ? (c.cluster().prefillInstances() > 0 ? c.cluster().prefillInstances() : (n + 1) / 2) : n;
        for (int i = 0; i < n; i++) {
            Instance.Role role =
                    !pd ? Instance.Role.COLOCATED : i < prefill ? Instance.Role.PREFILL : Instance.Role.DECODE;
            PrefixCache.DramTier dram = localTier && plan.dramBlocks() > 0 && role != Instance.Role.DECODE
                    ? new PrefixCache.DramTier(plan.dramBlocks())
                    : null;
            Instance in = new Instance(
                    i,
                    role,
                    new PrefixCache(plan.hbmKvBlocks(), dram, plan.cacheBlocks()),
                    this,
                    plan.roofline(),
                    c.scheduler().maxBatchTokens(),
                    c.scheduler().maxRunning(),
                    c.scheduler().chunkedPrefill());
            instances.add(in);
            (role == Instance.Role.DECODE ? decodeSide : prefillSide).add(in);
        }
    }

    public List<Instance> instances() {
        return Collections.unmodifiableList(instances);
    }

    /** Switches measurement (warm-up runs with a silent listener). */
    @Override
    public void listener(ServingListener l) {
        this.listener = l;
    }

    @Override
    public long inFlight() {
        return inFlight;
    }

    @Override
    public int queued() {
        int q = 0;
        for (Instance in : instances) q += in.queued();
        return q;
    }

    @Override
    public String state() {
        StringBuilder sb = new StringBuilder();
        for (Instance in : instances) sb.append("\n  ").append(in.state());
        return sb.toString();
    }

    public long completed() {
        return completed;
    }

    public long failed() {
        return failed;
    }

    /** {@code r} arrives now; it was intended to arrive at {@code intendedNanos} on the loop's clock. */
    @Override
    public Seq submit(Request r, long intendedNanos, boolean warmup) {
        Seq s = new Seq(r, intendedNanos, warmup);
        inFlight++;
        Instance in = router.route(s, prefillSide);
        s.instance = in;
        s.routedTo = in.index;
        in.outstandingTokens += (long) r.inputTokens() + (pd ? 1 : Math.max(1, r.outputTokens()));
        listener.arrived(s, loop.now());
        in.enqueue(s);
        return s;
    }

    // ------------------------------------------------------------------ admission and loading

    Admission tryAdmit(Seq s, Instance in) {
        if (in.role == Instance.Role.DECODE) return admitDecode(s, in);
        long[] keys = s.request.blockKeys();
        int total = in.role == Instance.Role.PREFILL ? s.promptBlocks() : s.totalBlocks();
        if (total > in.cache.capacity()) {
            fail(s, in, "needs " + total + " KV blocks; an instance holds " + in.cache.capacity());
            return Admission.FAILED;
        }
        int h = localTier ? in.cache.hbmHits(keys, s.maxHitBlocks) : 0;
        int d = localTier ? in.cache.dramHits(keys, h, s.maxHitBlocks) : 0;
        long need = total - h;
        int unref = h > 0 ? in.cache.unreferenced(keys, h) : 0;
        if (!in.cache.canAllocate(need, unref)) return Admission.WAIT;
        in.cache.pin(keys, h);
        in.cache.allocate(need);
        s.privateHeld = need;
        s.keyedBlocks = h;
        s.hbmHitBlocks = h;
        s.dramHitBlocks = d;
        s.promptDone = h * s.blockTokens;
        in.outstandingTokens -= s.promptDone;
        s.phase = Seq.Phase.LOOKUP;
        listener.admitted(s, loop.now());
        int local = h + d;
        if (remoteTier && local < s.maxHitBlocks) remote.lookup(s, local, s.maxHitBlocks, r -> afterLookup(s, r));
        else afterLookup(s, 0);
        return Admission.ADMITTED;
    }

    private void afterLookup(Seq s, int available) {
        if (s.phase != Seq.Phase.LOOKUP) return;
        int local = s.hbmHitBlocks + s.dramHitBlocks;
        s.remoteAvailableBlocks = available;
        int k = policy.plan(s, local, available, remote);
        s.fetchPlannedBlocks = k;
        s.pending = 0;
        s.phase = Seq.Phase.LOADING;
        if (s.dramHitBlocks > 0) {
            s.pending++;
            double bytes = (double) s.dramHitBlocks * plan.blockBytesAllRanks();
            loop.after(Math.round(bytes / dramBytesPerSecond * 1e9), () -> partLoaded(s));
        }
        if (k > 0) {
            s.pending++;
            s.fetchStartNanos = loop.now();
            remote.fetch(s, local, k, f -> {
                s.fetchedBlocks = f.verifiedBlocks();
                s.fallbackBlocks = f.fallbackBlocks();
                s.fetchedBytes = f.bytes();
                loadThen(s.instance, (double) s.fetchedBlocks * s.blockTokens, () -> fetchDone(s));
            });
        }
        if (s.pending == 0) ready(s);
    }

    /** The fetch (and the load of its KV) is over: measured, then the sequence may go on. */
    private void fetchDone(Seq s) {
        s.fetchEndNanos = loop.now();
        listener.fetched(s, s.fetchEndNanos - s.fetchStartNanos, s.fetchEndNanos);
        partLoaded(s);
    }

    private void partLoaded(Seq s) {
        if (--s.pending == 0) ready(s);
    }

    private void ready(Seq s) {
        Instance in = s.instance;
        long[] keys = s.request.blockKeys();
        int h = s.hbmHitBlocks;
        int upto = h + s.dramHitBlocks + s.fetchedBlocks;
        if (localTier) {
            PrefixCache.DramTier dram = in.cache.dram();
            for (int j = h; j < upto; j++) {
                if (dram != null && j < h + s.dramHitBlocks) dram.touch(keys[j]);
                in.cache.keyPrivate(keys[j]);
            }
            s.privateHeld -= upto - h;
            s.keyedBlocks = upto;
        }
        int before = s.promptDone;
        s.promptDone = upto * s.blockTokens;
        in.outstandingTokens -= s.promptDone - before;
        s.phase = Seq.Phase.READY;
        in.kick();
    }

    // ------------------------------------------------------------------ prefill, decode, handoff, completion

    /**
     * A chunk of {@code s}'s prompt was computed (more follow): with {@code scheduler.cache_chunks} its full blocks join
     * the local tier now, so that a prompt of the same prefix admitted meanwhile hits them (vLLM V1 caches a block once
     * computed; the llama.cpp target keeps its blocks chunk by chunk); else they join at the prompt's end.
     */
    void prefillChunkDone(Seq s) {
        if (localTier && cacheChunks) keyComputed(s, Math.min(s.fullBlocks, s.promptDone / s.blockTokens));
    }

    /** {@code s}'s computed private blocks up to block {@code upto} join the local tier (keyed, still referenced by it). */
    private static void keyComputed(Seq s, int upto) {
        if (upto <= s.keyedBlocks) return;
        long[] keys = s.request.blockKeys();
        for (int j = s.keyedBlocks; j < upto; j++) s.instance.cache.keyPrivate(keys[j]);
        s.privateHeld -= upto - s.keyedBlocks;
        s.keyedBlocks = upto;
    }

    void prefillDone(Seq s, long now) {
        Instance in = s.instance;
        s.generated = 1;
        in.outstandingTokens--;
        Router.prefillSettled(s, in);
        // disaggregated, the client's first token comes from the decode instance once the KV is there, as the real
        // engine and vLLM's and Mooncake's proxies stream it: its TTFT holds the handover (told by handoffDone)
        boolean handsOver = pd && s.outputTokens() > 1;
        if (!handsOver) listener.firstToken(s, now);
        long[] keys = s.request.blockKeys();
        int computedFrom = s.hbmHitBlocks + s.dramHitBlocks + s.fetchedBlocks;
        if (localTier) keyComputed(s, s.fullBlocks);
        if (remoteTier && computedFrom < s.fullBlocks) remote.writeBack(s, computedFrom, s.fullBlocks);
        if (remoteTier) pool.stored(keys, s.fullBlocks);
        if (s.outputTokens() == 1) {
            complete(s, now);
        } else if (pd) {
            s.phase = Seq.Phase.HANDOFF;
            Instance d = decodeSide.get(0);
            for (Instance x : decodeSide) if (x.outstandingTokens < d.outstandingTokens) d = x;
            s.decodeInstance = d;
            d.outstandingTokens += s.outputTokens() - 1;
            d.enqueue(s);
        } else {
            s.phase = Seq.Phase.DECODING;
        }
    }

    private Admission admitDecode(Seq s, Instance d) {
        long need = s.totalBlocks();
        if (need > d.cache.capacity()) {
            Instance p = s.instance;
            releaseLocal(s, p);
            d.outstandingTokens -= s.outputTokens() - 1;
            fail(s, null, "needs " + need + " KV blocks on a decode instance that holds " + d.cache.capacity());
            p.kick();
            return Admission.FAILED;
        }
        if (!d.cache.canAllocate(need, 0)) return Admission.WAIT;
        d.cache.allocate(need);
        s.decodeBlocks = need;
        remote.handoff(s, () -> loadThen(d, s.inputTokens(), () -> handoffDone(s)));
        return Admission.ADMITTED;
    }

    /**
     * Loads the KV of {@code tokens} tokens that reached instance {@code in} (fetched, or handed over) into its engine,
     * then runs {@code then}: where the hardware has a cost for it (a calibrated engine), its assembly off the engine
     * thread first (time that holds nothing), then the rest as work that holds {@code in} between iterations, stalling
     * every sequence of it as a real engine's restore on its engine thread does; else at once.
     */
    private void loadThen(Instance in, double tokens, Runnable then) {
        double load = plan.roofline().kvLoadSeconds(tokens);
        if (!(load > 0)) {
            then.run();
            return;
        }
        double off = plan.roofline().kvAssemblySeconds(tokens);
        long hold = Math.max(1, Math.round((load - off) * 1e9));
        if (off > 0) loop.after(Math.round(off * 1e9), () -> in.engineWork(hold, then));
        else in.engineWork(hold, then);
    }

    private void handoffDone(Seq s) {
        Instance p = s.instance;
        releaseLocal(s, p);
        s.instance = s.decodeInstance;
        s.phase = Seq.Phase.DECODING;
        listener.firstToken(s, loop.now());
        s.instance.kick();
        p.kick();
    }

    void decoded(Seq s, long now) {
        listener.token(s, now);
        if (s.generated >= s.outputTokens()) complete(s, now);
    }

    private void complete(Seq s, long now) {
        s.phase = Seq.Phase.DONE;
        if (s.decodeBlocks > 0) {
            s.instance.cache.free(s.decodeBlocks);
            s.decodeBlocks = 0;
        } else {
            releaseLocal(s, s.instance);
        }
        completed++;
        inFlight--;
        listener.completed(s, now);
    }

    private void releaseLocal(Seq s, Instance in) {
        if (s.privateHeld > 0) in.cache.free(s.privateHeld);
        if (s.keyedBlocks > 0) in.cache.release(s.request.blockKeys(), s.keyedBlocks);
        s.privateHeld = 0;
        s.keyedBlocks = 0;
    }

    private void fail(Seq s, Instance in, String reason) {
        s.phase = Seq.Phase.FAILED;
        s.failure = reason;
        Router.prefillSettled(s, s.instance);
        if (in != null) {
            in.outstandingTokens -= s.outstandingTokens();
            in.running.remove(s);
        }
        failed++;
        inFlight--;
        listener.failed(s, loop.now());
    }
}
