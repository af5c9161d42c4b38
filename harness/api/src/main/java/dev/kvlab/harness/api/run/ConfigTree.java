package dev.kvlab.harness.api.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.config.ClockKeys;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.LocatedTree;
import dev.kvlab.harness.api.input.TreeBinder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;

/**
 * A run config as a generic tree: the built-in defaults with a YAML file merged over them, patched by overrides
 * ({@code --set key=value}, matrix factors), then bound to a {@link RunConfig}. Any key can be patched by its
 * dotted path ({@code slo.ttft_ms}, {@code cluster.instances}, {@code workload.trace}); values are typed by the
 * record they bind to. Every error names where the value came from: {@code FILE:LINE} or {@code --set k=v}.
 *
 * <p>The matrix runner loads one tree, {@link #copy()}s it per cell, {@link #set}s the cell's factors and
 * {@link #bind()}s it. Not thread-safe; copies are independent.
 */
public final class ConfigTree {

    private static final String DEFAULTS = "/dev/kvlab/harness/config/defaults.yaml";
    private static final TreeBinder BINDER = new TreeBinder();

    private final LocatedTree tree;
    private final Path baseDir;
    private final String source;
    /**
     * Whether the text merged over the defaults repeats their top-level keys (all but at most
     * {@link #RESOLVED_MISSING_KEYS}, which a bundle made before they were added lacks): a resolved config (a bundle's
     * manifest, a capacity search's probe), already refused or accepted as the user gave it. Its keys are "given" only
     * where they differ from the defaults, since it repeats every default.
     */
    private final boolean resolved;

    private ConfigTree(LocatedTree tree, Path baseDir, String source, boolean resolved) {
        this.tree = tree;
        this.baseDir = baseDir;
        this.source = source;
        this.resolved = resolved;
    }

    /** The defaults alone (relative paths resolve against the working directory). */
    public static ConfigTree defaults() {
        return new ConfigTree(readDefaults(), null, "defaults", false);
    }

    /** The defaults with {@code file} merged over them; relative paths in it resolve against its directory first. */
    public static ConfigTree load(Path file) {
        LocatedTree user = LocatedTree.read(file);
        Path dir = file.toAbsolutePath().getParent();
        return merge(user, dir, file.toString());
    }

    /** The defaults with YAML {@code text} (named {@code name} in errors) merged over them. */
    public static ConfigTree parse(String text, String name, Path baseDir) {
        return merge(LocatedTree.parse(text, name), baseDir, name);
    }

    /**
     * The defaults with {@code tree} (a resolved config already in memory: a bundle's manifest, a probe, a replicate or a
     * shard derived from a cell's tree) merged over them, without writing it out and parsing it again; values' origin in
     * errors is {@code name}.
     */
    public static ConfigTree of(ObjectNode tree, String name, Path baseDir) {
        return merge(LocatedTree.of(tree, name), baseDir, name);
    }

    /** Top-level keys of the defaults a resolved config may lack (added since it was written); a user's file lacks far more. */
    static final int RESOLVED_MISSING_KEYS = 3;

    private static ConfigTree merge(LocatedTree user, Path dir, String source) {
        LocatedTree base = readDefaults();
        int missing = 0;
        for (var it = base.root().fieldNames(); it.hasNext(); ) if (!user.root().has(it.next())) missing++;
        boolean resolved = missing <= RESOLVED_MISSING_KEYS;
        mergeInto(base, "", base.root(), user, "", user.root());
        return new ConfigTree(base, dir, source, resolved);
    }

    private static void mergeInto(
            LocatedTree base, String basePtr, ObjectNode target, LocatedTree user, String userPtr, ObjectNode src) {
        Iterator<Map.Entry<String, JsonNode>> it = src.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String ptr = basePtr + "/" + escape(e.getKey());
            JsonNode existing = target.get(e.getKey());
            if (existing instanceof ObjectNode eo && e.getValue() instanceof ObjectNode uo && !isOpaque(ptr)) {
                base.setOrigin(ptr, user.origin(userPtr + "/" + escape(e.getKey())));
                mergeInto(base, ptr, eo, user, userPtr + "/" + escape(e.getKey()), uo);
            } else {
                target.set(e.getKey(), e.getValue().deepCopy());
                copyOrigins(base, ptr, user, userPtr + "/" + escape(e.getKey()), e.getValue());
            }
        }
    }

    /**
     * Keys inside a free-form mapping that no record types ({@code target.extra_body}, sent to the engine as it is):
     * a {@code --set} value there is read as YAML ({@code true} a boolean, {@code 4} a number), as it would be in the file.
     */
    private static boolean isFreeForm(String key) {
        return key.startsWith("target.extra_body.");
    }

    /** Subtrees replaced as a whole rather than merged key by key. */
    private static boolean isOpaque(String ptr) {
        return ptr.equals("/workload/generator") || ptr.equals("/target");
    }

    private static void copyOrigins(
            LocatedTree base, String basePtr, LocatedTree user, String userPtr, JsonNode value) {
        base.setOrigin(basePtr, user.origin(userPtr));
        if (value instanceof ObjectNode o) {
            Iterator<String> names = o.fieldNames();
            while (names.hasNext()) {
                String n = names.next();
                copyOrigins(base, basePtr + "/" + escape(n), user, userPtr + "/" + escape(n), o.get(n));
            }
        } else if (value.isArray()) {
            for (int i = 0; i < value.size(); i++)
                copyOrigins(base, basePtr + "/" + i, user, userPtr + "/" + i, value.get(i));
        }
    }

    private static final String DEFAULTS_NAME = "defaults.yaml";

    private static LocatedTree readDefaults() {
        try (InputStream in = ConfigTree.class.getResourceAsStream(DEFAULTS)) {
            if (in == null) throw new IllegalStateException("built-in config defaults are missing from the jar");
            return LocatedTree.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), DEFAULTS_NAME);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An independent copy (for one matrix cell). */
    public ConfigTree copy() {
        return new ConfigTree(tree.copy(), baseDir, source, resolved);
    }

    /** Where relative paths resolve first (the config file's directory), or null. */
    public Path baseDirectory() {
        return baseDir;
    }

    /** The config's name in messages (its file, or what it was parsed as). */
    public String source() {
        return source;
    }

    /**
     * Applies {@code --set key=value}: {@code value} is text (typed when bound: {@code 4}, {@code 0.5}, {@code true}),
     * {@code null}/{@code ~} for null, or a YAML flow list/map ({@code [a, b]}, {@code {kind: chat}}).
     */
    public ConfigTree set(String assignment) {
        int eq = assignment.indexOf('=');
        if (eq <= 0)
            throw new BadInputException("--set " + assignment + ": expected KEY=VALUE (e.g. --set slo.ttft_ms=2000)");
        return set(assignment.substring(0, eq).strip(), assignment.substring(eq + 1), "--set " + assignment);
    }

    /** Sets the value at dotted {@code key} from override text (see {@link #set(String)}). */
    public ConfigTree set(String key, String value, String origin) {
        String v = value.strip();
        JsonNode node;
        if (v.equals("null") || v.equals("~")) node = JsonNodeFactory.instance.nullNode();
        else if (v.startsWith("[") || v.startsWith("{") || isFreeForm(key)) {
            LocatedTree t = LocatedTree.parse("v: " + v, origin);
            node = t.root().get("v");
        } else node = JsonNodeFactory.instance.textNode(value);
        return set(key, node, origin);
    }

    /** Sets the value at dotted {@code key} to {@code value} (a matrix factor's level), remembering {@code origin}. */
    public ConfigTree set(String key, JsonNode value, String origin) {
        if (key == null || key.isBlank() || key.startsWith(".") || key.endsWith(".") || key.contains(".."))
            throw new BadInputException(origin + ": bad key '" + key + "' (use dotted paths like slo.ttft_ms)");
        String[] parts = key.split("\\.");
        ObjectNode node = tree.root();
        StringBuilder ptr = new StringBuilder();
        for (int i = 0; i < parts.length - 1; i++) {
            ptr.append('/').append(escape(parts[i]));
            JsonNode child = node.get(parts[i]);
            if (!(child instanceof ObjectNode)) {
                if (child != null && !child.isNull() && !isOpaque(ptr.toString()))
                    throw new BadInputException(
                            origin + ": key '" + String.join(".", java.util.Arrays.copyOf(parts, i + 1))
                                    + "' holds a value, not a section");
                child = node.putObject(parts[i]);
                tree.setOrigin(ptr.toString(), origin);
            }
            node = (ObjectNode) child;
        }
        String last = parts[parts.length - 1];
        ptr.append('/').append(escape(last));
        node.set(last, value == null ? JsonNodeFactory.instance.nullNode() : value.deepCopy());
        tree.setOrigin(ptr.toString(), origin);
        return this;
    }

    /**
     * Removes the value at dotted {@code key} and returns it (null when absent): the matrix runner takes its own
     * top-level keys ({@code factors}, {@code exclude}, ...) out of a matrix file before binding the rest.
     */
    public JsonNode remove(String key) {
        String[] parts = key.split("\\.");
        JsonNode n = tree.root();
        for (int i = 0; i < parts.length - 1 && n != null; i++) n = n.get(parts[i]);
        return n instanceof ObjectNode o ? o.remove(parts[parts.length - 1]) : null;
    }

    /** The value at dotted {@code key}, or null when absent. */
    public JsonNode get(String key) {
        JsonNode n = tree.root();
        for (String p : key.split("\\.")) {
            n = n == null ? null : n.get(p);
        }
        return n;
    }

    /** Where the value at dotted {@code key} came from: {@code FILE:LINE}, {@code defaults.yaml:LINE} or {@code --set k=v}. */
    public String origin(String key) {
        return tree.origin(pointer(key));
    }

    /** The merged tree (a copy). */
    public ObjectNode tree() {
        return tree.root().deepCopy();
    }

    /**
     * Binds and validates: unknown keys, wrong types, out-of-range values, missing files, unknown models all
     * fail here with {@link BadInputException} naming {@code FILE:LINE} and the key. Paths come back absolute.
     */
    public RunConfig bind() {
        clockDefaults();
        LocatedTree t = tree.copy();
        ConfigPaths.resolvePaths(t, baseDir);
        RunConfig c = BINDER.bind(t, "", RunConfig.class);
        var target = Targets.discover().of(c, k -> t.origin(pointer(k)));
        Targets.refuseUnused(target, ClockKeys.keys(), k -> given(t, k), k -> givenOrigin(t, k));
        target.validate(c, k -> t.origin(pointer(k)));
        ClockKeys.refuseUnused(c.mode(), k -> given(t, k), k -> givenOrigin(t, k));
        OptionKeys.refuseUnread(c, k -> given(t, k), k -> givenOrigin(t, k));
        return c;
    }

    /** The transport of the live clock when the config gives none: {@code tcp} (the defaults' {@code 4x200gbps} is a sim link). */
    static final String LIVE_DEFAULT_TRANSPORT = "tcp";

    /**
     * Defaults that depend on the clock, written into the tree (so that its resolved form, a bundle's manifest, reads
     * back the same): a live config that gives no {@code transport} gets {@link #LIVE_DEFAULT_TRANSPORT}, since the
     * defaults' link per GPU is what a sim cell models, not a transport a live cell can open.
     */
    private void clockDefaults() {
        String transportOrigin = tree.origin("/transport");
        boolean live = tree.root().path("mode").isTextual()
                && tree.root().path("mode").asText().strip().equalsIgnoreCase("live");
        if (live
                && transportOrigin != null
                && transportOrigin.startsWith(DEFAULTS_NAME)
                && !transportOrigin.contains("live clock")) {
            tree.root().put("transport", LIVE_DEFAULT_TRANSPORT);
            tree.setOrigin(
                    "/transport", transportOrigin + " (the live clock's default: " + LIVE_DEFAULT_TRANSPORT + ")");
        }
    }

    /**
     * Whether dotted {@code key} (or a key below it) was given (in a file, a matrix or {@code --set}), whatever its
     * value: a key set to its default where nothing reads it is as much a mistake as any other value. In a resolved
     * config (which repeats every default) only a value other than the default counts as given.
     */
    private boolean given(LocatedTree t, String key) {
        String ptr = pointer(key);
        if (!t.hasOriginAtOrBelow(ptr, o -> !o.startsWith(DEFAULTS_NAME))) return false;
        return !resolved || !t.root().at(ptr).equals(defaultAt(t, ptr));
    }

    /** The default at {@code ptr} for {@code t}'s clock (see {@link #clockDefaults()}). */
    private static JsonNode defaultAt(LocatedTree t, String ptr) {
        boolean live = t.root().path("mode").asText("").strip().equalsIgnoreCase("live");
        if (live && ptr.equals("/transport")) return JsonNodeFactory.instance.textNode(LIVE_DEFAULT_TRANSPORT);
        return defaultsRoot().at(ptr);
    }

    /** Where the user gave dotted {@code key} (or a key below it): {@code FILE:LINE} or {@code --set k=v}, not the defaults' line. */
    private static String givenOrigin(LocatedTree t, String key) {
        String o = t.originAtOrBelow(pointer(key), x -> !x.startsWith(DEFAULTS_NAME));
        return o != null ? o : t.origin(pointer(key));
    }

    private static volatile ObjectNode defaults;

    private static ObjectNode defaultsRoot() {
        ObjectNode d = defaults;
        if (d == null) defaults = d = readDefaults().root();
        return d;
    }

    private static String pointer(String dotted) {
        StringBuilder sb = new StringBuilder();
        for (String p : dotted.split("\\.")) {
            if (p.isEmpty()) continue;
            sb.append('/').append(escape(p));
        }
        return sb.toString();
    }

    private static String escape(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }
}
