package dev.kvlab.harness.api.input;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A YAML document read into a Jackson tree, remembering where every value came from ({@code FILE:LINE}) so
 * that errors found later (unknown key, bad value) can name the line. Duplicate keys are errors.
 */
public final class LocatedTree {

    private static final YAMLFactory YAML = new YAMLFactory();

    private final ObjectNode root;
    private final Map<String, String> origins;

    private LocatedTree(ObjectNode root, Map<String, String> origins) {
        this.root = root;
        this.origins = origins;
    }

    /** An empty tree (no file). */
    public static LocatedTree empty() {
        return new LocatedTree(JsonNodeFactory.instance.objectNode(), new HashMap<>());
    }

    public static LocatedTree read(Path file) {
        String text;
        try {
            text = utf8(file, Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            throw new BadInputException(file + ": no such file");
        } catch (IOException e) {
            throw new BadInputException(file + ": cannot read: " + e.getMessage(), e);
        }
        return parse(text, file.toString());
    }

    /** The file's text; exit 2 naming the file and line of the first byte that is not UTF-8 (binary or another encoding). */
    static String utf8(Path file, byte[] bytes) {
        java.nio.charset.CharsetDecoder d = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length + 1);
        java.nio.charset.CoderResult r = d.decode(in, out, true);
        if (r.isError()) {
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at; i++) if (bytes[i] == '\n') line++;
            throw BadInputException.at(
                    file.toString(),
                    line,
                    String.format(
                            java.util.Locale.ROOT,
                            "not UTF-8 text (byte 0x%02x at offset %d): a config must be a UTF-8 YAML file",
                            bytes[at] & 0xff,
                            at));
        }
        d.flush(out);
        int nul = -1;
        for (int i = 0; i < bytes.length && nul < 0; i++) if (bytes[i] == 0) nul = i;
        if (nul >= 0) {
            int line = 1;
            for (int i = 0; i < nul; i++) if (bytes[i] == '\n') line++;
            throw BadInputException.at(
                    file.toString(), line, "a NUL byte at offset " + nul + ": a binary file, not a YAML config");
        }
        return out.flip().toString();
    }

    public static LocatedTree parse(String text, String sourceName) {
        Map<String, String> origins = new HashMap<>();
        try (Reader r = new StringReader(text);
                JsonParser p = YAML.createParser(r)) {
            JsonToken t = p.nextToken();
            if (t == null) return new LocatedTree(JsonNodeFactory.instance.objectNode(), origins);
            if (t != JsonToken.START_OBJECT)
                throw BadInputException.at(sourceName, line(p), "expected a mapping of keys at the top level");
            origins.put("", sourceName + ":" + line(p));
            ObjectNode root = readObject(p, "", sourceName, origins);
            if (p.nextToken() != null) throw BadInputException.at(sourceName, line(p), "more than one YAML document");
            return new LocatedTree(root, origins);
        } catch (IOException e) {
            String where = sourceName;
            if (e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe && jpe.getLocation() != null)
                where = sourceName + ":" + jpe.getLocation().getLineNr();
            String msg = e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe
                    ? jpe.getOriginalMessage()
                    : e.getMessage();
            throw new BadInputException(where + ": not valid YAML: " + firstLine(msg), e);
        }
    }

    /**
     * A tree already in memory (a resolved config: a bundle's manifest, a probe derived from a cell), every value's origin
     * {@code sourceName}: no text written and read back. Numbers are held as the parser holds them (integers as big integers,
     * decimals as big decimals of their shortest text), so that the tree compares equal to the defaults where it repeats them.
     */
    public static LocatedTree of(ObjectNode tree, String sourceName) {
        Map<String, String> origins = new HashMap<>();
        origins.put("", sourceName);
        return new LocatedTree((ObjectNode) normalize(tree, "", sourceName, origins), origins);
    }

    private static JsonNode normalize(JsonNode n, String path, String src, Map<String, String> origins) {
        if (n instanceof ObjectNode o) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> e : o.properties()) {
                String child = path + "/" + escape(e.getKey());
                origins.put(child, src);
                out.set(e.getKey(), normalize(e.getValue(), child, src, origins));
            }
            return out;
        }
        if (n instanceof ArrayNode a) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            for (int i = 0; i < a.size(); i++) {
                String child = path + "/" + i;
                origins.put(child, src);
                out.add(normalize(a.get(i), child, src, origins));
            }
            return out;
        }
        if (n.isIntegralNumber()) return JsonNodeFactory.instance.numberNode(n.bigIntegerValue());
        if (n.isDouble() || n.isFloat()) {
            double d = n.doubleValue();
            if (!Double.isFinite(d)) return JsonNodeFactory.instance.textNode(Double.toString(d)); // as JSON quotes it
            return JsonNodeFactory.instance.numberNode(
                    new java.math.BigDecimal(n.isFloat() ? Float.toString(n.floatValue()) : Double.toString(d)));
        }
        return n.deepCopy();
    }

    private static ObjectNode readObject(JsonParser p, String path, String src, Map<String, String> origins)
            throws IOException {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            int keyLine = line(p);
            String child = path + "/" + escape(name);
            if (node.has(name)) throw BadInputException.at(src, keyLine, "duplicate key '" + dotted(child) + "'");
            p.nextToken();
            origins.put(child, src + ":" + keyLine);
            node.set(name, readValue(p, child, src, origins));
        }
        if (t != JsonToken.END_OBJECT) throw BadInputException.at(src, line(p), "unexpected " + t);
        return node;
    }

    private static JsonNode readValue(JsonParser p, String path, String src, Map<String, String> origins)
            throws IOException {
        JsonToken t = p.currentToken();
        return switch (t) {
            case START_OBJECT -> readObject(p, path, src, origins);
            case START_ARRAY -> {
                ArrayNode a = JsonNodeFactory.instance.arrayNode();
                int i = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    String child = path + "/" + i++;
                    origins.put(child, src + ":" + line(p));
                    a.add(readValue(p, child, src, origins));
                }
                yield a;
            }
            case VALUE_STRING -> JsonNodeFactory.instance.textNode(p.getText());
            case VALUE_NUMBER_INT -> JsonNodeFactory.instance.numberNode(p.getBigIntegerValue());
            case VALUE_NUMBER_FLOAT -> JsonNodeFactory.instance.numberNode(p.getDecimalValue());
            case VALUE_TRUE -> JsonNodeFactory.instance.booleanNode(true);
            case VALUE_FALSE -> JsonNodeFactory.instance.booleanNode(false);
            case VALUE_NULL -> JsonNodeFactory.instance.nullNode();
            default -> throw BadInputException.at(src, line(p), "unexpected " + t);
        };
    }

    private static int line(JsonParser p) {
        JsonLocation l = p.currentTokenLocation();
        return l == null ? 0 : l.getLineNr();
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** The tree (mutable: overrides patch it in place). */
    public ObjectNode root() {
        return root;
    }

    /** Where the value at JSON pointer {@code pointer} came from ({@code FILE:LINE} or {@code --set k=v}), or null. */
    public String origin(String pointer) {
        String p = pointer;
        while (true) {
            String o = origins.get(p);
            if (o != null) return o;
            if (p.isEmpty()) return null;
            int slash = p.lastIndexOf('/');
            p = slash <= 0 ? "" : p.substring(0, slash);
        }
    }

    /** Whether the value at {@code pointer}, or one below it, has an origin of its own that {@code test} accepts. */
    public boolean hasOriginAtOrBelow(String pointer, java.util.function.Predicate<String> test) {
        String below = pointer + "/";
        for (Map.Entry<String, String> e : origins.entrySet())
            if ((e.getKey().startsWith(below) || e.getKey().equals(pointer)) && test.test(e.getValue())) return true;
        return false;
    }

    /** The first origin of the value at {@code pointer}, or one below it, that {@code test} accepts (in pointer order), or null. */
    public String originAtOrBelow(String pointer, java.util.function.Predicate<String> test) {
        String below = pointer + "/";
        return origins.entrySet().stream()
                .filter(e -> (e.getKey().startsWith(below) || e.getKey().equals(pointer)) && test.test(e.getValue()))
                .min(Map.Entry.comparingByKey())
                .map(Map.Entry::getValue)
                .orElse(null);
    }

    /** Records that the value at {@code pointer} (and below) now comes from {@code origin}. */
    public void setOrigin(String pointer, String origin) {
        String below = pointer + "/";
        origins.keySet().removeIf(k -> k.startsWith(below) || k.equals(pointer));
        origins.put(pointer, origin);
    }

    /** A deep copy: patching the copy leaves this tree alone. */
    public LocatedTree copy() {
        return new LocatedTree(root.deepCopy(), new HashMap<>(origins));
    }

    static String escape(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }

    /** {@code /a/b/0} → {@code a.b[0]}. */
    public static String dotted(String pointer) {
        StringBuilder sb = new StringBuilder();
        for (String part : pointer.split("/")) {
            if (part.isEmpty()) continue;
            if (part.chars().allMatch(Character::isDigit))
                sb.append('[').append(part).append(']');
            else {
                if (!sb.isEmpty()) sb.append('.');
                sb.append(part.replace("~1", "/").replace("~0", "~"));
            }
        }
        return sb.toString();
    }
}
