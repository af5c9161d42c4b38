package dev.kvlab.harness.internal.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.Map;

/** Prints ordered maps as one JSON object; non-finite doubles become null. */
public final class JsonOutput {

    private static final ObjectMapper MAPPER = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private JsonOutput() {}

    public static String write(Map<String, ?> fields) {
        Map<String, Object> clean = new LinkedHashMap<>();
        fields.forEach((k, v) -> clean.put(k, v instanceof Double d && !Double.isFinite(d) ? null : v));
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(clean);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String writeCompact(Map<String, ?> fields) {
        try {
            return MAPPER.writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
