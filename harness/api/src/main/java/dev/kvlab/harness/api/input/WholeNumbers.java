package dev.kvlab.harness.api.input;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.deser.std.NumberDeserializers;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;

/**
 * The config binder's {@code int}/{@code long} fields: a whole number within the type's range, or an error naming the
 * value — never a wrapped, saturated or truncated one. Jackson already refuses an integer or a text out of range;
 * what it would do silently is truncate a fractional number ({@code instances: 2.5} as 2, {@code 1e30} saturating),
 * which this refuses. A whole number written as a float ({@code 2.0}, {@code 3e3}) still binds.
 */
final class WholeNumbers {

    private WholeNumbers() {}

    @SuppressWarnings({"unchecked", "rawtypes"})
    static SimpleModule module() {
        SimpleModule m = new SimpleModule("kvlab-whole-numbers");
        m.addDeserializer(int.class, (JsonDeserializer) new Checked(
                new NumberDeserializers.IntegerDeserializer(Integer.TYPE, 0),
                Integer.MIN_VALUE,
                Integer.MAX_VALUE,
                "int"));
        m.addDeserializer(Integer.class, (JsonDeserializer) new Checked(
                new NumberDeserializers.IntegerDeserializer(Integer.class, null),
                Integer.MIN_VALUE,
                Integer.MAX_VALUE,
                "int"));
        // a double cannot hold every long: bound by the doubles inside the range (2^63 itself is out)
        long big = Long.MAX_VALUE - 1023;
        m.addDeserializer(long.class, (JsonDeserializer)
                new Checked(new NumberDeserializers.LongDeserializer(Long.TYPE, 0L), -big, big, "long"));
        m.addDeserializer(Long.class, (JsonDeserializer)
                new Checked(new NumberDeserializers.LongDeserializer(Long.class, null), -big, big, "long"));
        return m;
    }

    /** Jackson's own deserializer (nulls, absent values, text and integer tokens with their range checks), with float tokens checked first. */
    static final class Checked extends DelegatingDeserializer {
        private final long min;
        private final long max;
        private final String type;

        Checked(JsonDeserializer<?> delegate, long min, long max, String type) {
            super(delegate);
            this.min = min;
            this.max = max;
            this.type = type;
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> newDelegatee) {
            return new Checked(newDelegatee, min, max, type);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.hasToken(JsonToken.VALUE_NUMBER_FLOAT)) {
                double d = p.getDoubleValue();
                if (!Double.isFinite(d) || d != Math.rint(d))
                    throw JsonMappingException.from(p, "expected a whole number, got " + p.getText());
                if (d < min || d > max)
                    throw JsonMappingException.from(
                            p,
                            "Numeric value (" + p.getText() + ") out of range of " + type + " (" + min + " - " + max
                                    + ")");
            }
            return super.deserialize(p, ctxt);
        }
    }
}
