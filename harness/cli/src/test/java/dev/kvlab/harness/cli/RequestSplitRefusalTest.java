package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.kvlab.cli.Kvlab;
import dev.kvlab.harness.api.ShardSplit;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.testsupport.TestMatrices;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --shard K/N --split requests} is refused (exit 2, naming the key, nothing run) where a cell's requests
 * cannot be split over hosts: an emulated target, a capacity search, a closed loop, a cap on requests in flight, an
 * early stop; and {@code --split} without {@code --shard}.
 */
class RequestSplitRefusalTest {

    @TempDir
    Path dir;

    @Test
    void anEmulatedMatrixIsNotSplitByRequests() throws Exception {
        Path m = TestMatrices.write(dir, "m.yaml", TestMatrices.SMALL);
        Cli c = Cli.run(
                "run",
                m.toString(),
                "--shard",
                "1/2",
                "--split",
                "requests",
                "--out",
                dir.resolve("o").toString());
        assertThat(c.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(c.err()).contains("key 'target.kind' is 'emulated'").contains("cannot be split across hosts");
        assertThat(Files.exists(dir.resolve("o"))).as("nothing written").isFalse();
    }

    @Test
    void aCapacitySearchIsNotSplitByRequests() throws Exception {
        Path m = TestMatrices.write(dir, "c.yaml", ShardMergeTest.SEARCH);
        Cli c = Cli.run(
                "run",
                m.toString(),
                "--shard",
                "2/2",
                "--split",
                "requests",
                "--out",
                dir.resolve("o").toString());
        assertThat(c.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(c.err()).contains("key 'capacity'");
    }

    @Test
    void splitNeedsShardAndKnowsItsValues() throws Exception {
        Path m = TestMatrices.write(dir, "m.yaml", TestMatrices.SMALL);
        Cli alone = Cli.run(
                "run",
                m.toString(),
                "--split",
                "requests",
                "--out",
                dir.resolve("o").toString());
        assertThat(alone.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(alone.err()).contains("--split: needs --shard K/N");
        Cli bad = Cli.run(
                "run",
                m.toString(),
                "--shard",
                "1/2",
                "--split",
                "cells",
                "--out",
                dir.resolve("o").toString());
        assertThat(bad.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(bad.err()).contains("--split must be runs").contains("'cells'");
        assertThat(ShardSplit.parse(" Requests ")).isEqualTo(ShardSplit.REQUESTS);
    }

    /** A stand-in that answers {@code GET /health}: enough for a config of the openai target to bind. */
    private static HttpServer healthy() throws Exception {
        HttpServer h = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        h.createContext("/health", x -> {
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        h.start();
        return h;
    }

    private static ConfigTree config(HttpServer h, String arrival, String more) {
        return ConfigTree.parse("""
                mode: live
                target: {kind: openai, endpoints: [http://127.0.0.1:%d], model: default, request_shard: 1/2}
                workload:
                  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 64, suffix_tokens: 16, output_tokens: 4}
                  arrival: %s
                %s
                """.formatted(h.getAddress().getPort(), arrival, more), "x.yaml", null);
    }

    @Test
    void aStreamThatDependsOnCompletionsIsNotSplit() throws Exception {
        HttpServer h = healthy();
        try {
            assertThatThrownBy(
                            () -> config(h, "{process: closed, users: 2}", "").bind())
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("key 'workload.arrival.process'")
                    .hasMessageContaining("closed loop");
            assertThatThrownBy(() -> config(h, "{process: poisson, rate: 2, max_concurrency: 4}", "")
                            .bind())
                    .hasMessageContaining("key 'workload.arrival.max_concurrency'");
            assertThatThrownBy(
                            () -> config(h, "{process: poisson, rate: 2}", "measurement: {early_stop: {target: 0.9}}")
                                    .bind())
                    .hasMessageContaining("key 'measurement.early_stop'");
            assertThatThrownBy(() -> config(h, "{process: poisson, rate: 2}", "")
                            .set("target.request_shard=3/2")
                            .bind())
                    .hasMessageContaining("key 'target.request_shard'");
            // an open loop without a cap splits
            assertThat(config(h, "{process: poisson, rate: 2}", "")
                            .bind()
                            .target()
                            .path("request_shard")
                            .asText())
                    .isEqualTo("1/2");
        } finally {
            h.stop(0);
        }
    }
}
