package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Bad input to {@code kvlab store master|node|status} exits 2 before anything starts. */
class StoreCommandsTest {

    @Test
    void badInputExitsTwo() {
        String[][] bad = {
            {"store", "master", "--listen", "nohostport"},
            {"store", "master", "--listen", "127.0.0.1:99999"},
            {"store", "master", "--listen", "127.0.0.1:0", "--strategy", "biggest"},
            {"store", "master", "--listen", "127.0.0.1:0", "--lease-ttl", "ten"},
            {"store", "master", "--listen", "0.0.0.0:0"}, // not loopback, no token
            {"store", "node", "--master", "127.0.0.1", "--segment", "1MiB"},
            {"store", "node", "--master", "127.0.0.1:1", "--segment", "big"},
            {"store", "node", "--master", "127.0.0.1:1", "--segment", "1MiB", "--transport", "local"},
            {"store", "node", "--segment", "1MiB"},
            {"store"},
            {"store", "master", "--listen", "127.0.0.1:7001", "--name", "m1"}, // --name needs --ha
            {"store", "master", "--listen", "127.0.0.1:7001", "--ha", "http://127.0.0.1:2379", "--name", "m1"},
            {"store", "master", "--listen", "127.0.0.1:7001", "--ha", "etcd://127.0.0.1:2379", "--name", "bad name"},
            {"store", "master", "--listen", "127.0.0.1:0", "--ha", "etcd://127.0.0.1:2379", "--name", "m1"
            }, // clients find it by a fixed port
            {
                "store",
                "master",
                "--listen",
                "127.0.0.1:7001",
                "--ha",
                "etcd://127.0.0.1:2379",
                "--name",
                "m1",
                "--ha-lease",
                "1s"
            },
            {"store", "node", "--master", "etcd://127.0.0.1", "--segment", "1MiB"},
            {"store", "status", "--master", "etcd://127.0.0.1:2379/bad name"},
            {"store", "status", "--master", "nohostport"},
            {"store", "status"},
        };
        for (String[] a : bad) {
            BenchStoreCommandTest.Run r = BenchStoreCommandTest.run(a);
            assertThat(r.code()).as("%s -> %s", String.join(" ", a), r.err()).isEqualTo(2);
        }
    }
}
