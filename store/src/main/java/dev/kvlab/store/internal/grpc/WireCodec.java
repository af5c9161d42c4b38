package dev.kvlab.store.internal.grpc;

import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.Replica;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.rpc.proto.PutStartEntry;
import dev.kvlab.store.internal.rpc.proto.ReplicaListMsg;
import dev.kvlab.store.internal.rpc.proto.ReplicaMsg;
import dev.kvlab.store.internal.rpc.proto.ReplicateConfigMsg;
import java.util.ArrayList;
import java.util.List;

/** Conversions between the store's records and the wire messages; every decode validates what it reads. */
final class WireCodec {

    private WireCodec() {}

    static ReplicaMsg encode(Replica r) {
        return ReplicaMsg.newBuilder()
                .setSegment(r.segment())
                .setEndpoint(r.endpoint())
                .setOffset(r.offset())
                .setLength(r.length())
                .build();
    }

    static Replica decode(ReplicaMsg m) {
        if (m.getOffset() < 0 || m.getLength() < 0)
            throw new IllegalArgumentException("negative replica offset or length");
        return new Replica(m.getSegment(), m.getEndpoint(), m.getOffset(), m.getLength());
    }

    static ReplicateConfigMsg encode(ReplicateConfig c) {
        return ReplicateConfigMsg.newBuilder()
                .setReplicaNum(c.replicaNum())
                .setSoftPin(c.softPin())
                .setHardPin(c.hardPin())
                .addAllPreferredSegments(c.preferredSegments())
                .build();
    }

    static ReplicateConfig decode(ReplicateConfigMsg m) {
        int n = m.getReplicaNum() == 0 ? 1 : m.getReplicaNum();
        if (n > 64) throw new IllegalArgumentException("replica_num " + n + " is more than 64");
        if (m.getPreferredSegmentsCount() > 64) throw new IllegalArgumentException("more than 64 preferred segments");
        return new ReplicateConfig(n, m.getSoftPin(), m.getHardPin(), m.getPreferredSegmentsList());
    }

    static PutStartEntry encode(PutStartResult r) {
        PutStartEntry.Builder b =
                PutStartEntry.newBuilder().setStatus(r.status().name()).setPutId(r.putId());
        for (Replica rep : r.replicas()) b.addReplicas(encode(rep));
        return b.build();
    }

    static PutStartResult decode(PutStartEntry e) {
        List<Replica> reps = new ArrayList<>(e.getReplicasCount());
        for (ReplicaMsg m : e.getReplicasList()) reps.add(decode(m));
        return new PutStartResult(PutStartResult.Status.valueOf(e.getStatus()), e.getPutId(), reps);
    }

    static ReplicaListMsg encode(ReplicaList l) {
        ReplicaListMsg.Builder b = ReplicaListMsg.newBuilder()
                .setStatus(l.status().name())
                .setLength(l.length())
                .setCrc32C(l.crc32c())
                .setLeaseDeadlineNanos(l.leaseDeadlineNanos())
                .setLeaseTtlNanos(l.leaseTtlNanos());
        for (Replica r : l.replicas()) b.addReplicas(encode(r));
        return b.build();
    }

    static ReplicaList decode(ReplicaListMsg m) {
        if (m.getLength() < 0 || m.getLeaseTtlNanos() < 0)
            throw new IllegalArgumentException("negative length or lease");
        List<Replica> reps = new ArrayList<>(m.getReplicasCount());
        for (ReplicaMsg r : m.getReplicasList()) reps.add(decode(r));
        return new ReplicaList(
                ReplicaList.Status.valueOf(m.getStatus()),
                m.getLength(),
                m.getCrc32C(),
                reps,
                m.getLeaseDeadlineNanos(),
                m.getLeaseTtlNanos());
    }
}
