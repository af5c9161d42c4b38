package dev.kvlab.workloads.internal.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.WorkloadFormatException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Arrays;

/**
 * Parses one Mooncake trace line (a JSON object) into a reusable {@link Line}. Strict: see
 * {@link dev.kvlab.workloads.api.TraceFormat} for the field policy. Every problem is a
 * {@link WorkloadFormatException} naming {@code FILE:LINE}.
 */
final class TraceLineParser {

    static final String TIMESTAMP = "timestamp";
    static final String INPUT_LENGTH = "input_length";
    static final String OUTPUT_LENGTH = "output_length";
    static final String HASH_IDS = "hash_ids";
    static final String SESSION = "session";
    static final String NAMESPACE = "namespace";
    static final String BLOCK_TOKENS = "block_tokens";

    private static final int F_TIMESTAMP = 1,
            F_INPUT = 2,
            F_OUTPUT = 4,
            F_HASH_IDS = 8,
            F_SESSION = 16,
            F_NAMESPACE = 32,
            F_BLOCK_TOKENS = 64;
    private static final int MAX_STRING = 1024;
    /** Largest timestamp: Long.MAX_VALUE nanoseconds, in milliseconds. */
    private static final BigDecimal MAX_MS = BigDecimal.valueOf(Long.MAX_VALUE).movePointLeft(6);

    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(16)
                    .maxNumberLength(64)
                    .maxStringLength(1 << 16)
                    .maxNameLength(1024)
                    .build())
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .build();

    /** The fields of one line; reused from line to line. */
    static final class Line {
        long timestampNanos;
        int inputLength;
        int outputLength;
        long[] hashIds = new long[64];
        int hashIdCount;
        String session;
        Namespace namespace;
        int blockTokens; // 0 when absent

        long[] hashIds() {
            return Arrays.copyOf(hashIds, hashIdCount);
        }
    }

    private final String file;
    private final boolean ignoreUnknown;
    private long lineNo;

    TraceLineParser(String file, boolean ignoreUnknown) {
        this.file = file;
        this.ignoreUnknown = ignoreUnknown;
    }

    /** Parses {@code bytes[0..len)} of line {@code lineNo} into {@code out}. */
    void parse(byte[] bytes, int len, long lineNo, Line out) {
        this.lineNo = lineNo;
        if (isBlank(bytes, len)) throw error("empty line (every line must be one JSON object)");
        out.hashIdCount = 0;
        out.session = null;
        out.namespace = null;
        out.blockTokens = 0;
        int seen = 0;
        try (JsonParser p = JSON.createParser(bytes, 0, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw error("expected a JSON object, got " + describe(p));
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                int bit = bit(name);
                if (bit != 0 && (seen & bit) != 0) throw error("duplicate field '" + name + "'");
                seen |= bit;
                p.nextToken();
                switch (name) {
                    case TIMESTAMP -> out.timestampNanos = timestamp(p);
                    case INPUT_LENGTH -> out.inputLength = positiveInt(p, INPUT_LENGTH);
                    case OUTPUT_LENGTH -> out.outputLength = intAtLeast(p, OUTPUT_LENGTH, 0);
                    case HASH_IDS -> hashIds(p, out);
                    case SESSION -> out.session = string(p, SESSION);
                    case NAMESPACE -> out.namespace = namespace(p);
                    case BLOCK_TOKENS -> out.blockTokens = positiveInt(p, BLOCK_TOKENS);
                    default -> {
                        if (!ignoreUnknown) {
                            throw error(
                                    "unknown field '" + clip(name) + "' (a Mooncake line has timestamp, input_length, "
                                            + "output_length, hash_ids; kvlab adds session, namespace, block_tokens; to skip other fields use "
                                            + "analyze --ignore-unknown-fields or the trace workload's ignore_unknown_fields: true)");
                        }
                        p.skipChildren();
                    }
                }
            }
            if (t != JsonToken.END_OBJECT) throw error("malformed JSON object");
            JsonToken after = p.nextToken();
            if (after != null) throw error("unexpected content after the JSON object");
        } catch (JsonProcessingException e) {
            throw error("malformed JSON: " + jacksonMessage(e));
        } catch (IOException e) {
            throw error("malformed JSON: " + e.getMessage());
        }
        if ((seen & F_TIMESTAMP) == 0) throw error("missing field '" + TIMESTAMP + "'");
        if ((seen & F_INPUT) == 0) throw error("missing field '" + INPUT_LENGTH + "'");
        if ((seen & F_OUTPUT) == 0) throw error("missing field '" + OUTPUT_LENGTH + "'");
        if ((seen & F_HASH_IDS) == 0) throw error("missing field '" + HASH_IDS + "'");
    }

    /** Sets the line that {@link #error(String)} names. */
    void at(long lineNo) {
        this.lineNo = lineNo;
    }

    WorkloadFormatException error(String reason) {
        return new WorkloadFormatException(file, lineNo, reason);
    }

    private static int bit(String name) {
        return switch (name) {
            case TIMESTAMP -> F_TIMESTAMP;
            case INPUT_LENGTH -> F_INPUT;
            case OUTPUT_LENGTH -> F_OUTPUT;
            case HASH_IDS -> F_HASH_IDS;
            case SESSION -> F_SESSION;
            case NAMESPACE -> F_NAMESPACE;
            case BLOCK_TOKENS -> F_BLOCK_TOKENS;
            default -> 0;
        };
    }

    private long timestamp(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            long ms = p.getLongValue();
            if (ms < 0) throw error("field 'timestamp' must be >= 0 ms, got " + ms);
            if (ms > Long.MAX_VALUE / 1_000_000L) throw error("field 'timestamp' is too large: " + ms + " ms");
            return ms * 1_000_000L;
        }
        if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
            throw error("field 'timestamp' must be a number (milliseconds), got " + describe(p));
        }
        String text = p.getText();
        BigDecimal ms;
        try {
            ms = new BigDecimal(text);
        } catch (NumberFormatException | ArithmeticException e) {
            throw error("field 'timestamp' is not a usable number: " + clip(text));
        }
        if (ms.signum() < 0) throw error("field 'timestamp' must be >= 0 ms, got " + clip(text));
        if (ms.compareTo(MAX_MS) > 0) throw error("field 'timestamp' is too large: " + clip(text) + " ms");
        try {
            return ms.movePointRight(6).setScale(0, RoundingMode.HALF_UP).longValueExact();
        } catch (ArithmeticException e) {
            throw error("field 'timestamp' is not a usable number: " + clip(text));
        }
    }

    private int positiveInt(JsonParser p, String field) throws IOException {
        return intAtLeast(p, field, 1);
    }

    private int intAtLeast(JsonParser p, String field, int min) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw error("field '" + field + "' must be an integer, got " + describe(p));
        }
        if (p.getNumberType() != JsonParser.NumberType.INT) {
            throw error("field '" + field + "' is out of range (max " + Integer.MAX_VALUE + "): " + clip(p.getText()));
        }
        int v = p.getIntValue();
        if (v < min) throw error("field '" + field + "' must be >= " + min + ", got " + v);
        return v;
    }

    private void hashIds(JsonParser p, Line out) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY)
            throw error("field 'hash_ids' must be an array of integers, got " + describe(p));
        JsonToken t;
        int i = 0;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_NUMBER_INT) {
                throw error("hash_ids[" + i + "] must be an integer, got " + describe(p));
            }
            long id;
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                BigInteger big = p.getBigIntegerValue();
                if (big.signum() < 0 || big.compareTo(TWO_64) >= 0) {
                    throw error("hash_ids[" + i + "] is outside the 64-bit range: " + clip(p.getText()));
                }
                id = big.longValue(); // unsigned 64-bit ids wrap to their two's-complement value
            } else {
                id = p.getLongValue();
            }
            if (out.hashIdCount == out.hashIds.length) out.hashIds = Arrays.copyOf(out.hashIds, out.hashIds.length * 2);
            out.hashIds[out.hashIdCount++] = id;
            i++;
        }
    }

    private String string(JsonParser p, String field) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING)
            throw error("field '" + field + "' must be a string, got " + describe(p));
        String s = p.getText();
        if (s.length() > MAX_STRING) throw error("field '" + field + "' is longer than " + MAX_STRING + " characters");
        return s;
    }

    private Namespace namespace(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT)
            throw error("field 'namespace' must be an object, got " + describe(p));
        String model = null, dtype = null, tp = null, lora = null, tenant = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            String v = string(p, "namespace." + clip(name));
            String prev = switch (name) {
                case "model" -> {
                    String o = model;
                    model = v;
                    yield o;
                }
                case "kv_dtype" -> {
                    String o = dtype;
                    dtype = v;
                    yield o;
                }
                case "tp_layout" -> {
                    String o = tp;
                    tp = v;
                    yield o;
                }
                case "lora" -> {
                    String o = lora;
                    lora = v;
                    yield o;
                }
                case "tenant" -> {
                    String o = tenant;
                    tenant = v;
                    yield o;
                }
                default ->
                    throw error("unknown field 'namespace." + clip(name)
                            + "' (known: model, kv_dtype, tp_layout, lora, tenant)");
            };
            if (prev != null) throw error("duplicate field 'namespace." + name + "'");
        }
        if (t != JsonToken.END_OBJECT) throw error("malformed field 'namespace'");
        if (model == null || dtype == null || tp == null || lora == null || tenant == null) {
            throw error("field 'namespace' needs all of model, kv_dtype, tp_layout, lora, tenant");
        }
        return new Namespace(model, dtype, tp, lora, tenant);
    }

    private static String describe(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == null) return "nothing";
        return switch (t) {
            case VALUE_STRING -> "string \"" + clip(p.getText()) + "\"";
            case VALUE_NUMBER_INT -> "integer " + clip(p.getText());
            case VALUE_NUMBER_FLOAT -> "number " + clip(p.getText());
            case VALUE_TRUE, VALUE_FALSE -> "boolean " + p.getText();
            case VALUE_NULL -> "null";
            case START_ARRAY -> "an array";
            case START_OBJECT -> "an object";
            default -> t.asString() == null ? t.name() : t.asString();
        };
    }

    private static String jacksonMessage(JsonProcessingException e) {
        String m = e.getOriginalMessage();
        if (m == null) m = e.getClass().getSimpleName();
        int nl = m.indexOf('\n');
        if (nl >= 0) m = m.substring(0, nl);
        JsonLocation loc = e.getLocation();
        if (loc != null && loc.getColumnNr() > 0) m += " (column " + loc.getColumnNr() + ")";
        return clip(m);
    }

    static String clip(String s) {
        if (s == null) return "null";
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    private static boolean isBlank(byte[] b, int len) {
        for (int i = 0; i < len; i++) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') return false;
        }
        return true;
    }
}
