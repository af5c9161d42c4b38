package dev.kvlab.store.api.server;

import java.util.List;

/**
 * A replicated store's masters as etcd knows them ({@code kvlab store status --master etcd://HOST:PORT}).
 *
 * @param etcd          the etcd and cluster asked ({@code etcd://HOST:PORT/CLUSTER})
 * @param leader        the name of the master leading and serving now, or null when none does (a failover is under way)
 * @param leaderAddress its control-plane address, or null
 * @param epoch         the current leadership term (one more per leadership; 0: no master ever led)
 * @param promoting     the master that won the election and is replaying the oplog before it serves, or null
 * @param members       every master alive (on its own etcd lease), with its role and how far it applied the oplog
 * @param snapshotSeq   the oplog entry the latest snapshot includes up to (0: none yet)
 * @param logSeq        the first oplog entry of the newest batch in etcd (0: none)
 */
public record ClusterStatus(
        String etcd,
        String leader,
        String leaderAddress,
        long epoch,
        String promoting,
        List<Member> members,
        long snapshotSeq,
        long logSeq) {

    public ClusterStatus {
        members = List.copyOf(members);
    }

    /** One master: {@code appliedSeq} is the last entry it wrote (leader) or applied (standby), each published once a second. */
    public record Member(String name, String address, String role, long term, long appliedSeq, long objects) {}
}
