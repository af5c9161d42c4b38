package dev.kvlab.harness.gguf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.SynthVocabulary;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.testsupport.LlamaServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * llama.cpp's {@code llama-server} (the binary {@code scripts/llama-server.sh} caches) loads a tiny synthesized
 * model, tokenizes every single-token word to its one token (alone and in a run, and a 1,056-token prompt to 1,056
 * tokens plus BOS), detokenizes back, prints valid UTF-8 for every byte token, and completes prompts (sampled ones
 * too) with timings. Skipped with the reason when the binary
 * has not been built; failed instead when {@code KVLAB_CI=1}.
 */
class LlamaServerLoadsSynthModelTest {

    @TempDir
    Path dir;

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void loadsTokenizesEachWordAsOneTokenAndCompletes() throws Exception {
        Path server = cachedServer();
        SynthSpec spec = new SynthSpec(2, 64, 4, 2, 96, 32000, WeightType.F16, 11, 2048);
        Path model = Gguf.synth(spec, dir.resolve("tiny.gguf")).path();
        SynthVocabulary v = spec.vocabulary();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = dir.resolve("llama-server.log");
        Process p = new ProcessBuilder(
                        server.toString(),
                        "-m",
                        model.toString(),
                        "--host",
                        "127.0.0.1",
                        "--port",
                        String.valueOf(port),
                        "-np",
                        "1",
                        "-c",
                        "2048",
                        "-t",
                        "1",
                        "--cache-ram",
                        "0")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        String base = "http://127.0.0.1:" + port;
        try {
            awaitHealthy(p, base, log);

            // every word alone, all words in one run: one token each, in order
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < v.wordCount(); i++) all.add(v.tokenId(i));
            String text = v.text(0, v.wordCount());
            assertThat(tokenize(base, text, false))
                    .as("all %d words in one text", v.wordCount())
                    .isEqualTo(all);
            for (int i : new int[] {0, 25, 26, 701, 702, 9000, v.wordCount() - 1})
                assertThat(tokenize(base, " " + v.word(i), false)).containsExactly(v.tokenId(i));

            // a 1,024-token prefix and a 32-token suffix: 1,056 tokens, BOS in front
            String prompt = v.text(100, 1024) + v.text(5000, 32);
            List<Integer> withBos = tokenize(base, prompt, true);
            assertThat(withBos).hasSize(1 + 1056);
            assertThat(withBos.getFirst()).isEqualTo(SynthVocabulary.BOS_ID);

            JsonNode detok = post(base + "/detokenize", Map.of("tokens", all.subList(0, 2000)));
            assertThat(detok.get("content").asText()).isEqualTo(v.text(0, 2000));

            JsonNode done = post(
                    base + "/completion",
                    Map.of("prompt", v.text(0, 40), "n_predict", 8, "ignore_eos", true, "cache_prompt", false));
            assertThat(done.get("tokens_predicted").asInt()).isEqualTo(8);
            assertThat(done.get("tokens_evaluated").asInt()).isEqualTo(41);
            assertThat(done.path("timings").path("prompt_n").asInt()).isEqualTo(41);
            assertThat(done.path("timings").path("predicted_n").asInt()).isEqualTo(8);

            // every token alone prints valid UTF-8: an ASCII byte prints itself, a byte from 0x80 up prints nothing
            for (int b = 0; b < 256; b++) {
                String piece = post(base + "/detokenize", Map.of("tokens", List.of(SynthVocabulary.FIRST_BYTE_ID + b)))
                        .get("content")
                        .asText();
                if (b < 0x80) assertThat(piece).as("byte %02X", b).isEqualTo(String.valueOf((char) b));
                else assertThat(piece).as("byte %02X", b).isEmpty();
            }
            // so sampling from random weights never ends a request in a server error (it did, now and then, on invalid
            // UTF-8)
            for (int seed = 0; seed < 12; seed++) {
                JsonNode sampled = post(
                        base + "/completion",
                        Map.of(
                                "prompt",
                                v.text(seed * 7, 16),
                                "n_predict",
                                48,
                                "ignore_eos",
                                true,
                                "cache_prompt",
                                false,
                                "seed",
                                seed,
                                "temperature",
                                1.5,
                                "top_k",
                                0,
                                "top_p",
                                1.0));
                assertThat(sampled.get("tokens_predicted").asInt()).isEqualTo(48);
            }
        } finally {
            p.destroy();
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS))
                p.destroyForcibly().waitFor();
        }
    }

    /** The binary {@code scripts/llama-server.sh} builds, at the path it caches it; skips (or fails on CI) when absent. */
    static Path cachedServer() throws IOException {
        return LlamaServer.binary();
    }

    private void awaitHealthy(Process p, String base, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) throw new AssertionError("llama-server exited " + p.exitValue() + ":\n" + tail(log));
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(base + "/health"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("llama-server not healthy within 120 s:\n" + tail(log));
    }

    private List<Integer> tokenize(String base, String content, boolean addSpecial) throws Exception {
        JsonNode r = post(base + "/tokenize", Map.of("content", content, "add_special", addSpecial));
        List<Integer> ids = new ArrayList<>();
        r.get("tokens").forEach(t -> ids.add(t.asInt()));
        return ids;
    }

    private JsonNode post(String url, Object body) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(60))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
