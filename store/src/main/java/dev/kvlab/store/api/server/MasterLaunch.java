package dev.kvlab.store.api.server;

import dev.kvlab.store.api.MasterConfig;

/**
 * A store master to start: its control plane at {@code host:port} (port 0: any free), its Prometheus endpoint
 * {@code /metrics} at {@code metricsHost:metricsPort} (port 0: any free), the master's settings and the auth token
 * (null: none, loopback only). A non-loopback metrics endpoint needs the token (scrapers send it as a bearer token)
 * unless {@code metricsPublic}; the launcher refuses it otherwise.
 *
 * @param parentPid the process whose end ends this one (a master started by a harness dies with it), or null
 * @param ha        the replicated cluster it joins (leader election and oplog on etcd), or null: a master on its own
 */
public record MasterLaunch(
        String host,
        int port,
        String metricsHost,
        int metricsPort,
        boolean metricsPublic,
        MasterConfig config,
        String token,
        Long parentPid,
        HaLaunch ha) {

    /** A master on its own (no HA). */
    public MasterLaunch(
            String host,
            int port,
            String metricsHost,
            int metricsPort,
            boolean metricsPublic,
            MasterConfig config,
            String token,
            Long parentPid) {
        this(host, port, metricsHost, metricsPort, metricsPublic, config, token, parentPid, null);
    }
}
