package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.cli.store.HostPortOption;
import dev.kvlab.cli.store.StoreToken;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.store.HaCluster;
import dev.kvlab.store.api.server.ClusterStatus;
import dev.kvlab.store.api.server.MasterStatus;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvlab store status}: who leads a replicated store (from etcd: leader, epoch, every master's role and oplog
 * position) or what one master says of itself. Exit 1 when no master leads.
 */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description =
                "Shows a store's masters: with --master etcd://HOST:PORT[/CLUSTER], the leader serving now, the epoch (leadership term), "
                        + "each master's role and how far it applied the oplog; with --master HOST:PORT, what that master says of itself. "
                        + "Exits 1 when no master leads (a failover is under way, or none runs).")
public final class StoreStatusCommand implements Callable<Integer> {

    @Option(
            names = "--master",
            required = true,
            description = "etcd://HOST:PORT[,HOST:PORT...][/CLUSTER] of replicated masters, or HOST:PORT of one master")
    String master;

    @Option(names = "--timeout", defaultValue = "2s", description = "per request [${DEFAULT-VALUE}]")
    Duration timeout;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @Override
    public Integer call() throws Exception {
        ObjectMapper om = new ObjectMapper();
        if (HaCluster.isEtcd(master)) {
            try {
                HaCluster.checkEtcd(master);
            } catch (IllegalArgumentException e) {
                throw new BadInputException("--master: " + e.getMessage());
            }
            ClusterStatus s;
            try {
                s = HaCluster.status(master, timeout);
            } catch (IllegalStateException e) {
                System.err.println("kvlab store status: " + e.getMessage());
                return Kvlab.EXIT_FAILED;
            }
            System.out.print(json ? om.writeValueAsString(json(om, s)) + System.lineSeparator() : text(s));
            if (s.leader() == null)
                System.err.println("kvlab store status: no master leads " + s.etcd()
                        + (s.promoting() != null ? " (" + s.promoting() + " is taking over)" : ""));
            return s.leader() == null ? Kvlab.EXIT_FAILED : Kvlab.EXIT_OK;
        }
        HostPortOption at = HostPortOption.parse("--master", master, false);
        MasterStatus m;
        try {
            m = HaCluster.master(at.host(), at.port(), StoreToken.read(null), timeout);
        } catch (RuntimeException e) {
            System.err.println("kvlab store status: master " + master + ": " + Kvlab.oneLine(e.getMessage()));
            return Kvlab.EXIT_FAILED;
        }
        if (json) System.out.println(om.writeValueAsString(m));
        else
            System.out.printf(
                    Locale.ROOT,
                    "master %s%s: %s, term %d, leader %s%s; %d objects, %d segments; oplog entry %d%n",
                    master,
                    m.name().isEmpty() ? "" : " (" + m.name() + ")",
                    m.role(),
                    m.term(),
                    m.leader().isEmpty() ? "-" : m.leader(),
                    m.leaderAddress().isEmpty() ? "" : " at " + m.leaderAddress(),
                    m.objects(),
                    m.segments(),
                    m.appliedSeq());
        return "leader".equals(m.role()) || "single".equals(m.role()) ? Kvlab.EXIT_OK : Kvlab.EXIT_FAILED;
    }

    private static ObjectNode json(ObjectMapper om, ClusterStatus s) {
        ObjectNode o = om.createObjectNode().put("etcd", s.etcd());
        if (s.leader() != null) o.put("leader", s.leader()).put("leader_address", s.leaderAddress());
        o.put("epoch", s.epoch());
        if (s.promoting() != null) o.put("promoting", s.promoting());
        long head = s.members().stream()
                .filter(m -> m.name().equals(s.leader()))
                .mapToLong(ClusterStatus.Member::appliedSeq)
                .findFirst()
                .orElse(-1);
        ArrayNode ms = o.putArray("members");
        for (ClusterStatus.Member m : s.members()) {
            ObjectNode n = ms.addObject()
                    .put("name", m.name())
                    .put("address", m.address())
                    .put("role", m.role())
                    .put("term", m.term())
                    .put("applied_seq", m.appliedSeq())
                    .put("objects", m.objects());
            if (head >= 0 && !m.name().equals(s.leader())) n.put("behind_entries", Math.max(0, head - m.appliedSeq()));
        }
        return o.put("snapshot_seq", s.snapshotSeq()).put("log_seq", s.logSeq());
    }

    private static String text(ClusterStatus s) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%s: %s, epoch %d%s%n",
                s.etcd(),
                s.leader() == null ? "no leader" : "leader " + s.leader() + " at " + s.leaderAddress(),
                s.epoch(),
                s.promoting() == null ? "" : " (" + s.promoting() + " is taking over)"));
        for (ClusterStatus.Member m : s.members())
            b.append(String.format(
                    Locale.ROOT,
                    "  %-12s %-9s %-22s term %d, oplog entry %d, %d objects%n",
                    m.name(),
                    m.role(),
                    m.address(),
                    m.term(),
                    m.appliedSeq(),
                    m.objects()));
        return b.append(String.format(
                        Locale.ROOT,
                        "  latest snapshot includes entry %d; newest batch in etcd starts at entry %d%n",
                        s.snapshotSeq(),
                        s.logSeq()))
                .toString();
    }
}
