package dev.kvlab.cli;

import dev.kvlab.cli.store.HostPortOption;
import dev.kvlab.cli.store.StoreToken;
import dev.kvlab.harness.api.MachineMemory;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.store.HaCluster;
import dev.kvlab.store.NodeLauncher;
import dev.kvlab.store.api.server.LaunchRefusedException;
import dev.kvlab.store.api.server.NodeLaunch;
import dev.kvlab.store.api.server.TokenRefusedException;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.ByteSize;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab store node}: contributes one segment to a master, serves it over a transport, pings the master. */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        description =
                "Runs a storage node: registers a segment with the transport, mounts it at the master and keeps it alive "
                        + "(ping every second; remounts when the master forgot it).")
public final class StoreNodeCommand implements Callable<Integer> {

    @Option(
            names = "--master",
            required = true,
            description = "HOST:PORT of the master, or etcd://HOST:PORT[/CLUSTER] of replicated masters "
                    + "(the node mounts at the leader and registers again with each new one)")
    String master;

    @Option(names = "--segment", required = true, description = "segment size, e.g. 256MiB")
    String segment;

    @Option(
            names = "--transport",
            defaultValue = "tcp",
            description = "data plane: tcp | shm | rdma-emu [${DEFAULT-VALUE}]")
    String transport;

    @Option(
            names = "--bind",
            defaultValue = "127.0.0.1",
            description = "address the transport serves on [${DEFAULT-VALUE}]")
    String bind;

    @Option(names = "--id", description = "node id (unique in the cluster) [node-<random>]")
    String id;

    @Option(names = "--token-file", description = "file whose first line is the auth token")
    Path tokenFile;

    @Option(
            names = "--parent-pid",
            hidden = true,
            description = "exit when this process is gone (nodes started by a harness die with it)")
    Long parentPid;

    @Option(
            names = "--ping-interval",
            defaultValue = "1s",
            description =
                    "liveness ping to the master (keep it well under the master's --client-ttl) [${DEFAULT-VALUE}]")
    Duration pingInterval;

    // obs: the node's Prometheus endpoint, like the master's
    @Option(
            names = "--metrics",
            defaultValue = "127.0.0.1:0",
            description = "HOST:PORT of the Prometheus endpoint /metrics (port 0: any free) [${DEFAULT-VALUE}]")
    String metrics;

    @Option(
            names = "--metrics-public",
            description = "serve a non-loopback --metrics endpoint without the auth token (to anyone who can reach it)")
    boolean metricsPublic;

    @Override
    public Integer call() throws Exception {
        boolean viaEtcd = HaCluster.isEtcd(master);
        if (viaEtcd) {
            try {
                HaCluster.checkEtcd(master);
            } catch (IllegalArgumentException e) {
                throw new BadInputException("--master: " + e.getMessage());
            }
        }
        HostPortOption m = viaEtcd
                ? HostPortOption.parse("--master", HaCluster.firstEndpoint(master), false)
                : HostPortOption.parse("--master", master, false);
        HostPortOption mAt = HostPortOption.parse("--metrics", metrics, true);
        long bytes;
        try {
            bytes = ByteSize.parse(segment);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--segment: " + e.getMessage());
        }
        if (bytes <= 0) throw new BadInputException("--segment must be > 0");
        MachineMemory.now().checkSegmentFits("--segment", segment, bytes);
        if (pingInterval.isZero()) throw new BadInputException("--ping-interval must be > 0");
        Transports ts = Transports.discover();
        if (!ts.names().contains(transport) || "local".equals(transport))
            throw new BadInputException("--transport: '" + transport + "' cannot serve other processes (available: "
                    + String.join(
                            ", ",
                            ts.names().stream().filter(n -> !n.equals("local")).toList()) + ")");
        String nodeId = id != null ? id : "node-" + UUID.randomUUID().toString().substring(0, 8);
        String token = StoreToken.read(tokenFile);
        NodeLauncher.Running node;
        try {
            node = NodeLauncher.create(
                    new NodeLaunch(
                            m.host(),
                            m.port(),
                            bytes,
                            transport,
                            bind,
                            nodeId,
                            token,
                            pingInterval,
                            mAt.host(),
                            mAt.port(),
                            metricsPublic,
                            parentPid,
                            viaEtcd ? master : null),
                    ts);
        } catch (LaunchRefusedException e) {
            throw new BadInputException(e.getMessage());
        } catch (OutOfMemoryError e) {
            throw new BadInputException("--segment " + segment + ": this machine could not allocate it ("
                    + e.getMessage() + "); " + MachineMemory.now().describe());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            node.close();
                            stopped.countDown();
                        },
                        "kvlab-node-shutdown"));
        try {
            node.mount(
                    e -> System.err.println("kvlab store node: master " + (viaEtcd ? master : m.host() + ":" + m.port())
                            + " not reachable yet (" + Kvlab.oneLine(e.getMessage()) + "); retrying"));
        } catch (TokenRefusedException e) {
            throw new BadInputException(e.getMessage()
                    + (token == null
                            ? " (none given: set KVLAB_STORE_TOKEN or --token-file)"
                            : " (wrong token: check KVLAB_STORE_TOKEN or --token-file)"));
        }
        System.out.println("kvlab store node " + nodeId + ": segment " + node.segmentName() + " ("
                + ByteSize.format(bytes) + ", " + transport
                + ") mounted at " + (viaEtcd ? master : m.host() + ":" + m.port()) + " as " + node.segmentUri()
                + "; metrics at http://" + mAt.host() + ":" + node.metricsPort() + "/metrics");
        System.out.flush();
        stopped.await();
        return Kvlab.EXIT_OK;
    }
}
