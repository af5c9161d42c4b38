package dev.kvlab.harness.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * A {@link SummaryRow} as JSON: one object, its columns in order, each value as Jackson writes it alone; read back,
 * integral numbers are {@code Long}, other numbers {@code Double}, text {@code String}, booleans {@code Boolean}. A
 * nested value or a null is refused (a row is flat and holds no nulls when it is written this way).
 */
final class SummaryRowJson {

    private SummaryRowJson() {}

    static final class Writer extends JsonSerializer<SummaryRow> {
        @Override
        public void serialize(SummaryRow row, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeStartObject(row);
            for (String name : row.names()) provider.defaultSerializeField(name, row.get(name), gen);
            gen.writeEndObject();
        }
    }

    static final class Reader extends JsonDeserializer<SummaryRow> {
        @Override
        public SummaryRow deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            JsonNode o = p.readValueAsTree();
            if (o == null || !o.isObject())
                return ctx.reportInputMismatch(SummaryRow.class, "a summary row is an object");
            SummaryRow.Builder b = SummaryRow.builder();
            for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = e.getValue();
                Object value = v.isIntegralNumber()
                        ? (Object) v.longValue()
                        : v.isNumber()
                                ? (Object) v.doubleValue()
                                : v.isTextual() ? v.textValue() : v.isBoolean() ? v.booleanValue() : null;
                if (value == null)
                    return ctx.reportInputMismatch(
                            SummaryRow.class,
                            "summary row column '%s': %s is not a number, text or boolean",
                            e.getKey(),
                            v.getNodeType());
                b.put(e.getKey(), value);
            }
            return b.build();
        }
    }
}
