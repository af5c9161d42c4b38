package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.server.MasterService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: calibrating against the wrong thing says which, through one error mapping for remote targets
 * ({@code RemoteStore}): nothing listening (within seconds), something that is not a kvlab store, a refused token;
 * a port out of range is bad input.
 */
class CalibrateTargetErrorsTest {

    static BenchTransportCommandTest.Run calibrate(int port) {
        return assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> BenchTransportCommandTest.run(
                        "calibrate", "--target", "kvlab://127.0.0.1:" + port, "--duration", "100ms", "--json"));
    }

    @Test
    void nothingListeningIsUnreachableWithinSeconds() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        BenchTransportCommandTest.Run r = calibrate(port);
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(10);
        assertThat(r.code()).isEqualTo(Kvlab.EXIT_FAILED);
        assertThat(r.err()).contains("unreachable", "127.0.0.1:" + port).doesNotContain("calibration object");
    }

    @Test
    void somethingElseListeningIsNotAKvlabStore() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread http = Thread.ofVirtual().start(() -> {
                while (!s.isClosed()) {
                    try (Socket c = s.accept();
                            OutputStream o = c.getOutputStream()) {
                        c.getInputStream().read(new byte[4096]);
                        o.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            BenchTransportCommandTest.Run r = calibrate(s.getLocalPort());
            assertThat(r.code()).isEqualTo(Kvlab.EXIT_FAILED);
            assertThat(r.err()).contains("not a kvlab store").doesNotContain("calibration object");
            http.interrupt();
        }
    }

    @Test
    void aMasterRefusingTheTokenSaysSo() throws Exception {
        MasterService s = new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        try (MasterServer server = MasterServer.start(s, "127.0.0.1", 0, "the-right-token-0123")) {
            BenchTransportCommandTest.Run r =
                    calibrate(server.port()); // the test's environment gives no KVLAB_STORE_TOKEN
            assertThat(r.code()).isEqualTo(Kvlab.EXIT_FAILED);
            assertThat(r.err()).contains("refused", "token").doesNotContain("calibration object");
        } finally {
            s.close();
        }
    }

    @Test
    void aPortOutOfRangeIsBadInput() {
        BenchTransportCommandTest.assertBadInput(
                "port must be 1..65535", "calibrate", "--target", "kvlab://127.0.0.1:99999");
    }
}
