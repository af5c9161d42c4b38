package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.server.MasterService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Issue 14: a node asked for more memory than there is, or refused its token, says so in one line and exits 2. */
class StoreNodeCommandTest {

    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {}

    static Run kvlab(String... args) {
        CommandLine cl = Kvlab.commandLine();
        StringWriter out = new StringWriter(), err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return new Run(cl.execute(args), out.toString(), err.toString());
    }

    @Test
    void aSegmentTheMachineCannotGiveExitsTwoWithWhatItCan() {
        Run r = kvlab("store", "node", "--master", "127.0.0.1:1", "--segment", "1024TiB");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains("--segment 1024TiB", "more than this machine can give", "available", "or less")
                .doesNotContain("OutOfMemoryError");
        assertThat(r.err().strip().lines().count()).isEqualTo(1);
        Run past = kvlab("store", "node", "--master", "127.0.0.1:1", "--segment", "2048TiB");
        assertThat(past.exit()).isEqualTo(2);
        assertThat(past.err()).contains("more than a store segment can be");
    }

    @Test
    void aRefusedTokenIsFinalOneLineExitTwo() throws Exception {
        MasterService s = new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        Path wrong = Files.writeString(tmp.resolve("wrong"), "the-wrong-token-0123\n");
        try (MasterServer server = MasterServer.start(s, "127.0.0.1", 0, "the-right-token-0123")) {
            Run r = assertTimeoutPreemptively(
                    Duration.ofSeconds(20),
                    () -> kvlab(
                            "store",
                            "node",
                            "--master",
                            "127.0.0.1:" + server.port(),
                            "--segment",
                            "8MiB",
                            "--token-file",
                            wrong.toString()));
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("refused this node's auth token").doesNotContain("\tat ");
            assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
        } finally {
            s.close();
        }
    }

    @Test
    void aMetricsEndpointOffLoopbackWithoutATokenIsRefused() {
        Run r = kvlab("store", "master", "--listen", "127.0.0.1:0", "--metrics", "0.0.0.0:0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--metrics 0.0.0.0", "--metrics-public");
        Run n = kvlab("store", "node", "--master", "127.0.0.1:1", "--segment", "8MiB", "--metrics", "0.0.0.0:0");
        assertThat(n.exit()).isEqualTo(2);
        assertThat(n.err()).contains("--metrics 0.0.0.0");
    }
}
