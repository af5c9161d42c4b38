package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.config.PdTransfer;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.workloads.api.Request;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * Prefill/decode disaggregation's handover of a request's prompt KV from its prefill instance to a decode instance:
 * llama.cpp's own rows of every prompt position (its shorter tail too), in one piece per block of the prompt, each
 * verified by the remote tier's header ({@link KvBlockObject}: the piece's key, length and CRC32C). Two paths:
 * <ul>
 * <li>{@code direct}: every decode instance's transfer engine registers a receive segment of {@code slots} slots of
 * one prompt each; llama.cpp writes the prefill sequence's state straight into a staging buffer of the prefill side's
 * engine, which WRITEs its KV part (llama.cpp's own rows, in as many pieces as the prompt has blocks, a header with
 * CRC32C each, the headers just before the rows) into a slot (one-sided, as Mooncake's Transfer Engine writes into
 * the decode instance's KV memory), no store involved; the decode side frames the state around the rows in place
 * (header, cell metadata) and restores it from the slot, so between llama.cpp's own get and set the WRITE is the one
 * copy;</li>
 * <li>{@code store}: the pieces are the remote tier's block objects (header, then the rows), split out of the prefill
 * context and assembled on the decode side by the remote tier's code ({@link RemotePrefix#splitRun},
 * {@link RemotePrefix#assemble}); the prefill side puts them into kvlab's store under keys of this handover, the
 * decode side gets them (then removes them).</li>
 * </ul>
 * Either way a decode instance takes at most {@code slots} handovers at once (a prefill instance whose handover finds
 * no slot keeps the sequence, and its KV, until one is free: backpressure), and the decode side verifies every object
 * (header and CRC32C) on an I/O thread before its engine thread restores; an object that fails, a transfer that failed
 * or a refused restore makes the decode instance recompute the prompt (a PD fallback), never use it. An independent audit compares what was restored
 * with a digest the sender took of what it sent (direct; the store path's is the store audit's). Thread-safe.
 */
final class PdHandover implements AutoCloseable {

    /** One handover: what the prefill side sent and where the decode side finds it. */
    static final class Parcel {
        final Request request;
        final EngineInstance.Events events;
        final int decode, slot, tokens, objects, lastTokens, firstToken;
        final long[] keys;
        final long prefilledAt;
        /** Set by the sender (before the decode side sees the parcel). */
        long arrivedAt, bytes;
        /** The transfer's time, set once it ended (the store path's get added on the decode side); -1 until then. */
        long transferNanos = -1;

        long[] lengths, digests;
        String error;
        /** The objects on the decode side: slices of its receive slot (direct) or its get buffers (store). */
        MemorySegment[] objs;
        /** Set by the decode side. */
        long decodeAdmittedAt;
        /** Set by the decode side's check: objects whose bytes are not what the sender sent (direct). */
        int wrongObjects;
        /** Set by the decode side's check: why the parcel cannot be restored (null: it can). */
        String refused;
        /** Set by the decode side after its check: llama.cpp's state of the objects, assembled (null: not yet). */
        MemorySegment state;
        /**
         * Direct: the sent piece of the sequence's state (its KV part, or the whole state when its cells are not in
         * position order) at {@code from} in the staging buffer, landing at {@code to} in the slot, {@code length}
         * bytes in {@link #objects} pieces, their headers just before it; set by {@link #stage}.
         */
        long from, to, length;
        /** Direct: the whole state was sent (the decode side restores it as llama.cpp wrote it; else it frames it). */
        boolean whole;
        /** Direct: the decode instance's slot. */
        MemorySegment slotMemory;

        Parcel(
                Request request,
                EngineInstance.Events events,
                int decode,
                int slot,
                int tokens,
                int blockTokens,
                int firstToken,
                long[] keys,
                long prefilledAt) {
            this.request = request;
            this.events = events;
            this.decode = decode;
            this.slot = slot;
            this.tokens = tokens;
            this.objects = (tokens + blockTokens - 1) / blockTokens;
            this.lastTokens = tokens - (objects - 1) * blockTokens;
            this.firstToken = firstToken;
            this.keys = keys;
            this.prefilledAt = prefilledAt;
        }
    }

    /**
     * Objects of blocks of {@code blockTokens} tokens of the KV of a sequence state of {@code layout} (the cell's
     * contexts', taken from their sequence 0: the state the decode side frames).
     */
    record Sizes(int blockTokens, dev.kvlab.harness.llama.internal.KvStateLayout layout) {
        long bytesPerToken() {
            return layout.bytesPerToken();
        }

        long objectBytes(int tokens) {
            return KvBlockObject.objectBytes(bytesPerToken() * tokens);
        }
    }

    /** A sequence's handover buffers: direct, {@code whole}, laid out as a slot (the WRITE sends from it); store, one object each. */
    record Staging(MemorySegment whole, MemorySegment[] objs) {}

    private final PdTransfer mode;
    private final KvBlockStore store;
    private final Sizes sizes;
    private final int maxObjects, slots;
    /** Direct: a slot (and a staging buffer) is a table of {@code maxObjects} headers, then a state of the longest prompt. */
    private final long slotBytes, tableBytes;

    private final LongSupplier clock;
    private final RealKvTotals totals;
    private final long nonce;
    private final AtomicLong counter = new AtomicLong();
    private final List<ArrayBlockingQueue<Integer>> free = new ArrayList<>();
    private final AtomicInteger[] outstanding;
    private final long timeoutNanos;
    // direct
    private final TransferEngine prefillSide;
    private final List<TransferEngine> decodeSide = new ArrayList<>();
    private final List<Segment> receive = new ArrayList<>();
    private final List<RemoteSegment> targets = new ArrayList<>();
    private volatile List<EngineInstance> decoders = List.of();
    private volatile Runnable slotFreed = () -> {};
    private volatile BooleanSupplier corruptNow = () -> false;
    private volatile double corruptFraction;
    /** The decode instances' host (a network namespace) and its address, or null: this one. */
    private final String decodeHost, decodeAddress;

    /**
     * @param mode        direct or store
     * @param transport   the transport's name (direct: the engines are of it)
     * @param config      its settings (rdma-emu paces to its link)
     * @param store       the cell's store (the store path; allocates its buffers)
     * @param sizes       the objects' sizes
     * @param decodes     decode instances
     * @param slots       handovers a decode instance takes at once
     * @param maxTokens   the longest prompt
     * @param decodeHost  direct: the network namespace the decode instances' receive segments are served from (their
     *                    server's socket is opened there, bound to its address, token required), so that every byte
     *                    handed over crosses the links between it and this process's namespace; null: this one
     */
    PdHandover(
            PdTransfer mode,
            String transport,
            TransportConfig config,
            KvBlockStore store,
            Sizes sizes,
            int decodes,
            int slots,
            int maxTokens,
            LongSupplier clock,
            RealKvTotals totals,
            long seed,
            String decodeHost) {
        this.mode = mode;
        this.decodeHost = decodeHost;
        this.store = store;
        this.sizes = sizes;
        this.maxObjects = Math.max(1, (maxTokens + sizes.blockTokens() - 1) / sizes.blockTokens());
        this.slots = slots;
        this.tableBytes = (long) maxObjects * KvBlockObject.HEADER_BYTES;
        this.slotBytes = Math.max(
                tableBytes + sizes.layout().stateBytes(maxObjects * sizes.blockTokens()),
                maxObjects * sizes.objectBytes(sizes.blockTokens()));
        this.clock = clock;
        this.totals = totals;
        this.nonce = new java.util.SplittableRandom(seed ^ System.nanoTime()).nextLong();
        this.timeoutNanos = config.timeout().toNanos();
        this.outstanding = new AtomicInteger[decodes];
        for (int d = 0; d < decodes; d++) {
            outstanding[d] = new AtomicInteger();
            ArrayBlockingQueue<Integer> q = new ArrayBlockingQueue<>(slots);
            for (int i = 0; i < slots; i++) q.add(i);
            free.add(q);
        }
        if (decodeHost != null && mode != PdTransfer.DIRECT)
            throw new IllegalArgumentException("a decode host is for the direct handover");
        if (mode == PdTransfer.DIRECT) {
            Transports t = Transports.discover();
            TransportConfig decodeConfig = config;
            if (decodeHost != null) {
                byte[] token = new byte[24];
                new java.security.SecureRandom().nextBytes(token);
                config = config.withAuthToken(java.util.HexFormat.of().formatHex(token));
                decodeConfig = config.withBindHost(NetNamespace.address(decodeHost));
            }
            this.decodeAddress = decodeHost == null ? null : decodeConfig.bindHost();
            prefillSide = t.create(transport, config);
            try {
                for (int d = 0; d < decodes; d++) {
                    TransportConfig dc = decodeConfig;
                    String name = "kvlab-pd-receive-" + d;
                    long bytes = slots * slotBytes;
                    // the receive segment's server opens its socket on the calling thread: inside the decode host
                    TransferEngine e = decodeHost == null
                            ? t.create(transport, dc)
                            : NetNamespace.call(decodeHost, () -> t.create(transport, dc));
                    decodeSide.add(e);
                    Segment seg = decodeHost == null
                            ? e.registerSegment(name, bytes)
                            : NetNamespace.call(decodeHost, () -> e.registerSegment(name, bytes));
                    receive.add(seg);
                    targets.add(prefillSide.openSegment(seg.handle()));
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        } else {
            prefillSide = null;
            this.decodeAddress = null;
        }
    }

    /** The decode instances (index {@code d} of a parcel is theirs) and what to tell the prefill instances when a slot is free. */
    void wire(List<EngineInstance> decodeInstances, Runnable onSlotFree) {
        this.decoders = List.copyOf(decodeInstances);
        this.slotFreed = onSlotFree;
    }

    /** A corrupt fault: while {@code active}, a {@code fraction} of the handovers arrive with a flipped payload byte. */
    void corruptWhen(BooleanSupplier active, double fraction) {
        this.corruptNow = active;
        this.corruptFraction = fraction;
    }

    boolean viaStore() {
        return mode == PdTransfer.STORE;
    }

    /** What the handover path is, for the cell's description. */
    String describe() {
        if (mode == PdTransfer.DIRECT)
            return "direct: the prefill instance's " + prefillSide.name()
                    + " transfer engine WRITEs the prompt's KV, as llama.cpp's state holds it, in " + maxObjects
                    + " pieces at most with a header each (CRC32C), into a slot of the decode instance's registered"
                    + " segment (" + slots + " slots per decode instance), no store, and between llama.cpp's"
                    + " own get and set no copy but the WRITE (the decode side frames the state with the cell metadata and restores it from the"
                    + " slot); "
                    + prefillSide.copySemantics() + (prefillSide.emulated() ? " (emulated NIC)" : "")
                    + (decodeHost == null
                            ? ""
                            : "; the decode instances' segments are served from network namespace " + decodeHost + " ("
                                    + decodeAddress + "): every byte handed over crosses its link");
        return "store: the prefill instance puts the prompt's block objects into kvlab's store under keys of the handover, the decode instance "
                + "gets them (then removes them); " + slots + " handovers per decode instance at once";
    }

    /** Whether the handover's transport is emulated (rdma-emu). */
    boolean emulated() {
        return prefillSide != null && prefillSide.emulated();
    }

    /** Bytes of a slot (and of a direct staging buffer): room for the longest handover, headers included. */
    long slotBytes() {
        return slotBytes;
    }

    /** Prompt tokens of the longest handover (every slot's size). */
    int maxTokens() {
        return maxObjects * sizes.blockTokens();
    }

    /**
     * Staging for one prefill sequence (direct: a buffer of the prefill side's engine, laid out as a slot) or one
     * sequence's get buffers (store).
     */
    Staging buffers() {
        if (mode == PdTransfer.DIRECT) return new Staging(prefillSide.allocateBuffer(slotBytes), null);
        MemorySegment[] b = new MemorySegment[maxObjects];
        for (int i = 0; i < maxObjects; i++) b[i] = store.allocate();
        return new Staging(null, b);
    }

    /**
     * Sender side (the prefill instance's engine thread, as it needs the context): the prompt's KV of {@code seq} into
     * {@code st}. Direct: llama.cpp writes the sequence's state straight into the staging buffer, where it is sent
     * from, its KV part alone when its cells hold positions {@code 0…tokens-1} in order and its layout is the one the
     * decode side frames (else the whole state); store: split into block objects ({@link RemotePrefix#splitRun}).
     * A failure is the parcel's error (the decode side recomputes).
     */
    void stage(Parcel p, RemotePrefix codec, int seq, Staging st) {
        try {
            if (mode != PdTransfer.DIRECT) {
                codec.splitRun(seq, p.keys, p.tokens, st.objs());
                return;
            }
            var parsed = codec.stateInto(seq, st.whole().asSlice(tableBytes));
            var got = parsed.layout();
            var want = sizes.layout();
            if (parsed.tokens() != p.tokens)
                throw new IllegalStateException(
                        "the sequence holds " + parsed.tokens() + " positions, the prompt " + p.tokens);
            p.whole = parsed.cellOfPos() != null
                    || got.vTrans() != want.vTrans()
                    || got.nStream() != want.nStream()
                    || !got.layers().equals(want.layers());
            p.from = tableBytes + (p.whole ? 0 : got.kvPartOffset(p.tokens));
            p.to = tableBytes + (p.whole ? 0 : want.kvPartOffset(p.tokens));
            p.length = p.whole ? got.stateBytes(p.tokens) : got.kvPartBytes(p.tokens);
        } catch (RuntimeException e) {
            p.error = "staging failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Direct: the offset (from the sent piece's start) and length of piece {@code i} of {@code p}'s state. */
    private static long pieceOffset(Parcel p, int i) {
        return Math.min(p.length, i * pieceBytes(p));
    }

    private static long pieceLength(Parcel p, int i) {
        return pieceOffset(p, i + 1) - pieceOffset(p, i);
    }

    private static long pieceBytes(Parcel p) {
        return (p.length + p.objects - 1) / p.objects;
    }

    /** Direct: piece {@code i}'s header in {@code m} (staging or slot), the sent piece starting at {@code at}. */
    private static MemorySegment header(MemorySegment m, long at, Parcel p, int i) {
        return m.asSlice(at - (long) (p.objects - i) * KvBlockObject.HEADER_BYTES, KvBlockObject.HEADER_BYTES);
    }

    private static MemorySegment piece(MemorySegment m, long at, Parcel p, int i) {
        return m.asSlice(at + pieceOffset(p, i), pieceLength(p, i));
    }

    private int pieceTokens(Parcel p, int i) {
        return i == p.objects - 1 ? p.lastTokens : sizes.blockTokens();
    }

    /**
     * A parcel for {@code tokens} prompt tokens of {@code r} on the decode instance with the fewest handovers
     * outstanding that has a free slot, or null when none has one.
     */
    Parcel reserve(Request r, EngineInstance.Events decodeEvents, int tokens, int firstToken, long prefilledAt) {
        Integer[] order = new Integer[outstanding.length];
        for (int d = 0; d < order.length; d++) order[d] = d;
        java.util.Arrays.sort(order, java.util.Comparator.comparingInt(d -> outstanding[d].get()));
        for (int d : order) {
            Integer slot = free.get(d).poll();
            if (slot == null) continue;
            outstanding[d].incrementAndGet();
            int n = (tokens + sizes.blockTokens() - 1) / sizes.blockTokens();
            long[] keys = new long[n];
            long h = counter.incrementAndGet();
            for (int i = 0; i < n; i++) keys[i] = mix(nonce + (h << 16) + i);
            return new Parcel(
                    r, decodeEvents.decodeSide(), d, slot, tokens, sizes.blockTokens(), firstToken, keys, prefilledAt);
        }
        return null;
    }

    /** The decode instance of {@code p}. */
    EngineInstance decoderOf(Parcel p) {
        return decoders.get(p.decode);
    }

    /** Whether a free slot may exist for a prompt waiting for one. */
    boolean anyFree() {
        for (ArrayBlockingQueue<Integer> q : free) if (!q.isEmpty()) return true;
        return false;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * Sender side (an I/O thread of the prefill instance): the sealed objects in {@code staging} to the decode side
     * (the caller then hands the parcel to its decode instance, {@link #decoderOf}). A failure is the parcel's error
     * (the decode side recomputes).
     */
    void send(Parcel p, Staging st) {
        MemorySegment[] staging = st.objs();
        try {
            if (p.error == null) {
                p.lengths = new long[p.objects];
                p.digests = new long[p.objects];
                for (int i = 0; i < p.objects; i++) {
                    if (mode == PdTransfer.DIRECT) {
                        MemorySegment w = st.whole(), piece = piece(w, p.from, p, i);
                        KvBlockObject.seal(header(w, p.from, p, i), piece, p.keys[i], pieceTokens(p, i));
                        p.lengths[i] = piece.byteSize();
                        p.digests[i] = digest(piece, p.lengths[i]);
                    } else {
                        p.lengths[i] = sizes.objectBytes(pieceTokens(p, i));
                        p.digests[i] = digest(staging[i], p.lengths[i]);
                    }
                }
                long t0 = System.nanoTime();
                if (mode == PdTransfer.DIRECT) write(p, st.whole());
                else put(p, staging);
                p.transferNanos = System.nanoTime() - t0;
            }
        } catch (RuntimeException e) {
            p.error = "transfer failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        p.arrivedAt = clock.getAsLong();
    }

    /** Direct: the headers and the sent piece of the state, one WRITE, into the slot (the piece at {@code p.to}). */
    private void write(Parcel p, MemorySegment whole) {
        long headers = (long) p.objects * KvBlockObject.HEADER_BYTES, len = headers + p.length;
        writeBytes(whole, p.from - headers, p.decode, p.slot * slotBytes + p.to - headers, len);
        p.slotMemory = receive.get(p.decode).memory().asSlice(p.slot * slotBytes, slotBytes);
        p.bytes = len;
    }

    /**
     * Direct: the handover's path measured before the cell serves, for its sim twin: WRITEs of 1, 4 and 12 whole
     * objects from a staging buffer of the prefill side into the first slot of decode instance 0 ({@code rounds} of
     * each after one unmeasured), fitted as a fixed cost plus bytes over a bandwidth ({@link LinkProbe#fit}, no lookup
     * on this path). Null for the store path (its twin prices a put and a get on the store's measured link).
     */
    dev.kvlab.harness.spi.LinkProbe probe(int rounds) {
        if (mode != PdTransfer.DIRECT) return null;
        MemorySegment whole = prefillSide.allocateBuffer(slotBytes);
        long stride = sizes.objectBytes(sizes.blockTokens());
        int[] n = java.util.stream.IntStream.of(1, 4, 12)
                .map(k -> Math.min(k, maxObjects))
                .distinct()
                .toArray();
        long[][] g = new long[1 + n.length][rounds];
        for (int i = 0; i < n.length; i++) writeBytes(whole, 0, 0, 0, n[i] * stride);
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < n.length; i++) {
                long t0 = System.nanoTime();
                writeBytes(whole, 0, 0, 0, n[i] * stride);
                g[1 + i][r] = System.nanoTime() - t0;
            }
        }
        return dev.kvlab.harness.spi.LinkProbe.fit(g, n, stride, rounds, 0);
    }

    private void writeBytes(MemorySegment whole, long from, int decode, long to, long len) {
        TransferBatch batch = new TransferBatch(1);
        batch.add(Opcode.WRITE, whole, from, targets.get(decode), to, len);
        try {
            prefillSide.submit(batch).get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("WRITE into the decode side's segment failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the handover's WRITE");
        }
        if (!batch.allOk()) throw new IllegalStateException("the handover's WRITE ended " + batch.status(0));
    }

    private void put(Parcel p, MemorySegment[] staging) {
        MemorySegment[] objs = new MemorySegment[p.objects];
        long bytes = 0;
        for (int i = 0; i < p.objects; i++) {
            objs[i] = staging[i].asSlice(0, p.lengths[i]);
            bytes += p.lengths[i];
        }
        String why = store.putObjects(p.keys, p.objects, objs);
        if (why != null) throw new IllegalStateException("the store refused the handover: " + why);
        p.bytes = bytes;
    }

    /** Receiver side, store path (an I/O thread of the decode instance): the objects got into {@code dst}; timed into the transfer. */
    void fetch(Parcel p, MemorySegment[] dst) {
        long t0 = System.nanoTime();
        long[] got = store.getObjects(p.keys, p.objects, dst);
        p.transferNanos += System.nanoTime() - t0;
        for (int i = 0; i < p.objects; i++) {
            if (got[i] != p.lengths[i]) {
                p.error = "the store gave " + (got[i] < 0 ? "no copy" : got[i] + " bytes") + " of object " + i;
                break;
            }
        }
        p.objs = dst;
    }

    /**
     * Receiver side (an I/O thread of the decode instance, before the engine thread restores, so that decoding
     * sequences never wait for it): null when every object is the one sent (header: key, tokens, payload length;
     * CRC32C of the payload), else why not; when null, the objects are also audited as about to be used
     * ({@link #audit}). A corrupt fault flips a payload byte first.
     */
    String check(Parcel p) {
        String why = verify(p);
        if (why == null) audit(p);
        return why;
    }

    String verify(Parcel p) {
        if (p.error != null) return p.error;
        if (corruptNow.getAsBoolean() && (mix(nonce ^ p.keys[0]) >>> 11) * 0x1.0p-53 < corruptFraction) {
            MemorySegment o =
                    mode == PdTransfer.DIRECT ? piece(p.slotMemory, p.to, p, p.objects / 2) : p.objs[p.objects / 2];
            long at = mode == PdTransfer.DIRECT
                    ? o.byteSize() / 2
                    : KvBlockObject.HEADER_BYTES + (p.lengths[p.objects / 2] - KvBlockObject.HEADER_BYTES) / 2;
            o.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, (byte)
                    (o.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) ^ 0x5a));
            totals.handoverCorrupted.increment();
        }
        if (mode == PdTransfer.DIRECT) {
            for (int i = 0; i < p.objects; i++) {
                String why = KvBlockObject.verify(
                        header(p.slotMemory, p.to, p, i),
                        piece(p.slotMemory, p.to, p, i),
                        p.keys[i],
                        pieceTokens(p, i));
                if (why != null) return "piece " + i + ": " + why;
            }
            return null;
        }
        for (int i = 0; i < p.objects; i++) {
            int tk = i == p.objects - 1 ? p.lastTokens : sizes.blockTokens();
            String why = KvBlockObject.verify(
                    p.objs[i], p.lengths[i], p.keys[i], tk, p.lengths[i] - KvBlockObject.HEADER_BYTES);
            if (why != null) return "object " + i + ": " + why;
        }
        return null;
    }

    /**
     * The audit of a verified handover, of the bytes the decode side is about to restore (nothing writes them until the
     * parcel is {@linkplain #release released}) against what the sender sent: the store path's by the store audit
     * (counted there), the direct path's against the sender's digests, counted as wrong hits used by {@link #used}.
     */
    private void audit(Parcel p) {
        if (mode == PdTransfer.STORE) {
            store.auditObjects(p.keys, p.objects, p.objs, p.lengths);
            return;
        }
        int wrong = 0;
        for (int i = 0; i < p.objects; i++)
            if (digest(piece(p.slotMemory, p.to, p, i), p.lengths[i]) != p.digests[i]) wrong++;
        p.wrongObjects = wrong;
    }

    /**
     * Receiver side, after {@link #check} found the parcel good (an I/O thread of the decode instance): llama.cpp's
     * state of it to restore. Direct: in the slot, framed there with the header and cell metadata (over the pieces'
     * headers, read by then) unless the whole state was sent; store: the objects assembled into {@code buffer}.
     */
    MemorySegment stateOf(Parcel p, RemotePrefix codec, MemorySegment buffer) {
        if (mode != PdTransfer.DIRECT) return codec.assemble(0, p.objects, p.lastTokens, p.objs, buffer);
        if (p.whole) return p.slotMemory.asSlice(tableBytes, p.length);
        return dev.kvlab.harness.llama.internal.KvStateCodec.frame(
                sizes.layout(), p.tokens, p.slotMemory.asSlice(tableBytes));
    }

    /** The decode side restored the parcel (engine thread): its audited objects count, its wrong ones as wrong hits used. */
    void used(Parcel p) {
        if (mode == PdTransfer.STORE) return;
        totals.handoverAudited.add(p.objects);
        totals.handoverWrongHits.add(p.wrongObjects);
    }

    /** The decode side is done with the parcel's slot (restored or recomputing): free for the next handover. */
    void release(Parcel p) {
        free.get(p.decode).add(p.slot);
        slotFreed.run();
    }

    /** The request of a parcel left its decode instance. */
    void done(Parcel p) {
        outstanding[p.decode].decrementAndGet();
    }

    /** Store path: the handover's objects leave the store (they served their one get). */
    void remove(Parcel p) {
        if (mode == PdTransfer.STORE) store.removeObjects(p.keys, p.objects);
    }

    private static long digest(MemorySegment m, long length) {
        CRC32C c = new CRC32C();
        c.update(m.asSlice(0, length).asByteBuffer());
        return c.getValue() ^ (length << 32);
    }

    @Override
    public void close() {
        for (RemoteSegment t : targets) t.close();
        for (Segment s : receive) s.close();
        if (prefillSide != null) prefillSide.close();
        for (TransferEngine e : decodeSide) e.close();
    }
}
