package dev.kvlab.harness.openai.internal;

import dev.kvlab.harness.api.ReportJson;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The openai target's own request path, for a benchmark of what the harness adds to TTFT: a prompt of
 * {@code promptTokens} words is made into a streamed completion's body, sent through the target's HTTP client to a
 * loopback stand-in that answers at once, and its first token parsed. {@link #firstTokenNanos()} times one such
 * request from the start of building it to its first token, as a cell times its requests from their intended start.
 */
public final class ClientPathProbe implements AutoCloseable {

    private final ExecutorService threads =
            Executors.newCachedThreadPool(r -> Thread.ofPlatform().daemon().unstarted(r));
    private final EngineClient client = new EngineClient(threads);
    private final LoopbackSse stand;
    private final OpenAiConfig.Resolved target;
    private final PromptText prompts;
    private final Request request;

    public ClientPathProbe(int promptTokens, int outputTokens) throws IOException {
        stand = new LoopbackSse(false);
        target = new OpenAiConfig.Resolved(
                List.of(stand.base()),
                "default",
                OpenAiConfig.Api.COMPLETIONS,
                OpenAiConfig.Routing.ROUND_ROBIN,
                ReportJson.mapper().createObjectNode().put("cache_prompt", true),
                Duration.ofSeconds(10),
                OpenAiConfig.Reset.AUTO,
                null,
                true,
                null);
        List<String> words = new ArrayList<>();
        for (char a = 'a'; a <= 'z'; a++) for (char b = 'a'; b <= 'z'; b++) words.add(" " + a + b);
        prompts = new PromptText(words, 1);
        int blockTokens = 16;
        long[] keys = new long[(promptTokens + blockTokens - 1) / blockTokens];
        for (int i = 0; i < keys.length; i++) keys[i] = 0x9E3779B97F4A7C15L * (i + 1);
        request = new Request(0, 0, "probe", promptTokens, outputTokens, blockTokens, keys, Namespace.of("probe"));
    }

    /** One request through the harness's path to the stand-in: nanoseconds from building its body to its first token. */
    public long firstTokenNanos() {
        return ClientWarmup.firstToken(client, stand, target, prompts, request);
    }

    @Override
    public void close() {
        client.close();
        stand.close();
        threads.shutdownNow();
    }
}
