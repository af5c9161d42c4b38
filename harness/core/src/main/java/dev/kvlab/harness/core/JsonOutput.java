package dev.kvlab.harness.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.api.ReportJson;
import java.util.Map;

/** Prints ordered maps as one JSON object; non-finite doubles become null. */
public final class JsonOutput {

    private JsonOutput() {}

    /** As {@link ReportJson#write}. */
    public static String write(Map<String, ?> fields) {
        return ReportJson.write(fields);
    }

    public static String writeCompact(Map<String, ?> fields) {
        try {
            return ReportJson.mapper().writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** As {@link ReportJson#mapper}. */
    public static ObjectMapper mapper() {
        return ReportJson.mapper();
    }
}
