package dev.kvlab.cli;

import dev.kvlab.cli.store.HostPortOption;
import dev.kvlab.cli.store.StoreToken;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.store.HaCluster;
import dev.kvlab.store.MasterLauncher;
import dev.kvlab.store.api.AllocationStrategy;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.server.HaLaunch;
import dev.kvlab.store.api.server.LaunchRefusedException;
import dev.kvlab.store.api.server.MasterLaunch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab store master}: runs the bundled store's master (gRPC control plane + Prometheus metrics) until stopped. */
@Command(
        name = "master",
        mixinStandardHelpOptions = true,
        description =
                "Runs a store master: object metadata, allocation, leases, eviction and node liveness, over gRPC. "
                        + "Binds to loopback unless told otherwise; a non-loopback address needs a token (KVLAB_STORE_TOKEN or --token-file). "
                        + "With --ha etcd://HOST:PORT --name NAME, one of several masters: a leader and standbys (docs/store-ha.md).")
public final class StoreMasterCommand implements Callable<Integer> {

    @Option(
            names = "--listen",
            defaultValue = "127.0.0.1:50051",
            description = "HOST:PORT of the control plane [${DEFAULT-VALUE}]")
    String listen;

    @Option(
            names = "--metrics",
            defaultValue = "127.0.0.1:0",
            description = "HOST:PORT of the Prometheus endpoint /metrics (port 0: any free) [${DEFAULT-VALUE}]")
    String metrics;

    @Option(
            names = "--metrics-public",
            description = "serve a non-loopback --metrics endpoint without the auth token (to anyone who can reach it)")
    boolean metricsPublic;

    @Option(
            names = "--strategy",
            defaultValue = "random",
            description = "replica placement: random | free-ratio-first [${DEFAULT-VALUE}]")
    String strategy;

    @Option(names = "--seed", defaultValue = "0", description = "seed of the random placement [${DEFAULT-VALUE}]")
    long seed;

    @Option(
            names = "--lease-ttl",
            defaultValue = "10s",
            description = "lease granted by a replica lookup [${DEFAULT-VALUE}]")
    Duration leaseTtl;

    @Option(
            names = "--client-ttl",
            defaultValue = "10s",
            description = "a node silent this long loses its segments [${DEFAULT-VALUE}]")
    Duration clientTtl;

    @Option(
            names = "--parent-pid",
            hidden = true,
            description = "exit when this process is gone (a master started by a harness dies with it)")
    Long parentPid;

    @Option(names = "--token-file", description = "file whose first line is the auth token")
    Path tokenFile;

    @Option(
            names = "--ha",
            paramLabel = "etcd://HOST:PORT[,HOST:PORT...][/CLUSTER]",
            description =
                    "join the replicated masters of this etcd: one leads (an etcd lease and election) and writes every metadata change to an "
                            + "oplog in etcd; the others apply it and stand by, and one of them takes over when the leader's lease runs out")
    String ha;

    @Option(
            names = "--name",
            description = "with --ha: this master's name in its cluster (unique) [the host name and port]")
    String name;

    @Option(
            names = "--ha-lease",
            defaultValue = "3s",
            description =
                    "with --ha: the leader's etcd lease, whole seconds >= 2: a failover takes about this long [${DEFAULT-VALUE}]")
    Duration haLease;

    @Option(
            names = "--advertise",
            description = "with --ha: HOST:PORT clients reach this master at [the --listen address]")
    String advertise;

    /** The --ha settings, checked; null without --ha. */
    private HaLaunch haLaunch(HostPortOption at) {
        if (ha == null) {
            if (name != null || advertise != null)
                throw new BadInputException((name != null ? "--name" : "--advertise") + " needs --ha");
            return null;
        }
        try {
            HaCluster.checkEtcd(ha);
            if (advertise != null) HostPortOption.parse("--advertise", advertise, false);
            if (at.port() == 0 && advertise == null)
                throw new BadInputException(
                        "--ha needs a fixed --listen port (or --advertise): clients find this master by it");
            String n = name != null
                    ? name
                    : (java.net.InetAddress.getLocalHost().getHostName() + "-" + at.port())
                            .replaceAll("[^A-Za-z0-9._-]", "-");
            return HaLaunch.of(ha, n).withLease(haLease).withAdvertise(advertise);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage().startsWith("--") ? e.getMessage() : "--ha: " + e.getMessage());
        } catch (java.net.UnknownHostException e) {
            throw new BadInputException("--name: give one (the host name is unknown: " + e.getMessage() + ")");
        }
    }

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
            config = MasterConfig.defaults()
                    .withStrategy(s)
                    .withSeed(seed)
                    .withLeaseTtl(leaseTtl)
                    .withClientTtl(clientTtl);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
        String token = StoreToken.read(tokenFile);
        HaLaunch haLaunch = haLaunch(at);
        MasterLauncher.Running m;
        try {
            m = MasterLauncher.start(new MasterLaunch(
                    at.host(), at.port(), mAt.host(), mAt.port(), metricsPublic, config, token, parentPid, haLaunch));
        } catch (LaunchRefusedException e) {
            throw new BadInputException(e.getMessage());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            m.close();
                            stopped.countDown();
                        },
                        "kvlab-master-shutdown"));
        System.out.println("kvlab store master " + (haLaunch == null ? "" : haLaunch.name() + " ") + "listening on "
                + at.host() + ":" + m.port()
                + " (auth " + (token == null ? "off: loopback" : "on") + "); metrics at http://" + mAt.host() + ":"
                + m.metricsPort() + "/metrics"
                + (haLaunch == null
                        ? ""
                        : "; replicated through " + HaCluster.checkEtcd(ha) + " (lease " + haLease.toSeconds()
                                + " s)"));
        System.out.flush();
        stopped.await();
        return Kvlab.EXIT_OK;
    }
}
