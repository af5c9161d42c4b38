package dev.kvlab.store.api.server;

import java.time.Duration;

/**
 * A storage node to start: a segment of {@code segmentBytes} registered with the {@code transport} serving on
 * {@code bind}, mounted at the master {@code masterHost:masterPort} as {@code nodeId} and kept alive by a ping every
 * {@code ping}; its Prometheus endpoint at {@code metricsHost:metricsPort} (port 0: any free). The auth token (null:
 * none) is sent to the master and asked of the data plane's peers; a data plane or metrics endpoint off loopback needs
 * it (the metrics endpoint not when {@code metricsPublic}), which the launcher checks.
 *
 * @param parentPid the process whose end ends this one (a node started by a harness dies with it), or null
 * @param etcd      the replicated masters' etcd ({@code etcd://HOST:PORT[/CLUSTER]}): the node mounts at whichever leads,
 *                  follows a change of leader and registers its segment again with the new one; null: the master at
 *                  {@code masterHost:masterPort}
 */
public record NodeLaunch(
        String masterHost,
        int masterPort,
        long segmentBytes,
        String transport,
        String bind,
        String nodeId,
        String token,
        Duration ping,
        String metricsHost,
        int metricsPort,
        boolean metricsPublic,
        Long parentPid,
        String etcd) {

    /** A node of the master at {@code masterHost:masterPort}. */
    public NodeLaunch(
            String masterHost,
            int masterPort,
            long segmentBytes,
            String transport,
            String bind,
            String nodeId,
            String token,
            Duration ping,
            String metricsHost,
            int metricsPort,
            boolean metricsPublic,
            Long parentPid) {
        this(
                masterHost,
                masterPort,
                segmentBytes,
                transport,
                bind,
                nodeId,
                token,
                ping,
                metricsHost,
                metricsPort,
                metricsPublic,
                parentPid,
                null);
    }

    /** Where the node's master is, for messages. */
    public String masterName() {
        return etcd != null ? etcd : masterHost + ":" + masterPort;
    }
}
