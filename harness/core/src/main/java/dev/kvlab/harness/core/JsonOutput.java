package dev.kvlab.harness.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.api.ReportJson;

/** The JSON mapper of the harness's outputs, as {@link ReportJson#mapper} (shared: never reconfigured). */
public final class JsonOutput {

    private JsonOutput() {}

    /** As {@link ReportJson#mapper}. */
    public static ObjectMapper mapper() {
        return ReportJson.mapper();
    }
}
