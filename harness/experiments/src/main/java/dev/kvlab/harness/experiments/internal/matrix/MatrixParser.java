package dev.kvlab.harness.experiments.internal.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.Tiers;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.LocatedTree;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.experiments.internal.capacity.CapacityParser;
import dev.kvlab.harness.experiments.internal.capacity.CapacityReplicates;
import dev.kvlab.harness.experiments.internal.capacity.OperatingPoint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads a matrix file (a run config plus the matrix keys {@code name, description, factors, exclude, replicates,
 * baseline, paper}), expands and validates every cell × replicate before anything runs. Errors name FILE:LINE.
 *
 * <p>A factor is a list of levels of one config key ({@code tiers: [local-only, combined]}) or a mapping of named
 * levels, each setting several keys at once ({@code system: {vllm: {tiers: local-only, pd: colocated}, mooncake:
 * {...}}}); the name is the level's label in cell ids, columns, reports and {@code compare}. A key may be varied by
 * one factor only. {@code paper} carries published figures to compare with (see {@link PaperFigures}).
 */
public final class MatrixParser {

    /** Top-level keys that belong to the matrix, not to the run config. */
    public static final List<String> MATRIX_KEYS = List.of(
            "name", "description", "factors", "exclude", "replicates", "baseline", "paper", "capacity", "bundle");

    private static final int MAX_RUNS = 100_000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private MatrixParser() {}

    public static MatrixSpec load(Path file, List<String> sets, Mode mode) {
        return load(file, sets, mode, MatrixSpec.Expansion.NONE);
    }

    public static MatrixSpec load(Path file, List<String> sets, Mode mode, MatrixSpec.Expansion progress) {
        LocatedTree located = LocatedTree.read(file);
        ConfigTree base = ConfigTree.load(file);
        String fn = file.getFileName().toString();
        String defName = fn.replaceFirst("\\.(ya?ml|json)$", "");
        return build(located, base, file.toString(), file.toAbsolutePath().normalize(), defName, sets, mode, progress);
    }

    public static MatrixSpec parse(String yaml, String sourceName, Path baseDir, List<String> sets, Mode mode) {
        LocatedTree located = LocatedTree.parse(yaml, sourceName);
        ConfigTree base = ConfigTree.parse(yaml, sourceName, baseDir);
        String defName = Path.of(sourceName).getFileName().toString().replaceFirst("\\.(ya?ml|json)$", "");
        return build(located, base, sourceName, null, defName, sets, mode, MatrixSpec.Expansion.NONE);
    }

    /**
     * One factor: its levels, their labels (names in cell ids and columns) and origins. A factor of named levels has
     * {@code groups}: per level, the config keys (dotted) it sets at once; its {@code levels} are then the groups as
     * mappings. Plain factors have {@code groups == null}.
     */
    private record Factor(
            String key,
            List<JsonNode> levels,
            List<String> labels,
            List<String> origins,
            boolean pinned,
            List<Map<String, JsonNode>> groups) {

        Factor pin(int level, String origin) {
            return new Factor(
                    key,
                    List.of(levels.get(level)),
                    List.of(labels.get(level)),
                    List.of(origin),
                    true,
                    groups == null ? null : List.of(groups.get(level)));
        }

        /** Config keys this factor sets: its own key, or every key of its groups. */
        Set<String> keys() {
            if (groups == null) return Set.of(key);
            Set<String> k = new LinkedHashSet<>();
            for (Map<String, JsonNode> g : groups) k.addAll(g.keySet());
            return k;
        }

        /** Sets level {@code i} on {@code ct}. */
        void apply(ConfigTree ct, int i) {
            if (groups == null) {
                ct.set(key, levels.get(i), origins.get(i));
                return;
            }
            for (var e : groups.get(i).entrySet()) ct.set(e.getKey(), e.getValue(), origins.get(i));
        }
    }

    /** {@code system: {vllm: {tiers: local-only, pd: colocated}, mooncake: {...}}}: named levels, each several keys at once. */
    private static Factor groupFactor(LocatedTree located, String ptr, String key, ObjectNode groups) {
        if (groups.isEmpty()) throw bad(located, ptr, "factor '" + key + "': expected at least one named level");
        List<JsonNode> levels = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<String> origins = new ArrayList<>();
        List<Map<String, JsonNode>> gs = new ArrayList<>();
        var it = groups.fields();
        while (it.hasNext()) {
            var g = it.next();
            String gp = ptr + "/" + esc(g.getKey());
            if (!(g.getValue() instanceof ObjectNode keys) || keys.isEmpty())
                throw bad(
                        located,
                        gp,
                        "factor '" + key + "': named level '" + g.getKey()
                                + "' must be a non-empty mapping of config keys, "
                                + "e.g. {tiers: local-only, cluster.router: least-loaded}");
            Map<String, JsonNode> m = new LinkedHashMap<>();
            var kit = keys.fields();
            while (kit.hasNext()) {
                var kv = kit.next();
                if (MATRIX_KEYS.contains(kv.getKey()))
                    throw bad(
                            located,
                            gp + "/" + esc(kv.getKey()),
                            "factor '" + key + "', level '" + g.getKey() + "': the matrix key '" + kv.getKey()
                                    + "' cannot be set by a level");
                if (kv.getKey().equals(key))
                    throw bad(
                            located,
                            gp + "/" + esc(kv.getKey()),
                            "factor '" + key + "', level '" + g.getKey() + "' sets its own name as a key");
                m.put(kv.getKey(), kv.getValue());
            }
            levels.add(keys);
            labels.add(g.getKey());
            origins.add(where(located, gp) + " (factor " + key + ", level " + g.getKey() + ")");
            gs.add(m);
        }
        return new Factor(key, levels, labels, origins, false, gs);
    }

    /** A key set by a named level may not also be another factor or set by another factor's levels. */
    private static void checkGroupConflicts(LocatedTree located, Map<String, Factor> factors) {
        List<Factor> fl = new ArrayList<>(factors.values());
        for (int a = 0; a < fl.size(); a++) {
            Factor fa = fl.get(a);
            if (fa.groups() == null) continue;
            for (int b = 0; b < fl.size(); b++) {
                Factor fb = fl.get(b);
                if (a == b || (fb.groups() != null && b < a)) continue;
                for (int i = 0; i < fa.groups().size(); i++) {
                    for (String k : fa.groups().get(i).keySet()) {
                        if (!conflicts(k, fb)) continue;
                        String ptr = "/factors/" + esc(fa.key()) + "/"
                                + esc(fa.labels().get(i)) + "/" + esc(k);
                        throw bad(
                                located,
                                ptr,
                                "factor '" + fa.key() + "' (level '"
                                        + fa.labels().get(i) + "') sets '" + k + "', which "
                                        + (fb.groups() == null
                                                ? "is also the factor '" + fb.key() + "'"
                                                : "the factor '" + fb.key() + "' sets too")
                                        + ": a key may be varied by one factor only");
                    }
                }
            }
        }
    }

    /**
     * Two levels of one factor that read as the same config ({@code [combined, Combined]}, {@code seed: [1, 1.0]}) would
     * run identical cells: exit 2 naming both. A level that does not bind on its own is left to the expansion's error.
     */
    private static void checkDistinctOnceRead(LocatedTree located, ConfigTree base, Factor f) {
        if (f.levels().size() < 2) return;
        List<RunConfig> read = new ArrayList<>();
        for (int i = 0; i < f.levels().size(); i++) {
            RunConfig rc;
            try {
                ConfigTree t = base.copy();
                f.apply(t, i);
                rc = t.bind();
            } catch (RuntimeException e) {
                read.add(null);
                continue;
            }
            int same = read.indexOf(rc);
            if (same >= 0)
                throw bad(
                        located,
                        "/factors/" + esc(f.key()) + "/" + i,
                        "factor '" + f.key() + "': level '" + f.labels().get(i) + "' is the same as level '"
                                + f.labels().get(same) + "' once read (they would run identical cells)");
            read.add(rc);
        }
    }

    /** True when setting {@code key} collides with a key {@code f} sets: the same key, or one inside the other's section. */
    /** Whether a level of {@code f} that sets the search's knob belongs to a searched cell (levels of cells it leaves out may set it). */
    private static boolean setsSearchedKnob(Factor f, CapacitySpec capacity) {
        Set<String> searched = capacity.cells().get(f.key());
        for (int i = 0; i < f.labels().size(); i++) {
            boolean sets = false;
            for (String k : f.groups().get(i).keySet())
                sets |= k.equals(capacity.knob())
                        || k.startsWith(capacity.knob() + ".")
                        || capacity.knob().startsWith(k + ".");
            if (sets && (searched == null || searched.contains(f.labels().get(i)))) return true;
        }
        return false;
    }

    private static boolean conflicts(String key, Factor f) {
        for (String k : f.keys()) if (k.equals(key) || k.startsWith(key + ".") || key.startsWith(k + ".")) return true;
        return false;
    }

    private static MatrixSpec build(
            LocatedTree located,
            ConfigTree base,
            String src,
            Path file,
            String defName,
            List<String> sets,
            Mode mode,
            MatrixSpec.Expansion progress) {
        ObjectNode root = located.root();
        for (String k : MATRIX_KEYS) base.remove(k);
        String name = text(located, "name", defName);
        String description = root.has("description") ? text(located, "description", null) : null;
        int fileReplicates =
                root.has("replicates") ? positiveInt(located, "/replicates", root.get("replicates"), "replicates") : 1;
        Map<String, Factor> factors = factors(located, base);
        Map<String, Factor> declared = new LinkedHashMap<>(factors);
        Overrides set = applySets(located, base, factors, sets, fileReplicates);
        int replicates = set.replicates();
        applyMode(base, factors, mode);

        List<Factor> fl = new ArrayList<>(factors.values());
        List<int[]> combos = combinations(located, src, fl, replicates, declared);
        ExpandedCells expansion = expand(base, fl, combos, replicates, progress);
        List<MatrixCell> cells = expansion.cells();

        String baseline = baseline(located, cells, declared, factors);
        Map<String, List<String>> declaredLabels = labelsByFactor(declared);
        PaperFigures.check(located, declaredLabels);
        Map<String, List<String>> factorLabels = labelsByFactor(factors);
        CapacitySpec capacity = capacity(located, set, factors, factorLabels, declaredLabels, cells);
        if (capacity != null && capacity.replicates() > 0)
            cells = CapacityReplicates.apply(capacity, cells, replicates);
        OperatingPoint.check(expansion.operatingPoints(), capacity, cells);

        List<MatrixSpec.Input> inputs = inputs(file, expansion.inputPaths());
        ObjectNode resolved = resolved(root, name, description, factors, replicates, baseline, set.applied(), mode);
        if (capacity != null) resolved.set("capacity", capacityJson(capacity, replicates));
        if (root.has("bundle")) resolved.set("bundle", bundleBlock(located));
        if (!expansion.operatingPoints().isEmpty())
            resolved.set(OperatingPoint.RESOLVED, OperatingPoint.json(expansion.operatingPoints(), capacity));
        String sha = hash(name, resolved, cells, inputs);
        return new MatrixSpec(
                name, file, description, factorLabels, replicates, baseline, cells, inputs, sha, resolved, capacity);
    }

    /** The {@code factors:} block: each a list of levels or a mapping of named levels; no key varied twice, no level twice. */
    private static Map<String, Factor> factors(LocatedTree located, ConfigTree base) {
        Map<String, Factor> factors = new LinkedHashMap<>();
        JsonNode fnode = located.root().get("factors");
        if (fnode == null || fnode.isNull()) return factors;
        if (!(fnode instanceof ObjectNode fo))
            throw bad(located, "/factors", "factors: expected a mapping of config key -> list of levels");
        var it = fo.fields();
        while (it.hasNext()) {
            var e = it.next();
            String key = e.getKey();
            String ptr = "/factors/" + esc(key);
            if (MATRIX_KEYS.contains(key))
                throw bad(located, ptr, "factor '" + key + "': a matrix key cannot be a factor");
            factors.put(
                    key,
                    e.getValue() instanceof ObjectNode groups
                            ? groupFactor(located, ptr, key, groups)
                            : listFactor(located, ptr, key, e.getValue()));
        }
        checkGroupConflicts(located, factors);
        for (Factor f : factors.values()) if (f.groups() == null) checkDistinctOnceRead(located, base, f);
        return factors;
    }

    /** {@code tiers: [local-only, combined]}: a list of levels of one key. */
    private static Factor listFactor(LocatedTree located, String ptr, String key, JsonNode value) {
        if (!(value instanceof ArrayNode arr) || arr.isEmpty())
            throw bad(
                    located,
                    ptr,
                    "factor '" + key + "': expected a non-empty list of levels, e.g. [cold, hot], "
                            + "or named levels, each a mapping of config keys, e.g. {vllm: {tiers: local-only}, mooncake: {tiers: combined}}");
        List<JsonNode> levels = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<String> origins = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
            String label = label(arr.get(i));
            if (labels.contains(label))
                throw bad(located, ptr + "/" + i, "factor '" + key + "': level '" + label + "' is given twice");
            levels.add(arr.get(i));
            labels.add(label);
            origins.add(where(located, ptr + "/" + i) + " (factor " + key + ")");
        }
        return new Factor(key, levels, labels, origins, false, null);
    }

    /**
     * What the {@code --set} options changed besides the factors and the base config: the replicates, the capacity block
     * (with the {@code --set} that gave each key) and the options as given.
     */
    private record Overrides(
            int replicates, ObjectNode capacityNode, Map<String, String> capacityOrigins, List<String> applied) {}

    /**
     * {@code --set}: a factor's key pins the factor to that one level; {@code replicates} may be overridden;
     * {@code capacity.KEY} patches the capacity block; others patch the base.
     */
    private static Overrides applySets(
            LocatedTree located, ConfigTree base, Map<String, Factor> factors, List<String> sets, int replicates) {
        List<String> applied = new ArrayList<>();
        ObjectNode capacityNode = located.root().get("capacity") instanceof ObjectNode co ? co.deepCopy() : null;
        Map<String, String> capacityOrigins = new LinkedHashMap<>();
        for (String s : sets) {
            int eq = s.indexOf('=');
            if (eq <= 0)
                throw new BadInputException("--set " + s + ": expected KEY=VALUE (e.g. --set slo.ttft_ms=2000)");
            String key = s.substring(0, eq).strip();
            String value = s.substring(eq + 1);
            applied.add(s);
            if (key.equals("replicates")) {
                replicates = replicates(s, value);
            } else if (key.startsWith("capacity.") && key.length() > 9) {
                if (capacityNode == null) capacityNode = NODES.objectNode();
                setCapacityKey(capacityNode, capacityOrigins, s, key, value);
            } else if (MATRIX_KEYS.contains(key)) {
                throw new BadInputException(
                        "--set " + s + ": the matrix key '" + key + "' cannot be set from the command line");
            } else if (factors.containsKey(key)) {
                factors.put(key, pin(factors.get(key), s, value));
            } else {
                setBaseKey(base, factors, s, key);
            }
        }
        return new Overrides(replicates, capacityNode, capacityOrigins, applied);
    }

    private static int replicates(String s, String value) {
        int replicates;
        try {
            replicates = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new BadInputException("--set " + s + ": replicates must be a whole number >= 1");
        }
        if (replicates < 1) throw new BadInputException("--set " + s + ": replicates must be >= 1");
        return replicates;
    }

    /** {@code capacity.KEY} or a nested {@code capacity.cells.FACTOR}: patched into the block, errors naming this --set. */
    private static void setCapacityKey(
            ObjectNode capacityNode, Map<String, String> capacityOrigins, String s, String key, String value) {
        String[] path = key.substring(9).split("\\.", key.startsWith("capacity.cells.") ? 2 : -1);
        if (path.length > 2 || !(path.length == 1 || path[0].equals("cells")) || path[path.length - 1].isEmpty())
            throw new BadInputException("--set " + s + ": '" + key
                    + "' is not a capacity key (capacity.KEY, or capacity.cells.FACTOR; keys: "
                    + String.join(", ", CapacityParser.KEYS) + ")");
        JsonNode v = parseValue(value, "--set " + s);
        ObjectNode at = capacityNode;
        if (path.length == 2)
            at = capacityNode.get("cells") instanceof ObjectNode c ? c : capacityNode.putObject("cells");
        at.set(path[path.length - 1], v.isTextual() ? scalar(v.asText()) : v);
        capacityOrigins.put("/capacity/" + String.join("/", path), "--set " + s);
    }

    /** {@code f} pinned by {@code --set s} to one level: a named level of it, or any value of a plain factor's key. */
    private static Factor pin(Factor f, String s, String value) {
        if (f.groups() == null) {
            JsonNode v = parseValue(value, "--set " + s);
            return new Factor(f.key(), List.of(v), List.of(label(v)), List.of("--set " + s), true, null);
        }
        int i = f.labels().indexOf(value.strip());
        if (i < 0)
            throw new BadInputException("--set " + s + ": '" + value.strip() + "' is not a level of factor " + f.key()
                    + " (levels: " + String.join(", ", f.labels()) + ")");
        return f.pin(i, "--set " + s);
    }

    /** A config key no factor varies: patches the base (a key the named levels of a factor set is refused). */
    private static void setBaseKey(ConfigTree base, Map<String, Factor> factors, String s, String key) {
        for (Factor f : factors.values())
            if (f.groups() != null && conflicts(key, f))
                throw new BadInputException("--set " + s + ": '" + key + "' is set by the levels of factor '" + f.key()
                        + "' (" + String.join(", ", f.labels()) + "); pin the factor instead (--set " + f.key() + "="
                        + f.labels().get(0) + ")");
        base.set(s);
    }

    /** {@code --mode}: pins a {@code mode} factor, else sets the base's mode. */
    private static void applyMode(ConfigTree base, Map<String, Factor> factors, Mode mode) {
        if (mode == null) return;
        if (factors.containsKey("mode"))
            factors.put(
                    "mode",
                    new Factor(
                            "mode",
                            List.of(NODES.textNode(mode.label())),
                            List.of(mode.label()),
                            List.of("--mode " + mode),
                            true,
                            null));
        else base.set("mode", mode.label(), "--mode " + mode.label());
    }

    /** Every combination of the factors' levels (level indexes, in matrix order) that no exclusion removes. */
    private static List<int[]> combinations(
            LocatedTree located, String src, List<Factor> fl, int replicates, Map<String, Factor> declared) {
        long total = 1;
        for (Factor f : fl) total *= f.levels().size();
        if (total * replicates > MAX_RUNS)
            throw new BadInputException(src + ": the matrix has " + total + " cells x " + replicates
                    + " replicates; at most " + MAX_RUNS + " runs");
        List<Exclusion> exclusions = exclusions(located, declared);
        List<int[]> combos = new ArrayList<>();
        int[] idx = new int[fl.size()];
        for (long n = 0; n < total; n++) {
            Map<String, String> labels = labels(fl, idx);
            boolean excluded = false;
            for (Exclusion x : exclusions) if (x.matches(labels)) excluded = true;
            if (!excluded) combos.add(idx.clone());
            for (int d = fl.size() - 1; d >= 0; d--) {
                if (++idx[d] < fl.get(d).levels().size()) break;
                idx[d] = 0;
            }
        }
        if (combos.isEmpty()) throw bad(located, "/exclude", "exclude removes every cell of the matrix");
        return combos;
    }

    /** The expanded cells, the operating points they give, and the input files their configs name. */
    private record ExpandedCells(
            List<MatrixCell> cells, Map<String, OperatingPoint> operatingPoints, Set<String> inputPaths) {}

    /** Each combination as a cell of {@code replicates} runs, each run's config bound (and so validated). */
    private static ExpandedCells expand(
            ConfigTree base, List<Factor> fl, List<int[]> combos, int replicates, MatrixSpec.Expansion progress) {
        int width = Math.max(2, String.valueOf(combos.size()).length());
        ExpandedCells out = new ExpandedCells(new ArrayList<>(), new LinkedHashMap<>(), new LinkedHashSet<>());
        for (int ci = 0; ci < combos.size(); ci++) {
            int[] c = combos.get(ci);
            Map<String, String> labels = labels(fl, c);
            String id = cellId(ci + 1, width, labels.values());
            ConfigTree ct = base.copy();
            for (int d = 0; d < fl.size(); d++) fl.get(d).apply(ct, c[d]);
            OperatingPoint op = OperatingPoint.take(ct);
            if (op != null) out.operatingPoints().put(id, op);
            out.cells().add(new MatrixCell(ci, id, labels, runs(ct, id, ci, labels, replicates, out.inputPaths())));
            if ((ci + 1) % 256 == 0 || ci + 1 == combos.size()) progress.cells(ci + 1, combos.size());
        }
        return out;
    }

    /** A cell's replicates: replicate k runs with seed + k. */
    private static List<CellRun> runs(
            ConfigTree ct, String id, int ci, Map<String, String> labels, int replicates, Set<String> inputPaths) {
        RunConfig first = ct.bind();
        List<CellRun> runs = new ArrayList<>();
        for (int k = 0; k < replicates; k++) {
            long seed = first.seed() + k;
            RunConfig rc = first;
            ConfigTree rt = ct;
            if (k > 0) {
                rt = ct.copy().set("seed", NODES.numberNode(seed), "replicate " + k + " (seed + " + k + ")");
                rc = rt.bind();
            }
            ObjectNode tree = rt.tree();
            absolutePaths(tree, rc);
            InputFiles.collect(tree, inputPaths);
            runs.add(new CellRun(id, ci, labels, k, seed, rc.mode(), rc, tree));
        }
        return runs;
    }

    private static Map<String, List<String>> labelsByFactor(Map<String, Factor> factors) {
        Map<String, List<String>> labels = new LinkedHashMap<>();
        factors.forEach((k, f) -> labels.put(k, f.labels()));
        return labels;
    }

    /** The {@code capacity:} block (from the file, patched by {@code --set capacity.KEY}), or null without one. */
    private static CapacitySpec capacity(
            LocatedTree located,
            Overrides set,
            Map<String, Factor> factors,
            Map<String, List<String>> factorLabels,
            Map<String, List<String>> declaredLabels,
            List<MatrixCell> cells) {
        ObjectNode root = located.root();
        if (set.capacityNode() == null
                && !(root.has("capacity") && !root.get("capacity").isNull())) return null;
        JsonNode cn = set.capacityNode() != null ? set.capacityNode() : root.get("capacity");
        boolean inFile = root.get("capacity") instanceof ObjectNode;
        Map<String, String> capacityOrigins = set.capacityOrigins();
        CapacitySpec capacity = CapacityParser.parse(
                cn,
                ptr -> {
                    // the --set that gave this key or a mapping above it (capacity.cells={...}); else the file's line
                    for (String p = ptr; p.startsWith("/capacity/"); p = p.substring(0, p.lastIndexOf('/'))) {
                        String o = capacityOrigins.get(p);
                        if (o != null) return o;
                    }
                    if (!inFile && !capacityOrigins.isEmpty()) // no block in the file: the --set options made it
                    return String.join(", ", new LinkedHashSet<>(capacityOrigins.values()))
                                + " (the file has no capacity: block)";
                    String at = located.origin(ptr);
                    return at != null ? at : where(located, "/capacity");
                },
                factorLabels,
                declaredLabels,
                cells);
        for (Factor f : capacity == null ? List.<Factor>of() : factors.values())
            if (f.groups() != null && conflicts(capacity.knob(), f) && setsSearchedKnob(f, capacity))
                throw new BadInputException(where(located, "/capacity/knob") + ": capacity.knob " + capacity.knob()
                        + " is also set by the levels of factor '" + f.key() + "'; a capacity search varies it itself");
        return capacity;
    }

    /** The matrix file, every input file the cells' configs name (hashed), and the built-in inputs. */
    private static List<MatrixSpec.Input> inputs(Path file, Set<String> inputPaths) {
        List<MatrixSpec.Input> inputs = new ArrayList<>();
        if (file != null) inputs.add(InputFiles.hash(file));
        for (String p : inputPaths) {
            if (file != null && Path.of(p).equals(file)) continue;
            inputs.add(InputFiles.hash(Path.of(p)));
        }
        inputs.addAll(InputFiles.builtins());
        return inputs;
    }

    /** The matrix as resolved (factors' labels, named levels, exclusions, replicates, baseline, the options): the manifest's record. */
    private static ObjectNode resolved(
            ObjectNode root,
            String name,
            String description,
            Map<String, Factor> factors,
            int replicates,
            String baseline,
            List<String> appliedSets,
            Mode mode) {
        ObjectNode resolved = NODES.objectNode();
        resolved.put("name", name);
        if (description != null) resolved.put("description", description);
        ObjectNode rf = resolved.putObject("factors");
        factors.forEach((k, f) -> {
            ArrayNode a = rf.putArray(k);
            f.labels().forEach(a::add);
        });
        ObjectNode groups = namedLevels(factors);
        if (!groups.isEmpty()) resolved.set("named_levels", groups);
        if (root.has("exclude")) resolved.set("exclude", root.get("exclude").deepCopy());
        if (root.has("paper")) resolved.set("paper", root.get("paper").deepCopy());
        resolved.put("replicates", replicates);
        if (baseline != null) resolved.put("baseline", baseline);
        else resolved.putNull("baseline");
        ArrayNode sa = resolved.putArray("set");
        appliedSets.forEach(sa::add);
        if (mode != null) resolved.put("mode", mode.label());
        return resolved;
    }

    /** {@code bundle: {requests: all | capacity | none}}: what a capacity search's probes keep (docs/bundle-format.md). */
    private static ObjectNode bundleBlock(LocatedTree located) {
        JsonNode b = located.root().get("bundle");
        if (!(b instanceof ObjectNode bo))
            throw bad(located, "/bundle", "bundle: expected a mapping, e.g. {requests: capacity}");
        ObjectNode out = NODES.objectNode();
        for (var e : bo.properties()) {
            if (!e.getKey().equals("requests"))
                throw bad(
                        located,
                        "/bundle/" + esc(e.getKey()),
                        "bundle." + e.getKey() + ": unknown key (known: requests)");
            String v = e.getValue().isTextual() ? e.getValue().asText() : "";
            if (!dev.kvlab.harness.bundle.RequestsKept.LEVELS.contains(v))
                throw bad(
                        located,
                        "/bundle/requests",
                        "bundle.requests: '" + e.getValue().asText() + "' is not one of "
                                + String.join(", ", dev.kvlab.harness.bundle.RequestsKept.LEVELS));
            out.put("requests", v);
        }
        return out;
    }

    /** Per factor of named levels: each level's keys. */
    private static ObjectNode namedLevels(Map<String, Factor> factors) {
        ObjectNode groups = NODES.objectNode();
        factors.forEach((k, f) -> {
            if (f.groups() == null) return;
            ObjectNode g = groups.putObject(k);
            for (int i = 0; i < f.labels().size(); i++)
                g.set(f.labels().get(i), f.levels().get(i).deepCopy());
        });
        return groups;
    }

    /** The run config's paths as bound (absolute), so the manifest's trees re-bind anywhere. */
    private static void absolutePaths(ObjectNode tree, RunConfig rc) {
        if (rc.workload() != null && rc.workload().trace() != null && tree.get("workload") instanceof ObjectNode w)
            w.put("trace", rc.workload().trace());
        ArrayNode cat = tree.putArray("catalog");
        rc.catalog().forEach(cat::add);
    }

    private static String hash(
            String name, ObjectNode resolved, List<MatrixCell> cells, List<MatrixSpec.Input> inputs) {
        ObjectNode h = NODES.objectNode();
        h.put("name", name);
        h.set("factors", resolved.get("factors"));
        h.set("replicates", resolved.get("replicates"));
        h.set("baseline", resolved.get("baseline"));
        if (resolved.has("capacity")) h.set("capacity", resolved.get("capacity"));
        ArrayNode cs = h.putArray("cells");
        for (MatrixCell c : cells) {
            ObjectNode o = cs.addObject();
            o.put("cell", c.id());
            ArrayNode rs = o.putArray("runs");
            for (CellRun r : c.runs()) rs.add(r.tree());
        }
        ArrayNode in = h.putArray("inputs");
        for (MatrixSpec.Input i : inputs) in.add(i.sha256());
        try {
            byte[] bytes = dev.kvlab.harness.core.JsonOutput.mapper().writeValueAsBytes(h);
            return HexFormat.of()
                    .formatHex(
                            java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The capacity block as resolved (every key, defaults filled in): what the manifest records and the hash covers. */
    private static ObjectNode capacityJson(CapacitySpec c, int matrixReplicates) {
        ObjectNode o = NODES.objectNode();
        o.put("knob", c.knob());
        o.put("start", c.start());
        o.put("min", c.min());
        o.put("max", c.max());
        o.put("target_attainment", c.targetAttainment());
        o.put("rule", c.rule());
        o.put("precision", c.precision());
        o.put("max_probes", c.maxProbes());
        o.put("min_requests", c.minRequests());
        o.put("min_duration_s", c.minDurationSeconds());
        o.put("budget_s", c.budgetSeconds());
        o.put("early_stop", c.earlyStop());
        o.put("max_passes", c.maxPasses());
        int initial = c.replicates() > 0 ? c.replicates() : matrixReplicates;
        o.put("replicates", initial);
        o.put("max_replicates", c.replicateCap(initial));
        o.put("half_width", c.halfWidth());
        ObjectNode sel = o.putObject("cells");
        new java.util.TreeMap<>(c.cells()).forEach((k, v) -> {
            ArrayNode a = sel.putArray(k);
            new java.util.TreeSet<>(v).forEach(a::add);
        });
        return o;
    }

    /** A --set value typed as YAML would: a number when it reads as one. */
    private static JsonNode scalar(String v) {
        String t = v.strip();
        try {
            if (t.matches("[-+]?\\d+")) return NODES.numberNode(Long.parseLong(t));
            return NODES.numberNode(Double.parseDouble(t));
        } catch (NumberFormatException e) {
            return NODES.textNode(t);
        }
    }

    private static Map<String, String> labels(List<Factor> fl, int[] idx) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int d = 0; d < fl.size(); d++)
            m.put(fl.get(d).key(), fl.get(d).labels().get(idx[d]));
        return m;
    }

    /** {@code c<NN>-<levels joined by '_'>}, levels lower-cased with every character outside {@code [a-z0-9.-]} replaced by '-'. */
    public static String cellId(int number, int width, java.util.Collection<String> levels) {
        StringBuilder sb = new StringBuilder("c");
        String n = String.valueOf(number);
        sb.append("0".repeat(Math.max(0, width - n.length()))).append(n).append('-');
        if (levels.isEmpty()) return sb.append("base").toString();
        List<String> parts = new ArrayList<>();
        for (String l : levels) parts.add(sanitize(l));
        return sb.append(String.join("_", parts)).toString();
    }

    static String sanitize(String level) {
        String s = level.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
        return s.length() > 40 ? s.substring(0, 40) : s;
    }

    /** The text by which a level is named in cell ids, columns and rules. */
    public static String label(JsonNode v) {
        if (v == null || v.isNull()) return "null";
        if (v.isValueNode()) return v.asText();
        return v.toString();
    }

    private record Exclusion(Map<String, Set<String>> rule) {
        boolean matches(Map<String, String> labels) {
            for (var e : rule.entrySet()) if (!e.getValue().contains(labels.get(e.getKey()))) return false;
            return true;
        }
    }

    private static List<Exclusion> exclusions(LocatedTree t, Map<String, Factor> declared) {
        JsonNode ex = t.root().get("exclude");
        List<Exclusion> out = new ArrayList<>();
        if (ex == null || ex.isNull()) return out;
        if (!(ex instanceof ArrayNode arr))
            throw bad(
                    t,
                    "/exclude",
                    "exclude: expected a list of partial factor assignments, e.g. [{cache_state: cold, tiers: none}]");
        for (int i = 0; i < arr.size(); i++) {
            String ptr = "/exclude/" + i;
            if (!(arr.get(i) instanceof ObjectNode o) || o.isEmpty())
                throw bad(t, ptr, "exclude[" + i + "]: expected a mapping of factor -> level (or list of levels)");
            out.add(new Exclusion(assignment(t, ptr, o, declared, "exclude[" + i + "]")));
        }
        return out;
    }

    private static Map<String, Set<String>> assignment(
            LocatedTree t, String ptr, ObjectNode o, Map<String, Factor> declared, String what) {
        Map<String, Set<String>> rule = new LinkedHashMap<>();
        var it = o.fields();
        while (it.hasNext()) {
            var e = it.next();
            String kp = ptr + "/" + esc(e.getKey());
            Factor f = declared.get(e.getKey());
            if (f == null)
                throw bad(
                        t,
                        kp,
                        what + ": '" + e.getKey() + "' is not a factor of this matrix (factors: "
                                + String.join(", ", declared.keySet()) + ")");
            Set<String> vals = new LinkedHashSet<>();
            if (e.getValue() instanceof ArrayNode a) for (JsonNode v : a) vals.add(label(v));
            else vals.add(label(e.getValue()));
            for (String v : vals)
                if (!f.labels().contains(v))
                    throw bad(
                            t,
                            kp,
                            what + ": '" + v + "' is not a level of factor " + f.key() + " (levels: "
                                    + String.join(", ", f.labels()) + ")");
            rule.put(e.getKey(), vals);
        }
        return rule;
    }

    private static String baseline(
            LocatedTree t, List<MatrixCell> cells, Map<String, Factor> declared, Map<String, Factor> effective) {
        JsonNode b = t.root().get("baseline");
        if (b == null || b.isNull()) return noCacheCell(cells);
        boolean pinned = effective.values().stream().anyMatch(Factor::pinned);
        List<MatrixCell> match = new ArrayList<>();
        if (b.isTextual()) {
            for (MatrixCell c : cells) if (c.id().equals(b.asText())) match.add(c);
            if (match.isEmpty() && !pinned) {
                List<String> ids = cells.stream().map(MatrixCell::id).toList();
                throw bad(
                        t,
                        "/baseline",
                        "baseline: no cell '" + b.asText() + "' (cells: " + String.join(", ", ids) + ")");
            }
        } else if (b instanceof ObjectNode o && !o.isEmpty()) {
            Exclusion rule = new Exclusion(assignment(t, "/baseline", o, declared, "baseline"));
            for (MatrixCell c : cells) if (rule.matches(c.factors())) match.add(c);
            if (match.size() > 1)
                throw bad(
                        t,
                        "/baseline",
                        "baseline: matches " + match.size() + " cells ("
                                + match.get(0).id() + ", " + match.get(1).id()
                                + ", ...); give a level for every factor that varies");
            if (match.isEmpty() && !pinned) throw bad(t, "/baseline", "baseline: the cell it names is excluded");
        } else {
            throw bad(t, "/baseline", "baseline: expected a cell id or a mapping of factor -> level");
        }
        return match.isEmpty() ? null : match.get(0).id();
    }

    /**
     * The baseline of a matrix that names none: its one cell without a cache ({@code tiers: none}), so that a matrix
     * asking whether a cache helps gets the gain over no cache (paired by seed) without saying so; null when there is
     * no such cell or more than one (which of them is the baseline is the matrix's to say).
     */
    private static String noCacheCell(List<MatrixCell> cells) {
        List<MatrixCell> none = cells.stream()
                .filter(c -> Tiers.NONE.label().equals(c.factors().get(ConfigKeys.TIERS)))
                .toList();
        return none.size() == 1 ? none.getFirst().id() : null;
    }

    private static JsonNode parseValue(String value, String origin) {
        String v = value.strip();
        if (v.equals("null") || v.equals("~")) return NODES.nullNode();
        if (v.startsWith("[") || v.startsWith("{"))
            return LocatedTree.parse("v: " + v, origin).root().get("v");
        return NODES.textNode(value);
    }

    private static String text(LocatedTree t, String key, String def) {
        JsonNode n = t.root().get(key);
        if (n == null || n.isNull()) return def;
        if (!n.isValueNode() || n.asText().isBlank()) throw bad(t, "/" + key, key + ": expected a non-empty text");
        return n.asText();
    }

    private static int positiveInt(LocatedTree t, String ptr, JsonNode n, String what) {
        if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 1)
            throw bad(t, ptr, what + ": expected a whole number >= 1, got " + n);
        return n.asInt();
    }

    private static String where(LocatedTree t, String ptr) {
        String o = t.origin(ptr);
        return o == null ? "matrix" : o;
    }

    private static BadInputException bad(LocatedTree t, String ptr, String reason) {
        return new BadInputException(where(t, ptr) + ": " + reason);
    }

    private static String esc(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }
}
