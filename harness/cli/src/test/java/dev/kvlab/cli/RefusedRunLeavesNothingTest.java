package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run refused as bad input after it started, before any cell finished (here: a cold cache that cannot be verified on
 * an engine that reports no cached tokens), exits 2 and leaves nothing in {@code --out}: no partial bundle, and no
 * claim that finished cells were kept.
 */
class RefusedRunLeavesNothingTest {

    @TempDir
    Path dir;

    @Test
    void aRunRefusedBeforeAnyCellFinishedLeavesNoPartialBundle() throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        http.createContext("/", x -> {
            try (x) {
                String p = x.getRequestURI().getPath();
                if (p.equals("/health")) {
                    x.sendResponseHeaders(200, -1);
                } else if (p.equals("/v1/completions")) { // one token, a usage without cached tokens
                    byte[] b = ("data: {\"choices\":[{\"text\":\" a\",\"finish_reason\":\"length\"}]}\n\n"
                                    + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
                            .getBytes(StandardCharsets.UTF_8);
                    x.getResponseHeaders().set("Content-Type", "text/event-stream");
                    x.sendResponseHeaders(200, b.length);
                    x.getResponseBody().write(b);
                } else {
                    x.sendResponseHeaders(404, -1);
                }
            }
        });
        http.start();
        try {
            Path cfg = Files.writeString(
                    dir.resolve("cold.yaml"), """
                    mode: live
                    target: {kind: openai, endpoints: [http://127.0.0.1:%d], model: m, reset: vllm}
                    cache_state: cold
                    workload:
                      generator: {kind: shared-prefix, groups: 1, prompts_per_group: 2, prefix_tokens: 16, suffix_tokens: 8, output_tokens: 1}
                      arrival: {process: constant, rate: 10}
                    """.formatted(http.getAddress().getPort()));
            Path out = Files.createDirectory(dir.resolve("runs"));
            StringWriter o = new StringWriter(), e = new StringWriter();
            var cl = Kvlab.commandLine();
            cl.setOut(new PrintWriter(o));
            cl.setErr(new PrintWriter(e));
            int code = cl.execute("run", cfg.toString(), "--out", out.toString());
            assertThat(code).as(e.toString()).isEqualTo(2);
            assertThat(e.toString())
                    .contains("cannot be verified")
                    .contains("nothing is kept")
                    .doesNotContain("finished cell");
            try (Stream<Path> s = Files.list(out)) {
                assertThat(s.toList()).as("what the refused run left in --out").isEmpty();
            }
        } finally {
            http.stop(0);
        }
    }
}
