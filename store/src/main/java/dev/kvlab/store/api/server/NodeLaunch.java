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
 */
public record NodeLaunch(String masterHost, int masterPort, long segmentBytes, String transport, String bind, String nodeId, String token,
                         Duration ping, String metricsHost, int metricsPort, boolean metricsPublic, Long parentPid) {}
