package dev.kvlab.harness.openai.internal;

import dev.kvlab.workloads.api.Request;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * Runs the harness's own request path — prompt text, request body, HTTP, stream parsing — {@code rounds} times
 * against a {@link LoopbackSse} stand-in before a cell measures, the workload's own first requests in turn: the JVM
 * compiles that path before the engine is timed through it (a cold one added milliseconds to each of a short cell's
 * TTFTs), and the engine sees none of it. Its figure: the stand-in's TTFT, from the start of building a request to
 * its first token parsed — what the harness adds, a loopback round trip included.
 */
final class ClientWarmup {

    private ClientWarmup() {}

    /** The stand-in's TTFT percentiles over the later half of the rounds (µs). */
    record Figures(double p50Micros, double p99Micros, int rounds) {}

    static Figures run(
            EngineClient client, OpenAiConfig.Resolved target, PromptText prompts, List<Request> requests, int rounds) {
        if (requests.isEmpty() || rounds <= 0) return new Figures(Double.NaN, Double.NaN, 0);
        Histogram h = new Histogram(3);
        try (LoopbackSse stand = new LoopbackSse(target.api() == OpenAiConfig.Api.CHAT)) {
            for (int i = 0; i < rounds; i++) {
                long ttft = firstToken(client, stand, target, prompts, requests.get(i % requests.size()));
                if (i >= rounds / 2) h.recordValue(Math.max(0, ttft / 1000));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Figures(h.getValueAtPercentile(50), h.getValueAtPercentile(99), rounds);
    }

    /** One request through the harness's path to {@code stand}: nanoseconds from building its body to its first token. */
    static long firstToken(
            EngineClient client, LoopbackSse stand, OpenAiConfig.Resolved target, PromptText prompts, Request r) {
        long t0 = System.nanoTime();
        EngineClient.Completed c;
        try {
            c = client.complete(
                    stand.base(),
                    target.path(),
                    EngineServer.body(target, r.outputTokens(), prompts.of(r)),
                    target.timeout(),
                    target.api() == OpenAiConfig.Api.CHAT);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the harness's loopback self-test did not finish", e);
        }
        if (c.outcome().error() != null)
            throw new IllegalStateException(
                    "the harness's loopback self-test failed: " + c.outcome().error());
        return c.firstTokenNanos() - t0;
    }
}
