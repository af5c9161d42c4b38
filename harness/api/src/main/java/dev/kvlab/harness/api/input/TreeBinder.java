package dev.kvlab.harness.api.input;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Binds a {@link LocatedTree} (or a part of it) to records: snake_case keys, unknown keys are errors, no
 * silent coercion of lists into scalars, and every error names {@code FILE:LINE} and the dotted key.
 */
public final class TreeBinder {

    private final ObjectMapper mapper;

    public TreeBinder() {
        JsonMapper m = JsonMapper.builder()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .build();
        // "--set a.b=3" arrives as text: allow text → number/boolean, but never number → text silently changing meaning
        m.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.String, CoercionAction.TryConvert);
        m.coercionConfigFor(LogicalType.Float).setCoercion(CoercionInputShape.String, CoercionAction.TryConvert);
        m.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.String, CoercionAction.TryConvert);
        m.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.TryConvert);
        m.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Float, CoercionAction.TryConvert);
        m.registerModule(WholeNumbers.module());
        this.mapper = m;
        this.lenient = m.copy().disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    }

    private final ObjectMapper lenient;

    public ObjectMapper mapper() {
        return mapper;
    }

    /** Binds the node at {@code pointer} of {@code tree} to {@code type}. */
    public <T> T bind(LocatedTree tree, String pointer, Class<T> type) {
        JsonNode node = pointer.isEmpty() ? tree.root() : tree.root().at(pointer);
        try {
            return mapper.treeToValue(node, type);
        } catch (JsonMappingException e) {
            throw translate(tree, pointer, e);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new BadInputException(where(tree, pointer) + ": " + e.getOriginalMessage(), e);
        } catch (IllegalArgumentException e) {
            if (e.getCause() instanceof JsonMappingException jme) throw translate(tree, pointer, jme);
            throw new BadInputException(where(tree, pointer) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Binds a detached {@code node} (found at dotted key {@code base} of a config) to {@code type}; errors name
     * the key and where it came from through {@code origin} (dotted key → {@code FILE:LINE}).
     */
    public <T> T bindNode(
            JsonNode node, Class<T> type, String base, java.util.function.Function<String, String> origin) {
        try {
            // records of other modules document "a field left at 0 means its default": absent primitives bind to 0
            return lenient.treeToValue(node, type);
        } catch (JsonMappingException e) {
            StringBuilder key = new StringBuilder(base);
            for (JsonMappingException.Reference r : e.getPath()) {
                if (r.getFieldName() != null) key.append('.').append(r.getFieldName());
                else if (r.getIndex() >= 0) key.append('[').append(r.getIndex()).append(']');
            }
            String where = originOf(origin, key.toString());
            String reason = e instanceof UnrecognizedPropertyException u
                    ? "unknown key '" + key + "'" + known(u)
                    : valueReason(key.toString(), e);
            throw new BadInputException(where + ": " + reason, e);
        } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
            throw new BadInputException(
                    originOf(origin, base) + ": key '" + base + "': " + firstLine(e.getMessage()), e);
        }
    }

    private static String originOf(java.util.function.Function<String, String> origin, String key) {
        String k = key;
        while (true) {
            String o = origin.apply(k);
            if (o != null) return o;
            int dot = Math.max(k.lastIndexOf('.'), k.lastIndexOf('['));
            if (dot <= 0) return "config";
            k = k.substring(0, dot);
        }
    }

    private static String known(UnrecognizedPropertyException u) {
        Collection<Object> known = u.getKnownPropertyIds();
        if (known == null || known.isEmpty()) return "";
        List<String> names = new ArrayList<>();
        for (Object o : known) names.add(String.valueOf(o));
        names.sort(null);
        return " (known here: " + String.join(", ", names) + ")";
    }

    private BadInputException translate(LocatedTree tree, String base, JsonMappingException e) {
        StringBuilder ptr = new StringBuilder(base);
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) ptr.append('/').append(LocatedTree.escape(r.getFieldName()));
            else if (r.getIndex() >= 0) ptr.append('/').append(r.getIndex());
        }
        String pointer = ptr.toString();
        String key = LocatedTree.dotted(pointer);
        String reason;
        if (e instanceof UnrecognizedPropertyException u) {
            Collection<Object> known = u.getKnownPropertyIds();
            List<String> names = new ArrayList<>();
            if (known != null) for (Object o : known) names.add(String.valueOf(o));
            names.sort(null);
            reason = "unknown key '" + key + "'"
                    + (names.isEmpty()
                            ? ""
                            : " (known here: " + names.stream().collect(Collectors.joining(", ")) + ")");
        } else if (e instanceof MismatchedInputException m
                && tree.root().at(pointer).isMissingNode()) {
            // a key absent where the record needs one: a section given whole (a --set or factor of a mapping, or a
            // subtree replaced as one) does not keep the defaults' keys, and Jackson's "cannot map null" says none of
            // that
            reason = "key '" + key + "': missing, expected " + typeName(m.getTargetType())
                    + " (a section given whole, as a --set or a factor of a mapping, replaces the defaults' keys: give every key, or set keys one by one)";
        } else {
            reason = valueReason(key, e);
        }
        return new BadInputException(where(tree, pointer) + ": " + reason, e);
    }

    /** Why a value of {@code key} does not bind, in the config's words (not Jackson's class names). */
    private static String valueReason(String key, JsonMappingException e) {
        if (e instanceof InvalidFormatException f)
            return "key '" + key + "': cannot read '" + f.getValue() + "' as " + typeName(f.getTargetType());
        if (e instanceof MismatchedInputException m)
            return "key '" + key + "': expected " + typeName(m.getTargetType()) + rootCause(e);
        return "key '" + key + "': " + rootCause(e).replaceFirst("^: ", "");
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        if (t == e && e instanceof JsonMappingException jme) {
            String m = jme.getOriginalMessage();
            return m == null ? "" : ": " + firstLine(m);
        }
        return ": " + firstLine(t.getMessage());
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String typeName(Class<?> c) {
        if (c == null) return "a value";
        if (c == int.class || c == Integer.class || c == long.class || c == Long.class) return "an integer";
        if (c == double.class || c == Double.class || c == float.class) return "a number";
        if (c == boolean.class || c == Boolean.class) return "true or false";
        if (c == String.class) return "a string";
        if (List.class.isAssignableFrom(c)) return "a list";
        if (c.isRecord()) return "a mapping";
        if (c.isEnum()) return "one of " + enumValues(c);
        return c.getSimpleName();
    }

    private static String enumValues(Class<?> c) {
        List<String> out = new ArrayList<>();
        for (Object o : c.getEnumConstants()) out.add(o.toString());
        return String.join(", ", out);
    }

    /** Where the node at {@code pointer} came from ({@code FILE:LINE}), or {@code config} when unknown. */
    public static String where(LocatedTree tree, String pointer) {
        String o = tree.origin(pointer);
        return o == null ? "config" : o;
    }
}
