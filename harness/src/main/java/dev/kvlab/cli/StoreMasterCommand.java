package dev.kvlab.cli;

import dev.kvlab.cli.store.HostPortOption;
import dev.kvlab.cli.store.StoreToken;
import dev.kvlab.harness.api.BadInputException;
import dev.kvlab.store.api.AllocationStrategy;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.master.StoreMaster;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.store.internal.server.MetricsHttpServer;
import dev.kvlab.transport.api.DurationSpec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab store master}: runs the bundled store's master (gRPC control plane + Prometheus metrics) until stopped. */
@Command(name = "master", mixinStandardHelpOptions = true,
        description = "Runs a store master: object metadata, allocation, leases, eviction and node liveness, over gRPC. "
                + "Binds to loopback unless told otherwise; a non-loopback address needs a token (KVLAB_STORE_TOKEN or --token-file).")
public final class StoreMasterCommand implements Callable<Integer> {

    @Option(names = "--listen", defaultValue = "127.0.0.1:50051", description = "HOST:PORT of the control plane [${DEFAULT-VALUE}]")
    String listen;

    @Option(names = "--metrics", defaultValue = "127.0.0.1:0", description = "HOST:PORT of the Prometheus endpoint /metrics (port 0: any free) [${DEFAULT-VALUE}]")
    String metrics;

    @Option(names = "--metrics-public", description = "serve a non-loopback --metrics endpoint without the auth token (to anyone who can reach it)")
    boolean metricsPublic;

    @Option(names = "--strategy", defaultValue = "random", description = "replica placement: random | free-ratio-first [${DEFAULT-VALUE}]")
    String strategy;

    @Option(names = "--seed", defaultValue = "0", description = "seed of the random placement [${DEFAULT-VALUE}]")
    long seed;

    @Option(names = "--lease-ttl", defaultValue = "10s", description = "lease granted by a replica lookup [${DEFAULT-VALUE}]")
    String leaseTtl;

    @Option(names = "--client-ttl", defaultValue = "10s", description = "a node silent this long loses its segments [${DEFAULT-VALUE}]")
    String clientTtl;

    @Option(names = "--parent-pid", hidden = true, description = "exit when this process is gone (a master started by a harness dies with it)")
    Long parentPid;

    @Option(names = "--token-file", description = "file whose first line is the auth token")
    Path tokenFile;

    @Override
    public Integer call() throws Exception {
        HostPortOption at = HostPortOption.parse("--listen", listen, true);
        HostPortOption mAt = HostPortOption.parse("--metrics", metrics, true);
        AllocationStrategy s;
        try {
            s = AllocationStrategy.parse(strategy);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--strategy: " + e.getMessage());
        }
        MasterConfig config;
        try {
            config = MasterConfig.defaults().withStrategy(s).withSeed(seed).withLeaseTtl(DurationSpec.parse(leaseTtl))
                    .withClientTtl(DurationSpec.parse(clientTtl));
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
        String token = StoreToken.read(tokenFile);
        String metricsBind = dev.kvlab.store.internal.server.MetricsHttpServer.check(mAt.host(), token, metricsPublic);
        if (metricsBind != null) throw new BadInputException(metricsBind);
        // a non-loopback endpoint asks scrapers for the token (bearer); loopback stays open like the store's own ports
        String metricsToken = metricsPublic || dev.kvlab.store.internal.server.Loopback.only(mAt.host()) ? null : token;
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MasterService service = new MasterService(new StoreMaster(config, Clock.systemUTC()), registry)
                .startHousekeeping(Duration.ofMillis(250));
        MasterServer server;
        try {
            server = MasterServer.start(service, at.host(), at.port(), token);
        } catch (IllegalArgumentException e) {
            service.close();
            throw new BadInputException("--listen: " + e.getMessage());
        }
        MetricsHttpServer http = new MetricsHttpServer(registry, mAt.host(), mAt.port(), metricsToken);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            http.close();
            server.close();
            service.close();
            stopped.countDown();
        }, "kvlab-master-shutdown"));
        dev.kvlab.cli.store.ParentWatch.exitWith(parentPid);
        System.out.println("kvlab store master listening on " + at.host() + ":" + server.port() + " (auth " + (token == null ? "off: loopback" : "on")
                + "); metrics at http://" + mAt.host() + ":" + http.port() + "/metrics");
        System.out.flush();
        stopped.await();
        return Kvlab.EXIT_OK;
    }
}
