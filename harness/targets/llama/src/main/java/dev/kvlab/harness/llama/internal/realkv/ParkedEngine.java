package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.harness.api.config.RouterKind;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaModel;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.StoreFaults;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code llama.cpp} cell's engine kept between the capacity probes of one cell: the model, the instances' contexts
 * and engine threads, the embedded store, the router, the loop and the twin's calibration, with the hot state the
 * first probe's warm-up primed. A probe differs from the probe before it only in its arrival rate, so a later probe
 * of the same cell (same config but the rate, same seed: the same requests) takes the engine over and skips setup,
 * calibration and the warm-up.
 *
 * <p>Before each later probe the primed state is put back as the warm-up left it: each context's whole state (its
 * KV cells and which sequences share them, {@code llama_state_set_data}) and the local tier's bookkeeping, taken
 * right after the warm-up, and the router's state. The store is not snapshotted: it must still hold what the warm-up
 * left, checked before every takeover ({@link #stale}: nothing evicted, nothing failed to be written, the same object
 * count; a measured phase of the same requests writes only blocks it already holds), else the engine is closed and
 * the probe starts fresh, saying why. Where the warm-up's local tier evicted, its kept blocks are those a warm-up at
 * the first probe's rate left; the same requests in the same order on the same instances (round-robin, least-loaded
 * and cache-aware routers see the same sequence) may interleave differently at another rate, which moves only the
 * least recently used margin: {@code engine_reuse} says so. Not kept: cold cells with a cache tier (they start empty; one without keeps what a hot one does: nothing), cells with a
 * fault (injected per cell), the random router (its generator's state), partial warm-ups (a measured phase adds
 * blocks), anything but a capacity probe (a cell with {@code measurement.early_stop} on, which the capacity search
 * sets).
 */
final class ParkedEngine implements AutoCloseable {

    /**
     * The most engines kept at once (a matrix searches its cells and their replicates side by side, one probe of each
     * in turn, so every search needs its own); beyond it, or beyond a quarter of the machine's memory in their stores
     * and KV, the oldest is closed.
     */
    static final int MAX_PARKED = 16;

    private static final Map<String, ParkedEngine> PARKED = new LinkedHashMap<>();

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(ParkedEngine::closeAll));
    }

    final String key;
    final LlamaModel model;
    final List<LlamaContext> contexts = new ArrayList<>();
    final List<EngineInstance> instances = new ArrayList<>();
    final RealKvTotals totals = new RealKvTotals();
    String systemInfo = "", library = "";
    KvStateLayout layout;
    KvNamespace ns;
    EngineInstance.Shape shape;
    /**
     * The workload's largest request ({@link WorkloadExtent#of}: prompt, output, full blocks) the contexts were sized on;
     * the same for every probe of the key (only the arrival rate differs, and requests do not depend on it).
     */
    int[] most;

    LiveClock loop;
    LlamaServer server;
    AuditedStore backend;
    StoreFaults faults;
    /** PD disaggregation's handover path (null: colocated). */
    PdHandover pd;

    EngineCalibration calibration;
    /** PD, direct, with a twin: the handover's path measured when the engine was opened (null: none). */
    dev.kvlab.harness.spi.LinkProbe handoverPath;
    /** The router's state right after the warm-up. */
    Object routerState;
    /** Warm-up requests that primed it (-1: not primed yet). */
    long primedBy = -1;
    /**
     * Objects the measured phases added to the store (the twin's link probes, outside them, write their own): a
     * measured phase of the warm-up's requests writes only blocks the store holds, so anything else means it lacked some.
     */
    long measuredAdded;
    /** The store calls of the measured phase that changed the object count (what {@link #stale} says). */
    String measuredCalls = "";
    /** What the warm-up's local tier lost (evicted, unplaced), null: nothing. */
    String primedLosses;
    /** Probes served so far. */
    int probes;
    /** Memory it holds: the store's capacity and the contexts' KV cells. */
    long bytes;

    ParkedEngine(String key, LlamaModel model) {
        this.key = key;
        this.model = model;
    }

    /**
     * The key a probe of {@code c} parks its engine under (its config but the arrival rate), or null when the cell's
     * engine is not kept (see the class doc), with the reason in {@code why[0]}.
     */
    static String key(RunConfig c, String[] why) {
        if (!c.measurement().earlyStop().enabled()) return none(why, "not a capacity probe");
        if (c.cacheState() != CacheState.HOT && (c.tiers().local() || c.tiers().remote()))
            return none(why, "a cold cell starts from empty tiers");
        if (c.fault() != Fault.NONE) return none(why, "a fault is injected per cell");
        if (c.cluster().router() == RouterKind.RANDOM)
            return none(why, "the random router's generator state is not kept");
        if (c.warmup().fraction() < 1)
            return none(why, "a partial warm-up: a measured phase adds blocks the warm-up did not");
        return c.toString().replaceFirst("(ArrivalSpec\\[process=[^,]*, rate=)[^,]*", "$1*");
    }

    private static String none(String[] why, String reason) {
        why[0] = reason;
        return null;
    }

    /** The engine parked under {@code key}, taken out (null: none). */
    static synchronized ParkedEngine take(String key) {
        return PARKED.remove(key);
    }

    /** Parks {@code e} for the next probe of its cell, closing the oldest beyond {@link #MAX_PARKED}. */
    static void park(ParkedEngine e) {
        List<ParkedEngine> closing = new ArrayList<>();
        synchronized (ParkedEngine.class) {
            ParkedEngine old = PARKED.put(e.key, e);
            if (old != null && old != e) closing.add(old);
            long budget = dev.kvlab.harness.api.MachineMemory.now().totalBytes() / 4;
            for (Iterator<ParkedEngine> it = PARKED.values().iterator();
                    PARKED.size() > MAX_PARKED
                            || (budget > 0
                                    && PARKED.size() > 1
                                    && PARKED.values().stream()
                                                    .mapToLong(p -> p.bytes)
                                                    .sum()
                                            > budget); ) {
                closing.add(it.next());
                it.remove();
            }
        }
        for (ParkedEngine p : closing) p.close();
    }

    /** Closes every parked engine (at exit). */
    static void closeAll() {
        List<ParkedEngine> all;
        synchronized (ParkedEngine.class) {
            all = new ArrayList<>(PARKED.values());
            PARKED.clear();
        }
        for (ParkedEngine p : all) {
            try {
                p.close();
            } catch (RuntimeException ignored) {
                // exiting
            }
        }
    }

    /** Why the primed state may no longer be the warm-up's (null: it is). */
    String stale() {
        if (primedBy < 0) return "not primed";
        if (!totals.everWriteFailed().isEmpty())
            return "write-backs failed (" + totals.everWriteFailed() + "): the store lacks blocks";
        var st = backend.storeStatsNow()
                .orElse(null); // read now: the half-second-old figures miss what the probe before just did
        if (st == null) return "the store's statistics are unavailable";
        if (st.evictedObjects() > 0) return "the store evicted " + st.evictedObjects() + " objects";
        if (measuredAdded != 0)
            return "a measured phase changed the store's object count by " + measuredAdded + " (its store calls: "
                    + measuredCalls + ")";
        return null;
    }

    @Override
    public void close() {
        for (EngineInstance in : instances) {
            try {
                in.close();
            } catch (RuntimeException ignored) {
                // closing what is left
            }
        }
        instances.clear();
        if (pd != null) pd.close();
        for (LlamaContext c : contexts) c.close();
        contexts.clear();
        if (backend != null) backend.close();
        if (faults != null) faults.close();
        model.close();
    }
}
