package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kvlab.harness.api.SummaryRow;
import java.util.Set;

/**
 * Summary values between their three forms (Java objects, JSON, CSV text) so that every path gives the same
 * text: non-finite doubles are NaN everywhere (JSON null), integers are longs, doubles stay doubles.
 */
public final class Rows {

    private Rows() {}

    /** Non-finite doubles → NaN, ints → longs, everything else as is. */
    public static Object normalize(Object v) {
        if (v instanceof Double d) return Double.isFinite(d) ? d : Double.NaN;
        if (v instanceof Float f) return Float.isFinite(f) ? (double) f : Double.NaN;
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
        return v;
    }

    /** {@code row} with every value normalized ({@link #normalize(Object)}). */
    public static SummaryRow normalize(SummaryRow row) {
        SummaryRow.Builder out = SummaryRow.builder();
        row.forEach((k, v) -> out.put(k, normalize(v)));
        return out.build();
    }

    /** JSON value → Java: null → NaN, integral → long, floating → double, text, boolean. */
    public static Object fromJson(JsonNode n) {
        if (n == null || n.isNull()) return Double.NaN;
        if (n.isIntegralNumber()) return n.asLong();
        if (n.isNumber()) return n.asDouble();
        if (n.isBoolean()) return n.asBoolean();
        if (n.isValueNode()) return n.asText();
        return n.toString();
    }

    /** A JSON object's fields as a row ({@link #fromJson(JsonNode)}), in order, but those in {@code skip}. */
    public static SummaryRow fromJson(JsonNode obj, Set<String> skip) {
        SummaryRow.Builder out = SummaryRow.builder();
        obj.properties().forEach(e -> {
            if (!skip.contains(e.getKey())) out.put(e.getKey(), fromJson(e.getValue()));
        });
        return out.build();
    }

    /** Java → JSON: NaN (and other non-finite) → null. */
    public static JsonNode toJson(Object v) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        v = normalize(v);
        if (v == null) return f.nullNode();
        if (v instanceof Double d) return Double.isNaN(d) ? f.nullNode() : f.numberNode(d);
        if (v instanceof Long l) return f.numberNode(l);
        if (v instanceof Boolean b) return f.booleanNode(b);
        if (v instanceof Number n) return f.numberNode(n.doubleValue());
        return f.textNode(v.toString());
    }

    /** Whether {@code v} is a number (a metric column, when every row has one). */
    public static boolean numeric(Object v) {
        return v instanceof Number;
    }
}
