package dev.kvlab.harness.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.ReportJson;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.twin.EndpointCalibrationPlan;
import dev.kvlab.harness.openai.internal.EndpointCalibration;
import dev.kvlab.harness.openai.internal.EngineClient;
import dev.kvlab.harness.openai.internal.OpenAiTarget;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Entry point: the twin of an OpenAI-compatible engine, fitted from its own answers (cold prompts of two lengths, a
 * suffix behind a cached prefix, decode gaps; the engine's reported prompt time where it gives one), as
 * {@code kvlab calibrate --endpoint} and an {@code openai} cell's capacity search use it.
 */
public final class EndpointTwins {

    private EndpointTwins() {}

    /** The fitted twin as JSON (the {@code twin} a bundle and {@code --twin} read) and the fit's checks as text. */
    public record Fitted(JsonNode twin, String text) {}

    /**
     * Calibrates the engine at {@code base} serving {@code model} (null: the one it serves); {@code gguf} (nullable)
     * gives the model's shape when the engine does not say it; {@code plan} what to time (its constructor names what is
     * out of range).
     *
     * @throws BadInputException when the endpoint is not a healthy OpenAI-compatible engine
     */
    public static Fitted calibrate(URI base, String model, Path gguf, EndpointCalibrationPlan plan) {
        ExecutorService pool = Executors.newCachedThreadPool(
                r -> Thread.ofPlatform().daemon().name("kvlab-calibrate").unstarted(r));
        try (EngineClient c = new EngineClient(pool)) {
            String why = OpenAiTarget.health(c, base);
            if (why != null) throw new BadInputException("--endpoint " + base + " " + why);
            EndpointCalibration cal = EndpointCalibration.measure(c, base, model, gguf, plan, 1);
            return new Fitted(ReportJson.mapper().valueToTree(cal.twin()), cal.text());
        } finally {
            pool.shutdownNow();
        }
    }
}
