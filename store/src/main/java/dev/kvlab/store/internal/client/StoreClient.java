package dev.kvlab.store.internal.client;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyRules;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.Replica;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.rpc.MasterUnavailableException;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferStatus;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The bundled store's client: control calls to the master through a {@link MasterChannel}, bytes through a
 * {@link TransferEngine}. A get is one replica-list call (which grants the lease), one READ into the caller's
 * buffer, a CRC32C check, and in verify mode a check against the key's {@link KeyedPayload}; a read that
 * ended after the lease is {@code LEASE_EXPIRED}. A failed replica (transfer error, checksum) falls through
 * to the next one. A put is putStart, one WRITE batch to every replica, then putEnd — or putRevoke on any
 * failure, so nothing half-written is ever visible. Keys are confined to the tenant of {@link BackendOptions}.
 */
public final class StoreClient implements KvBackend {

    private final String name;
    private final MasterChannel master;
    private final TransferEngine engine;
    private final RemoteSegments remotes;
    private final String tenant;
    private final boolean verifyContent;
    private final long timeoutNanos;
    private final LongSupplier nanoTime;
    private final AutoCloseable onClose;

    public StoreClient(
            String name, MasterChannel master, TransferEngine engine, BackendOptions options, AutoCloseable onClose) {
        this(name, master, engine, options, onClose, System::nanoTime);
    }

    public StoreClient(
            String name,
            MasterChannel master,
            TransferEngine engine,
            BackendOptions options,
            AutoCloseable onClose,
            LongSupplier nanoTime) {
        this.name = Objects.requireNonNull(name, "name");
        this.master = Objects.requireNonNull(master, "master");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.remotes = new RemoteSegments(engine);
        this.tenant = KeyRules.checkTenant(options.tenant());
        this.verifyContent = options.verifyContent();
        this.timeoutNanos = options.timeout().toNanos();
        this.nanoTime = nanoTime;
        this.onClose = onClose;
    }

    @Override
    public String name() {
        return name;
    }

    /** The master's stats when it runs in this JVM (the client calls it in process). */
    @Override
    public Optional<MasterStats> storeStats() {
        return master instanceof MasterService s ? Optional.of(s.statsSnapshot()) : Optional.empty();
    }

    @Override
    public Optional<MasterStats> storeStatsNow() {
        return master instanceof MasterService s ? Optional.of(s.statsNow()) : Optional.empty();
    }

    @Override
    public Map<String, Long> storeCalls() {
        return master instanceof MasterService s ? s.callCounts() : Map.of();
    }

    @Override
    public String copySemantics() {
        return "data plane over " + engine.name() + (engine.emulated() ? " (emulated)" : "") + ": "
                + engine.copySemantics() + "; the client then reads the bytes once for CRC32C"
                + (verifyContent ? " and once more to verify the key's content" : "");
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        return engine.allocateBuffer(bytes);
    }

    public TransferEngine engine() {
        return engine;
    }

    // ---------------------------------------------------------------- get

    @Override
    public GetResult getInto(String key, MemorySegment dst) {
        KeyRules.checkKey(key);
        long t0 = nanoTime.getAsLong();
        ReplicaList rl;
        try {
            rl = master.getReplicaList(tenant, key);
        } catch (MasterUnavailableException e) {
            return GetResult.failed(GetStatus.TIMEOUT, "master: " + e.getMessage());
        } catch (RuntimeException e) {
            return GetResult.failed(GetStatus.ERROR, "master: " + e.getMessage());
        }
        return readVerified(key, rl, t0, dst, 0, null);
    }

    /**
     * Reads {@code key} from the replicas of {@code rl} starting at replica {@code from}; {@code first} is the
     * outcome of an earlier attempt at replica {@code from - 1}, if any.
     */
    private GetResult readVerified(String key, ReplicaList rl, long t0, MemorySegment dst, int from, GetResult first) {
        if (!rl.found()) return GetResult.miss();
        long len = rl.length();
        if (len > dst.byteSize())
            return GetResult.failed(GetStatus.ERROR, "buffer of " + dst.byteSize() + " bytes is too small for " + len);
        long deadline = t0 + rl.leaseTtlNanos();
        GetResult last = first;
        List<Replica> reps = rl.replicas();
        TransferBatch batch = null;
        for (int r = from; r < reps.size(); r++) {
            Replica rep = reps.get(r);
            if (batch == null) batch = new TransferBatch(1);
            else batch.clear();
            TransferStatus st;
            try {
                RemoteSegment seg = remotes.get(rep.endpoint());
                batch.add(Opcode.READ, dst, 0, seg, rep.offset(), len);
                st = await(batch, rep.endpoint());
            } catch (RuntimeException e) {
                remotes.forget(rep.endpoint());
                last = GetResult.failed(GetStatus.ERROR, "replica " + rep.segment() + ": " + e.getMessage());
                continue;
            }
            if (st != TransferStatus.OK) {
                last = GetResult.failed(
                        st == TransferStatus.TIMEOUT || st == TransferStatus.PENDING
                                ? GetStatus.TIMEOUT
                                : GetStatus.ERROR,
                        "replica " + rep.segment() + ": " + st);
                if (st == TransferStatus.TIMEOUT || st == TransferStatus.PENDING)
                    return last; // may still land in dst: do not reuse it
                continue;
            }
            last = reportIfCorrupt(key, rep, check(key, rl, deadline, dst));
            if (last.isHit() || last.status() == GetStatus.LEASE_EXPIRED) return last;
        }
        return last == null ? GetResult.miss() : last;
    }

    /**
     * A replica whose bytes fail the store's own checksum is reported to the master, which drops it, so the next put
     * of the key repopulates it instead of finding it present (best effort: an unreachable master only loses the
     * report). A content mismatch is not reported: the bytes are what was put (the checksum holds), just not what this
     * reader expects, and one reader's expectation must not delete another writer's object.
     */
    private GetResult reportIfCorrupt(String key, Replica rep, GetResult g) {
        if (g.status() == GetStatus.CHECKSUM_MISMATCH) {
            try {
                master.reportCorrupt(tenant, key, rep.segment(), rep.offset());
            } catch (RuntimeException e) {
                // the replica stays until the master hears of it again; the read was not served either way
            }
        }
        return g;
    }

    private GetResult check(String key, ReplicaList rl, long deadline, MemorySegment dst) {
        if (nanoTime.getAsLong() > deadline)
            return GetResult.failed(GetStatus.LEASE_EXPIRED, "the read ended after the lease");
        long len = rl.length();
        if (Crc32c.of(dst, 0, len) != rl.crc32c())
            return GetResult.failed(GetStatus.CHECKSUM_MISMATCH, "CRC32C mismatch");
        if (verifyContent && !KeyedPayload.matches(key, dst, 0, len))
            return GetResult.failed(GetStatus.CONTENT_MISMATCH, "content is not the key's");
        return GetResult.hit(len);
    }

    /** Waits for {@code batch}; the status of its first request, or FAILED/TIMEOUT when the batch failed as a whole. */
    private TransferStatus await(TransferBatch batch, String endpoint) {
        try {
            engine.submit(batch).get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return TransferStatus.TIMEOUT;
        } catch (ExecutionException e) {
            remotes.forget(endpoint);
            TransferStatus s = batch.status(0);
            return s == TransferStatus.OK
                    ? TransferStatus.OK
                    : (s == TransferStatus.PENDING ? TransferStatus.FAILED : s);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return TransferStatus.TIMEOUT;
        }
        return batch.status(0);
    }

    @Override
    public List<GetResult> batchGetInto(List<String> keys, List<MemorySegment> dsts) {
        if (keys.size() != dsts.size())
            throw new IllegalArgumentException(keys.size() + " keys but " + dsts.size() + " buffers");
        for (String k : keys) KeyRules.checkKey(k);
        int n = keys.size();
        GetResult[] out = new GetResult[n];
        if (n == 0) return List.of();
        long t0 = nanoTime.getAsLong();
        List<ReplicaList> lists;
        try {
            lists = master.getReplicaLists(tenant, keys);
        } catch (RuntimeException e) {
            GetResult f = GetResult.failed(
                    e instanceof MasterUnavailableException ? GetStatus.TIMEOUT : GetStatus.ERROR,
                    "master: " + e.getMessage());
            Arrays.fill(out, f);
            return Arrays.asList(out);
        }
        TransferBatch batch = new TransferBatch(n);
        int[] request = new int[n];
        Arrays.fill(request, -1);
        String[] endpoint = new String[n];
        for (int i = 0; i < n; i++) {
            ReplicaList rl = lists.get(i);
            if (!rl.found()) {
                out[i] = GetResult.miss();
                continue;
            }
            if (rl.length() > dsts.get(i).byteSize()) {
                out[i] = GetResult.failed(GetStatus.ERROR, "buffer too small for " + rl.length() + " bytes");
                continue;
            }
            Replica rep = rl.replicas().getFirst();
            try {
                request[i] =
                        batch.add(Opcode.READ, dsts.get(i), 0, remotes.get(rep.endpoint()), rep.offset(), rl.length());
                endpoint[i] = rep.endpoint();
            } catch (RuntimeException e) {
                remotes.forget(rep.endpoint());
                out[i] = readVerified(
                        keys.get(i), rl, t0, dsts.get(i), 1, GetResult.failed(GetStatus.ERROR, e.getMessage()));
            }
        }
        boolean timedOut = false;
        if (batch.size() > 0) {
            try {
                engine.submit(batch).get(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                timedOut = true;
            } catch (ExecutionException e) {
                // per-request statuses tell which ones failed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                timedOut = true;
            }
        }
        for (int i = 0; i < n; i++) {
            if (request[i] < 0) continue;
            ReplicaList rl = lists.get(i);
            TransferStatus st = batch.status(request[i]);
            if (st == TransferStatus.OK) {
                GetResult g = reportIfCorrupt(
                        keys.get(i),
                        rl.replicas().getFirst(),
                        check(keys.get(i), rl, t0 + rl.leaseTtlNanos(), dsts.get(i)));
                out[i] = g.isHit() || g.status() == GetStatus.LEASE_EXPIRED
                        ? g
                        : readVerified(keys.get(i), rl, t0, dsts.get(i), 1, g);
            } else if (st == TransferStatus.PENDING || st == TransferStatus.TIMEOUT || timedOut) {
                out[i] = GetResult.failed(GetStatus.TIMEOUT, "transfer did not finish in time");
            } else {
                remotes.forget(endpoint[i]);
                out[i] = readVerified(
                        keys.get(i), rl, t0, dsts.get(i), 1, GetResult.failed(GetStatus.ERROR, "replica: " + st));
            }
        }
        return Arrays.asList(out);
    }

    // ---------------------------------------------------------------- put

    @Override
    public PutStatus put(String key, MemorySegment value, ReplicateConfig config) {
        return batchPut(List.of(key), List.of(value), config).getFirst();
    }

    @Override
    public List<PutStatus> batchPut(List<String> keys, List<MemorySegment> values, ReplicateConfig config) {
        if (keys.size() != values.size())
            throw new IllegalArgumentException(keys.size() + " keys but " + values.size() + " values");
        int n = keys.size();
        if (n == 0) return List.of();
        long[] lengths = new long[n];
        int[] crcs = new int[n];
        for (int i = 0; i < n; i++) {
            KeyRules.checkKey(keys.get(i));
            lengths[i] = values.get(i).byteSize();
            if (lengths[i] <= 0) throw new IllegalArgumentException("value of '" + keys.get(i) + "' is empty");
            crcs[i] = Crc32c.of(values.get(i));
        }
        PutStatus[] out = new PutStatus[n];
        List<PutStartResult> starts;
        try {
            starts = master.putStart(tenant, keys, lengths, crcs, config);
        } catch (RuntimeException e) {
            Arrays.fill(out, PutStatus.FAILED);
            return Arrays.asList(out);
        }
        int requests = 0;
        for (PutStartResult s : starts) requests += s.replicas().size();
        TransferBatch batch = requests == 0 ? null : new TransferBatch(requests);
        int[][] reqs = addWrites(starts, values, lengths, batch, out);
        boolean timedOut = batch != null && batch.size() > 0 && !transferred(batch);
        endOrRevoke(keys, starts, reqs, batch, timedOut, out);
        return Arrays.asList(out);
    }

    /**
     * Adds the writes of every started put to {@code batch}, its request numbers per key (null for a put not started, or
     * one whose replica could not be reached: its status in {@code out} is then set).
     */
    private int[][] addWrites(
            List<PutStartResult> starts,
            List<MemorySegment> values,
            long[] lengths,
            TransferBatch batch,
            PutStatus[] out) {
        int[][] reqs = new int[starts.size()][];
        for (int i = 0; i < reqs.length; i++) {
            PutStartResult s = starts.get(i);
            out[i] = switch (s.status()) {
                case EXISTS -> PutStatus.EXISTS;
                case IN_PROGRESS -> PutStatus.IN_PROGRESS;
                case NO_SPACE -> PutStatus.NO_SPACE;
                case STARTED -> null;
            };
            if (out[i] != null) continue;
            reqs[i] = new int[s.replicas().size()];
            try {
                for (int r = 0; r < reqs[i].length; r++) {
                    Replica rep = s.replicas().get(r);
                    reqs[i][r] = batch.add(
                            Opcode.WRITE, values.get(i), 0, remotes.get(rep.endpoint()), rep.offset(), lengths[i]);
                }
            } catch (RuntimeException e) {
                for (Replica rep : s.replicas()) remotes.forget(rep.endpoint());
                out[i] = PutStatus.FAILED; // revoked below
                reqs[i] = null;
            }
        }
        return reqs;
    }

    /** Runs {@code batch} to its end; false when it timed out (or the wait was interrupted). Each request's status is in the batch. */
    private boolean transferred(TransferBatch batch) {
        try {
            engine.submit(batch).get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            // per-request statuses
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    /** Ends the started puts whose every replica write succeeded (their status the master's answer); revokes the others as FAILED. */
    private void endOrRevoke(
            List<String> keys,
            List<PutStartResult> starts,
            int[][] reqs,
            TransferBatch batch,
            boolean timedOut,
            PutStatus[] out) {
        List<String> endKeys = new ArrayList<>(), revokeKeys = new ArrayList<>();
        List<Long> endIds = new ArrayList<>(), revokeIds = new ArrayList<>();
        List<Integer> endIdx = new ArrayList<>();
        for (int i = 0; i < reqs.length; i++) {
            PutStartResult s = starts.get(i);
            if (s.status() != PutStartResult.Status.STARTED) continue;
            boolean ok = reqs[i] != null && !timedOut;
            if (ok) for (int q : reqs[i]) ok &= batch.status(q) == TransferStatus.OK;
            if (ok) {
                endKeys.add(keys.get(i));
                endIds.add(s.putId());
                endIdx.add(i);
            } else {
                out[i] = PutStatus.FAILED;
                revokeKeys.add(keys.get(i));
                revokeIds.add(s.putId());
                if (reqs[i] != null) for (Replica rep : s.replicas()) remotes.forget(rep.endpoint());
            }
        }
        if (!endKeys.isEmpty()) {
            try {
                List<EndStatus> ends = master.putEnd(
                        tenant,
                        endKeys,
                        endIds.stream().mapToLong(Long::longValue).toArray());
                for (int j = 0; j < ends.size(); j++)
                    out[endIdx.get(j)] = ends.get(j) == EndStatus.OK ? PutStatus.OK : PutStatus.FAILED;
            } catch (RuntimeException e) {
                for (int i : endIdx) out[i] = PutStatus.FAILED; // the master will take the put over / reclaim it
            }
        }
        if (!revokeKeys.isEmpty()) {
            try {
                master.putRevoke(
                        tenant,
                        revokeKeys,
                        revokeIds.stream().mapToLong(Long::longValue).toArray());
            } catch (RuntimeException e) {
                // unreachable master: the abandoned put is never visible and is reclaimed after the release timeout
            }
        }
    }

    // ---------------------------------------------------------------- other calls

    @Override
    public boolean exists(String key) {
        return batchExists(List.of(key))[0];
    }

    @Override
    public boolean[] batchExists(List<String> keys) {
        for (String k : keys) KeyRules.checkKey(k);
        if (keys.isEmpty()) return new boolean[0];
        try {
            return master.exists(tenant, keys);
        } catch (MasterUnavailableException e) {
            return new boolean[keys.size()];
        }
    }

    @Override
    public RemoveStatus remove(String key) {
        KeyRules.checkKey(key);
        return master.remove(tenant, key);
    }

    @Override
    public void close() {
        remotes.close();
        if (onClose != null) {
            try {
                onClose.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + name + ": " + e.getMessage(), e);
            }
        }
    }
}
