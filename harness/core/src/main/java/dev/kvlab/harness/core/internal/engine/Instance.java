package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.catalog.StepPrice;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * One engine instance (TP GPUs) with continuous batching: a FCFS waiting queue, admitted sequences, and one
 * forward pass (iteration) at a time whose duration comes from the roofline. Each iteration takes one token of
 * every decoding sequence and prefill tokens up to the token budget (split into chunks when chunked prefill is
 * on; otherwise an iteration either prefills whole prompts or decodes).
 */
public final class Instance {

    /** What an instance does. */
    public enum Role {
        COLOCATED,
        PREFILL,
        DECODE
    }

    public final int index;
    public final Role role;
    public final PrefixCache cache;

    final ArrayDeque<Seq> waiting = new ArrayDeque<>();
    final ArrayList<Seq> running = new ArrayList<>();
    private final ArrayList<Seq> batch = new ArrayList<>();
    private final ServingModel model;
    private final Roofline roofline;
    private final int maxBatchTokens;
    private final int maxRunning;
    private final boolean chunked;
    private final boolean sharedStream;
    /** The step being built, priced as it goes. */
    private final StepPrice price;

    private boolean busy;
    /** Guards against re-entry: admitting a sequence may make it ready, which kicks again. */
    private boolean kicking;
    /** The end of an iteration, as one event action (made once, not per iteration). */
    private final Runnable endIteration = this::iterationDone;
    /** Engine work waiting for the instance between iterations, in order ({@link #engineWork}). */
    private final ArrayDeque<Work> work = new ArrayDeque<>();

    /** Work of {@code nanos} on the instance between iterations; {@code done} runs when it is over. */
    private record Work(long nanos, Runnable done) {}

    /** Tokens of work routed here and not yet done (load balancing). */
    long outstandingTokens;
    /** The kv-centric router's estimated prefill seconds (as nanos) of requests routed here and not yet prefilled. */
    long queuedPrefillNanos;
    /** Transfers in flight on this instance's link (contention). */
    int activeTransfers;

    long iterations;
    double busySeconds;

    Instance(
            int index,
            Role role,
            PrefixCache cache,
            ServingModel model,
            Roofline roofline,
            int maxBatchTokens,
            int maxRunning,
            boolean chunked) {
        this.index = index;
        this.role = role;
        this.cache = cache;
        this.model = model;
        this.roofline = roofline;
        this.maxBatchTokens = maxBatchTokens;
        this.maxRunning = maxRunning;
        this.chunked = chunked;
        this.sharedStream = roofline.sharedStream();
        this.price = new StepPrice(roofline);
    }

    public int activeTransfers() {
        return activeTransfers;
    }

    public void activeTransfersInc() {
        activeTransfers++;
    }

    public void activeTransfersDec() {
        activeTransfers--;
    }

    public long outstandingTokens() {
        return outstandingTokens;
    }

    void enqueue(Seq s) {
        waiting.addLast(s);
        kick();
    }

    /**
     * Work that holds the whole instance, as an iteration does, run between iterations in the order given: loading
     * fetched or handed-over KV into the engine (a real engine restores it on its engine thread between steps, so
     * every sequence of the instance waits for it, not only the one whose KV it is).
     */
    void engineWork(long nanos, Runnable done) {
        work.addLast(new Work(nanos, done));
        kick();
    }

    /** Admits what fits and starts the next engine work, or else an iteration, when idle and there is any. */
    void kick() {
        if (busy || kicking) return;
        long dur = 0;
        kicking = true;
        try {
            admit();
            if (work.isEmpty()) dur = buildBatch();
        } finally {
            kicking = false;
        }
        if (!work.isEmpty()) {
            Work w = work.pollFirst();
            busy = true;
            busySeconds += w.nanos() * 1e-9;
            model.loop.after(w.nanos(), () -> workDone(w));
            return;
        }
        if (batch.isEmpty()) return;
        busy = true;
        iterations++;
        model.loop.after(dur, endIteration);
    }

    private void admit() {
        while (!waiting.isEmpty() && running.size() < maxRunning) {
            Seq s = waiting.peekFirst();
            ServingModel.Admission a = model.tryAdmit(s, this);
            if (a == ServingModel.Admission.WAIT) break;
            waiting.pollFirst();
            if (a == ServingModel.Admission.ADMITTED) running.add(s);
        }
    }

    private long buildBatch() {
        batch.clear();
        int budget = maxBatchTokens;
        price.clear();
        boolean anyPrefill = false;
        for (int i = 0; i < running.size(); i++) {
            Seq.Phase p = running.get(i).phase;
            if (p == Seq.Phase.READY || p == Seq.Phase.PREFILLING) {
                anyPrefill = true;
                break;
            }
        }
        boolean decodes = chunked || !anyPrefill;
        if (decodes) {
            for (int i = 0; i < running.size() && budget > 0; i++) {
                Seq s = running.get(i);
                if (s.phase != Seq.Phase.DECODING) continue;
                s.chunk = 1;
                budget--;
                price.decode(s.context());
                batch.add(s);
            }
        }
        if (anyPrefill) {
            for (int i = 0; i < running.size() && budget > 0; i++) {
                Seq s = running.get(i);
                if (s.phase != Seq.Phase.READY && s.phase != Seq.Phase.PREFILLING) continue;
                int remaining = s.inputTokens() - s.promptDone;
                int c;
                if (chunked) c = Math.min(remaining, budget);
                else if (batch.isEmpty() || remaining <= budget) c = remaining;
                else break;
                s.chunk = c;
                s.phase = Seq.Phase.PREFILLING;
                budget -= c;
                price.chunk(c, s.promptDone, s.promptDone + c == s.inputTokens());
                batch.add(s);
            }
        }
        if (batch.isEmpty()) return 0;
        // the cells in use only where a pass spans a shared stream: every other sim pass does no more work than before
        double seconds = price.seconds(sharedStream ? streamCells() : Double.NaN);
        busySeconds += seconds;
        return Math.max(1, Math.round(seconds * 1e9));
    }

    /**
     * The KV cells this instance holds at a pass, were its sequences and cached blocks one stream (llama.cpp's unified
     * KV cache): the pool's blocks in use, private or cached, in tokens. Asked only when the roofline's attention spans a
     * shared stream ({@code attention.kv_cells}).
     */
    private double streamCells() {
        long blocks = cache.capacity() - cache.freeBlocks();
        return (double) blocks * batch.get(0).blockTokens;
    }

    private void workDone(Work w) {
        busy = false;
        w.done().run();
        kick();
    }

    private void iterationDone() {
        long now = model.loop.now();
        for (int i = 0; i < batch.size(); i++) {
            Seq s = batch.get(i);
            if (s.phase == Seq.Phase.PREFILLING) {
                Router.prefillProgress(s, this, s.chunk, s.inputTokens() - s.promptDone);
                s.promptDone += s.chunk;
                outstandingTokens -= s.chunk;
                if (s.promptDone == s.inputTokens()) model.prefillDone(s, now);
                else model.prefillChunkDone(s);
            } else if (s.phase == Seq.Phase.DECODING) {
                s.generated++;
                outstandingTokens--;
                model.decoded(s, now);
            }
        }
        batch.clear();
        int w = 0;
        for (int i = 0; i < running.size(); i++) {
            Seq s = running.get(i);
            Seq.Phase p = s.phase;
            if (p == Seq.Phase.DONE || p == Seq.Phase.FAILED || (p == Seq.Phase.HANDOFF && role == Role.PREFILL))
                continue;
            running.set(w++, s);
        }
        while (running.size() > w) running.remove(running.size() - 1);
        busy = false;
        kick();
    }

    public long iterations() {
        return iterations;
    }

    /** Modelled GPU-busy seconds. */
    public double busySeconds() {
        return busySeconds;
    }

    /** One line on the instance's state, for diagnostics. */
    public String state() {
        StringBuilder sb = new StringBuilder("instance " + index + " " + role + (busy ? " busy" : " idle") + " waiting="
                + waiting.size() + " running=" + running.size() + " free=" + cache.freeBlocks() + " evictable="
                + cache.evictableBlocks() + "/" + cache.capacity() + " " + cache.accounting());
        if (!waiting.isEmpty()) {
            Seq h = waiting.peekFirst();
            sb.append(" head=").append(h.id()).append(" needs ").append(h.totalBlocks());
        }
        for (int i = 0; i < Math.min(3, running.size()); i++)
            sb.append(" r").append(running.get(i).id()).append(':').append(running.get(i).phase);
        return sb.toString();
    }

    /** Sequences waiting for admission here. */
    public int queued() {
        return waiting.size();
    }

    /** Sequences queued or admitted here. */
    public int load() {
        return waiting.size() + running.size();
    }
}
