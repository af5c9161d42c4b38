package dev.kvlab.store.ha;

import dev.kvlab.store.EtcdServer;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.MasterLauncher;
import dev.kvlab.store.NodeLauncher;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.server.HaLaunch;
import dev.kvlab.store.api.server.MasterLaunch;
import dev.kvlab.store.api.server.NodeLaunch;
import dev.kvlab.store.testkit.EtcdProcess;
import dev.kvlab.store.testkit.KvBackendCompatibilityKit;
import dev.kvlab.transport.Transports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The compatibility kit through {@code kvlab+etcd://}: two replicated masters on a real etcd, two nodes over tcp, the client finding the leader in etcd. */
class KvlabEtcdCompatibilityTest extends KvBackendCompatibilityKit {

    static EtcdServer etcd;
    static final List<AutoCloseable> running = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        etcd = EtcdProcess.start();
        for (String name : List.of("a", "b"))
            running.add(MasterLauncher.start(new MasterLaunch(
                    "127.0.0.1",
                    0,
                    "127.0.0.1",
                    0,
                    false,
                    MasterConfig.defaults(),
                    null,
                    null,
                    HaLaunch.of(etcd.spec(), name).withAdvertise(null).withLease(Duration.ofSeconds(2)))));
        for (int i = 0; i < 2; i++) {
            NodeLauncher.Running n = NodeLauncher.create(
                    new NodeLaunch(
                            "127.0.0.1",
                            1,
                            64L << 20,
                            "tcp",
                            "127.0.0.1",
                            "kit-n" + i,
                            null,
                            Duration.ofMillis(200),
                            "127.0.0.1",
                            0,
                            false,
                            null,
                            etcd.spec()),
                    Transports.discover());
            running.add(n);
            n.mount(e -> {});
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : running.reversed()) c.close();
        running.clear();
        if (etcd != null) etcd.close();
    }

    @Override
    protected BackendOptions baseOptions() {
        return BackendOptions.defaults().withTransport("tcp");
    }

    @Override
    protected KvBackend open(BackendOptions options) {
        return KvBackends.discover().open("kvlab+" + etcd.spec(), options);
    }
}
