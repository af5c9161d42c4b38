package dev.kvlab.store;

import dev.kvlab.store.api.server.LaunchRefusedException;
import dev.kvlab.store.api.server.MasterLaunch;
import dev.kvlab.store.api.server.MasterStatus;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.ha.HaMaster;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.server.Loopback;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.store.internal.server.MetricsHttpServer;
import dev.kvlab.store.internal.server.ParentWatch;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;

/**
 * Starts a store master in this JVM ({@code kvlab store master}, and a fault cell's master child): the master with its
 * housekeeping, its gRPC control plane and its Prometheus endpoint; {@link Running#close()} stops all three.
 */
public final class MasterLauncher {

    private MasterLauncher() {}

    /** A master that serves until closed ({@code ha}: its part in a replicated cluster, or null). */
    public record Running(MasterService service, MasterServer server, MetricsHttpServer metrics, HaMaster ha)
            implements AutoCloseable {

        /** Waits up to {@code limit} until a replicated master warmed its serving path up (at start, once); true at once without HA. */
        public boolean awaitWarm(Duration limit) throws InterruptedException {
            return ha == null || ha.awaitWarm(limit.toMillis());
        }

        /** What it wrote to the oplog while leading (nothing unless it is a replicated master that leads). */
        public dev.kvlab.store.api.server.OplogStats oplog() {
            return ha == null ? dev.kvlab.store.api.server.OplogStats.NONE : ha.oplog();
        }

        /** Its role, term and leader (a master on its own: {@code single}). */
        public MasterStatus status() {
            return service.status();
        }

        /** The control plane's port (the one bound when the launch asked for port 0). */
        public int port() {
            return server.port();
        }

        public int metricsPort() {
            return metrics.port();
        }

        @Override
        public void close() {
            if (ha != null) ha.close(); // gives the lease up: a standby takes over at once
            metrics.close();
            server.close();
            service.close();
        }
    }

    /**
     * Starts {@code l}; then watches {@code l.parentPid()} (if any). {@link LaunchRefusedException}: a metrics
     * endpoint off loopback without a token (message naming it), or a control plane address that cannot be bound
     * ({@code --listen: } and the server's message).
     */
    public static Running start(MasterLaunch l) throws IOException {
        String metricsBind = MetricsHttpServer.check(l.metricsHost(), l.token(), l.metricsPublic());
        if (metricsBind != null) throw new LaunchRefusedException(metricsBind, null);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MasterService service = new MasterService(new StoreMaster(l.config(), Clock.systemUTC()), registry)
                .startHousekeeping(Duration.ofMillis(250));
        if (l.ha() != null)
            service.gate(
                    () -> { // serves nothing before it leads
                        throw new dev.kvlab.store.internal.rpc.NotLeaderException(l.ha().name() + " is starting");
                    });
        MasterServer server;
        try {
            server = MasterServer.start(service, l.host(), l.port(), l.token());
        } catch (IllegalArgumentException e) {
            service.close();
            throw new LaunchRefusedException("--listen: " + e.getMessage(), e);
        }
        MetricsHttpServer http = new MetricsHttpServer(
                registry,
                l.metricsHost(),
                l.metricsPort(),
                metricsToken(l.metricsHost(), l.token(), l.metricsPublic()));
        HaMaster ha = null;
        if (l.ha() != null) {
            String advertise = l.ha().advertise() != null ? l.ha().advertise() : l.host() + ":" + server.port();
            try {
                ha = new HaMaster(l.ha(), advertise, l.config(), Clock.systemUTC(), service);
            } catch (IllegalArgumentException e) {
                http.close();
                server.close();
                service.close();
                throw new LaunchRefusedException("--ha: " + e.getMessage(), e);
            }
        }
        ParentWatch.exitWith(l.parentPid());
        return new Running(service, server, http, ha);
    }

    /** The token scrapers must send: a non-loopback endpoint asks for it (bearer); loopback stays open like the store's own ports. */
    static String metricsToken(String host, String token, boolean isPublic) {
        return isPublic || Loopback.only(host) ? null : token;
    }
}
