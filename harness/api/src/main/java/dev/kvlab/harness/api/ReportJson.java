package dev.kvlab.harness.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A report's ordered name-value pairs ({@code KvPlan}, {@code BreakevenReport}, {@code SynthReport}) as one
 * pretty-printed JSON object, in their order; a non-finite double becomes null.
 */
public final class ReportJson {

    private static final ObjectMapper MAPPER = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private ReportJson() {}

    /**
     * The one JSON mapper of the harness's reports and its targets (failing on no empty bean): shared, so never
     * reconfigured ({@link ObjectMapper#copy} first).
     */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** {@code fields} as one JSON object. */
    public static String write(Map<String, ?> fields) {
        Map<String, Object> clean = new LinkedHashMap<>();
        fields.forEach((k, v) -> clean.put(k, v instanceof Double d && !Double.isFinite(d) ? null : v));
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(clean);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
