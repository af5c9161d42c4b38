package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.transport.api.ByteSize;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code kvlab plan} reports: the {@code model} it sizes, its KV {@code sizes}, and with a GPU kind what fits
 * its HBM ({@code hbm}, else null). Its JSON object ({@code ReportJson.write(Record)}) holds the three parts' fields
 * flat, in this order; {@link #text} is the same fields as a table.
 */
public record KvPlan(
        @JsonUnwrapped PlanModel model,
        @JsonUnwrapped KvSizes sizes,
        @JsonUnwrapped HbmFit hbm) {

    /** Reads the plan's JSON fields (their names, order and number types) for {@link #text}. */
    private static final ObjectMapper FIELDS = new ObjectMapper();

    /**
     * The plan as {@code kvlab plan}'s table: one line per non-null field of its JSON object, in order; byte counts
     * (a 64-bit field named {@code *bytes*}) also in binary units, other 64-bit counts with thousands separators,
     * fractions to one decimal.
     */
    public String text() {
        StringBuilder w = new StringBuilder();
        for (Map.Entry<String, JsonNode> e : FIELDS.<JsonNode>valueToTree(this).properties()) {
            JsonNode v = e.getValue();
            if (v.isNull()) continue;
            String s;
            if (v.isDouble()) s = String.format(Locale.ROOT, "%,.1f", v.doubleValue());
            else if (v.isLong() && e.getKey().contains("bytes"))
                s = String.format(Locale.ROOT, "%,d  (%s)", v.longValue(), ByteSize.format(v.longValue()));
            else if (v.isLong()) s = String.format(Locale.ROOT, "%,d", v.longValue());
            else s = v.asText();
            w.append(String.format(Locale.ROOT, "%-30s %s%n", e.getKey(), s));
        }
        return w.toString();
    }
}
