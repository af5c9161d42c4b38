package dev.kvlab.store;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.server.MasterLaunch;
import dev.kvlab.store.api.server.NodeLaunch;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.DurationSpec;
import java.util.concurrent.CountDownLatch;

/**
 * The main class of a {@link StoreChildProcess}: {@code master PORT SEED LEASE_TTL CLIENT_TTL PARENT_PID},
 * {@code ha-master PORT SEED LEASE_TTL CLIENT_TTL ETCD NAME HA_LEASE PARENT_PID},
 * {@code node MASTER_PORT SEGMENT_BYTES TRANSPORT NODE_ID PING PARENT_PID} or
 * {@code etcd-node ETCD SEGMENT_BYTES TRANSPORT NODE_ID PING PARENT_PID}, all on loopback without a token. Prints
 * a line starting with {@link #READY} once it serves, then runs until killed or until its parent is gone.
 */
public final class StoreProcessMain {

    /** The start of the line a child prints once it serves. */
    public static final String READY = "kvlab store child ready: ";

    private StoreProcessMain() {}

    public static void main(String[] args) throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        AutoCloseable running;
        String line;
        if ("ha-master".equals(args[0])) {
            MasterConfig config = MasterConfig.defaults()
                    .withSeed(Long.parseLong(args[2]))
                    .withLeaseTtl(DurationSpec.parse(args[3]))
                    .withClientTtl(DurationSpec.parse(args[4]));
            dev.kvlab.store.api.server.HaLaunch ha =
                    dev.kvlab.store.api.server.HaLaunch.of(args[5], args[6]).withLease(DurationSpec.parse(args[7]));
            MasterLauncher.Running m = MasterLauncher.start(new MasterLaunch(
                    "127.0.0.1",
                    Integer.parseInt(args[1]),
                    "127.0.0.1",
                    0,
                    false,
                    config,
                    null,
                    Long.parseLong(args[8]),
                    ha));
            running = m;
            line = "master " + args[6] + " listening on 127.0.0.1:" + m.port() + " (replicated through " + args[5]
                    + ")";
        } else if ("etcd-node".equals(args[0])) {
            NodeLaunch l = new NodeLaunch(
                    "127.0.0.1",
                    1,
                    Long.parseLong(args[2]),
                    args[3],
                    "127.0.0.1",
                    args[4],
                    null,
                    DurationSpec.parse(args[5]),
                    "127.0.0.1",
                    0,
                    false,
                    Long.parseLong(args[6]),
                    args[1]);
            NodeLauncher.Running n = NodeLauncher.create(l, Transports.discover());
            running = n;
            n.mount(e -> System.out.println(
                    "no master of " + l.etcd() + " reachable yet (" + e.getMessage() + "); retrying"));
            line = "node " + l.nodeId() + " mounted " + n.segmentName() + " at the leader of " + l.etcd();
        } else if ("master".equals(args[0])) {
            MasterConfig config = MasterConfig.defaults()
                    .withSeed(Long.parseLong(args[2]))
                    .withLeaseTtl(DurationSpec.parse(args[3]))
                    .withClientTtl(DurationSpec.parse(args[4]));
            MasterLauncher.Running m = MasterLauncher.start(new MasterLaunch(
                    "127.0.0.1",
                    Integer.parseInt(args[1]),
                    "127.0.0.1",
                    0,
                    false,
                    config,
                    null,
                    Long.parseLong(args[5])));
            running = m;
            line = "master listening on 127.0.0.1:" + m.port();
        } else {
            NodeLaunch l = new NodeLaunch(
                    "127.0.0.1",
                    Integer.parseInt(args[1]),
                    Long.parseLong(args[2]),
                    args[3],
                    "127.0.0.1",
                    args[4],
                    null,
                    DurationSpec.parse(args[5]),
                    "127.0.0.1",
                    0,
                    false,
                    Long.parseLong(args[6]));
            NodeLauncher.Running n = NodeLauncher.create(l, Transports.discover());
            running = n;
            n.mount(e -> System.out.println(
                    "master 127.0.0.1:" + l.masterPort() + " not reachable yet (" + e.getMessage() + "); retrying"));
            line = "node " + l.nodeId() + " mounted " + n.segmentName() + " at 127.0.0.1:" + l.masterPort();
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                running.close();
                            } catch (Exception ignored) {
                                // exiting anyway
                            }
                            stopped.countDown();
                        },
                        "kvlab-store-child-shutdown"));
        System.out.println(READY + line);
        System.out.flush();
        stopped.await();
    }
}
