package dev.kvlab.harness.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * A report (a record such as {@code KvPlan}, {@code BreakevenReport}, {@code SynthReport}, or ordered name-value
 * pairs) as one pretty-printed JSON object, in its order; a non-finite double among its fields becomes null.
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

    /**
     * {@code report} as one JSON object: its properties in their order (as Jackson writes the record), a top-level
     * non-finite double as null, exactly as {@link #write(Map)} writes the same name-value pairs.
     */
    public static String write(Record report) {
        ObjectNode tree = MAPPER.valueToTree(report);
        tree.properties().forEach(e -> {
            if (e.getValue().isDouble() && !Double.isFinite(e.getValue().doubleValue())) e.setValue(NullNode.instance);
        });
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code fields} as one JSON object. */
    public static String write(Map<String, ?> fields) {
        ObjectNode tree = MAPPER.createObjectNode();
        fields.forEach((k, v) ->
                tree.set(k, v instanceof Double d && !Double.isFinite(d) ? NullNode.instance : MAPPER.valueToTree(v)));
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
