package dev.kvlab.harness.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.workloads.api.BlockKeys;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The openai target's config, its refusals, and the parts of it that need no engine: prompt text, SSE chunks, Prometheus text. */
class OpenAiTargetTest {

    static String config(int port) {
        return """
                mode: live
                target: {kind: openai, endpoints: [http://127.0.0.1:%d], model: default}
                cache_state: cold
                workload:
                  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 256, suffix_tokens: 16, output_tokens: 4}
                  arrival: {process: constant, rate: 1}
                slo: {ttft_ms: 1000}
                """.formatted(port);
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void anEndpointWithNothingListeningIsRefusedUpFrontNamingTheUrl() throws Exception {
        int port = freePort();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> ConfigTree.parse(config(port), "e.yaml", null).bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("target.endpoints")
                .hasMessageContaining("http://127.0.0.1:" + port)
                .hasMessageContaining("refused");
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(10);
    }

    @Test
    void keysTheTargetDoesNotReadAreRefusedNamingTheKey() throws Exception {
        int port = freePort();
        // set to their defaults too: a key the target does not read is refused whatever its value, naming where the
        // user set it
        for (String set : List.of(
                "tiers=local-only",
                "store.nodes=3",
                "model=qwen2.5-0.5b",
                "cluster.instances=2",
                "fault=corrupt",
                "hardware=h100",
                "model=llama-3-8b",
                "tiers=combined",
                "fault=none",
                "cluster.instances=4",
                "local.dram_capacity=0")) {
            ConfigTree t = ConfigTree.parse(config(port), "e.yaml", null).set(set);
            String key = set.substring(0, set.indexOf('='));
            String top = key.contains(".") ? key.substring(0, key.indexOf('.')) : key;
            assertThatThrownBy(t::bind)
                    .as(set)
                    .isInstanceOf(BadInputException.class)
                    .hasMessageStartingWith("--set " + set + ": key '" + top)
                    .hasMessageContaining("not used by the openai target")
                    .hasMessageNotContaining("defaults.yaml");
        }
        // in the user's file: named by its file and line
        assertThatThrownBy(() -> ConfigTree.parse(config(port) + "cluster:\n  instances: 4\n", "e.yaml", null)
                        .bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("e.yaml:8: key 'cluster'");
    }

    @Test
    void badTargetBlocksAreRefused() throws Exception {
        int port = freePort();
        String[][] cases = {
            {"target.api=rest", "target.api"},
            {"target.routing=random", "target.routing"},
            {"target.endpoints=[ftp://x:1]", "target.endpoints"},
            {"target.timeout=0s", "target.timeout"},
            {"target.bogus=1", "target.bogus"},
            {"mode=sim", "mode"},
            {"target.kind=grpc", "target.kind"},
            {"target.extra_body=[1]", "target.extra_body"},
            {"target.reset=command", "target.reset_command"}
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> ConfigTree.parse(config(port), "e.yaml", null)
                            .set(c[0])
                            .bind())
                    .as(c[0])
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining(c[1]);
        }
    }

    @Test
    void theEmulatedTargetRefusesOpenAiKeys() {
        assertThatThrownBy(() -> ConfigTree.parse("model: qwen2.5-0.5b\n", "e.yaml", null)
                        .set("target.endpoints=[http://127.0.0.1:1]")
                        .bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("target.endpoints");
    }

    private static Request request(long id, int tokens, int bt, long... hashIds) {
        Namespace ns = new Namespace("m", "engine", "engine", "none", "default");
        long[] keys = new long[hashIds.length];
        long parent = 0;
        for (int i = 0; i < hashIds.length; i++) keys[i] = parent = BlockKeys.chain(parent, hashIds[i]);
        return new Request(id, 0, "s" + id, tokens, 4, bt, keys, ns);
    }

    @Test
    void promptTextHasOneWordPerTokenAndSharesPrefixesWordForWord() {
        List<String> words = new ArrayList<>(PromptText.candidates().subList(0, 500));
        PromptText p = new PromptText(words, 1);
        Request a = request(1, 40, 16, 7, 8, 9), b = request(2, 40, 16, 7, 8, 10), c = request(3, 40, 16, 6, 8, 9);
        String ta = p.of(a), tb = p.of(b), tc = p.of(c);
        assertThat(ta.split(" ", -1)).hasSize(40); // a leading empty piece + 39 words: 40 tokens with the BOS
        assertThat(ta).isEqualTo(p.of(a));
        String[] wa = ta.substring(1).split(" "),
                wb = tb.substring(1).split(" "),
                wc = tc.substring(1).split(" ");
        for (int i = 0; i < 32; i++) assertThat(wb[i]).isEqualTo(wa[i]); // two shared blocks
        assertThat(String.join(" ", List.of(wb).subList(32, 39)))
                .isNotEqualTo(String.join(" ", List.of(wa).subList(32, 39)));
        assertThat(String.join(" ", List.of(wc).subList(0, 16)))
                .isNotEqualTo(String.join(" ", List.of(wa).subList(0, 16)));
        assertThat(p.probe(1, 64)).doesNotContain(ta.substring(0, 40));
    }

    @Test
    void streamedChunksAreTimedAndTheUsageRead() {
        long[] clock = {0};
        StreamedCompletion.Outcome[] out = new StreamedCompletion.Outcome[1];
        long[] first = {-1};
        StreamedCompletion s = new StreamedCompletion(() -> clock[0], false, new StreamedCompletion.Events() {
            @Override
            public void firstText(long nanos) {
                first[0] = nanos;
            }

            @Override
            public void ended(StreamedCompletion.Outcome o) {
                out[0] = o;
            }
        });
        s.status(200);
        clock[0] = 5;
        s.onNext("data: {\"choices\":[{\"text\":\"\",\"index\":0,\"finish_reason\":null}]}"); // a token that prints
        // nothing
        clock[0] = 10;
        s.onNext("data: {\"choices\":[{\"text\":\" abc\",\"index\":0}]}");
        s.onNext("");
        clock[0] = 20;
        s.onNext("data: {\"choices\":[{\"text\":\" abd\",\"finish_reason\":null}]}");
        s.onNext("data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}]}");
        // the OpenAI field and llama.cpp's timings differ here: the OpenAI field is read first
        s.onNext(
                "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":272,\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":240}},"
                        + "\"timings\":{\"prompt_n\":16,\"cache_n\":256,\"prompt_ms\":12.5}}");
        s.onNext("data: [DONE]");
        s.onComplete();
        assertThat(first[0]).isEqualTo(5);
        assertThat(out[0].textChunks()).containsExactly(5, 10, 20);
        assertThat(out[0].completionTokens()).isEqualTo(3);
        assertThat(out[0].promptTokens()).isEqualTo(272);
        assertThat(out[0].cachedTokens()).isEqualTo(240);
        assertThat(out[0].enginePromptMs()).isEqualTo(12.5);
        assertThat(out[0].finishReason()).isEqualTo("length");
        assertThat(out[0].error()).isNull();
    }

    @Test
    void anErrorStatusIsAFailureWithTheBody() {
        StreamedCompletion.Outcome[] out = new StreamedCompletion.Outcome[1];
        StreamedCompletion s = new StreamedCompletion(() -> 0, false, new StreamedCompletion.Events() {
            @Override
            public void firstText(long nanos) {}

            @Override
            public void ended(StreamedCompletion.Outcome o) {
                out[0] = o;
            }
        });
        s.status(400);
        s.onNext("{\"error\":{\"message\":\"the request exceeds the available context size\"}}");
        s.onComplete();
        assertThat(out[0].error()).startsWith("http 400").contains("context size");
    }

    /** Where only llama.cpp's timings say it, {@code cache_n} is the cached count; a negative count is kept (it is impossible, and said so). */
    @Test
    void timingsCacheNIsTheFallbackAndANegativeCountIsKept() {
        StreamedCompletion.Outcome[] out = new StreamedCompletion.Outcome[1];
        StreamedCompletion.Events ev = new StreamedCompletion.Events() {
            @Override
            public void firstText(long nanos) {}

            @Override
            public void ended(StreamedCompletion.Outcome o) {
                out[0] = o;
            }
        };
        StreamedCompletion s = new StreamedCompletion(() -> 0, false, ev);
        s.status(200);
        s.onNext(
                "data: {\"choices\":[{\"text\":\" a\"}],\"timings\":{\"prompt_n\":16,\"cache_n\":240,\"prompt_ms\":1.0}}");
        s.onComplete();
        assertThat(out[0].cachedTokens()).isEqualTo(240);
        assertThat(out[0].promptTokens()).isEqualTo(256);
        s = new StreamedCompletion(() -> 0, false, ev);
        s.status(200);
        s.onNext(
                "data: {\"choices\":[{\"text\":\" a\"}],\"usage\":{\"prompt_tokens\":6,\"prompt_tokens_details\":{\"cached_tokens\":-5}}}");
        s.onComplete();
        assertThat(out[0].cachedTokens()).isEqualTo(-5);
        s = new StreamedCompletion(() -> 0, false, ev);
        s.status(200);
        s.onNext("data: {\"choices\":[{\"text\":\" a\"}],\"usage\":{\"prompt_tokens\":6}}");
        s.onComplete();
        assertThat(out[0].cachedTokens()).isEqualTo(StreamedCompletion.NOT_REPORTED);
    }
}
