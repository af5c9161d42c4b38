package dev.kvlab.harness.internal.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.transport.api.DurationSpec;

/** When a cell's fault was injected, from its config ({@code fault.at} or {@code fault_at}), in seconds; null when unknown. */
final class FaultTime {

    private FaultTime() {}

    static Double of(JsonNode config) {
        JsonNode f = config.path("fault");
        JsonNode at = f.isObject() ? f.path("at") : config.path("fault_at");
        if (at.isMissingNode() || at.isNull()) return null;
        if (at.isNumber()) return at.asDouble();
        try {
            return DurationSpec.parse(at.asText()).toNanos() / 1e9;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
