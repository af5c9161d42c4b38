package dev.kvlab.store.testkit;

import dev.kvlab.store.EtcdServer;
import java.io.IOException;
import org.junit.jupiter.api.Assumptions;

/**
 * A real etcd for tests ({@link EtcdServer}: one member on free loopback ports, a temporary data directory). When the
 * binary is missing the test is skipped with the reason — unless {@code KVLAB_CI=1}, then it fails.
 */
public final class EtcdProcess {

    private EtcdProcess() {}

    public static EtcdServer start() {
        if (EtcdServer.binary().isEmpty()) {
            String why = "etcd is not installed (apt-get install etcd-server)";
            if ("1".equals(System.getenv("KVLAB_CI")))
                throw new IllegalStateException(why + "; KVLAB_CI=1 requires it");
            Assumptions.abort(why);
        }
        try {
            return EtcdServer.start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start etcd: " + e.getMessage(), e);
        }
    }
}
