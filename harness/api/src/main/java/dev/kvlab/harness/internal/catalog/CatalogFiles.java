package dev.kvlab.harness.internal.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.catalog.AttentionCost;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvLoadCost;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.LocatedTree;
import dev.kvlab.harness.api.input.TreeBinder;
import dev.kvlab.transport.api.ByteSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Reads catalog YAML files (built-in resources and user files/directories) into a {@link Catalog}. */
public final class CatalogFiles {

    private static final String BASE = "/dev/kvlab/harness/catalog/";
    private static final TreeBinder BINDER = new TreeBinder();

    private CatalogFiles() {}

    /** How a hardware entry is written: sizes as text ({@code 80GB}). */
    record HardwareEntry(
            String id,
            String name,
            List<String> aliases,
            String source,
            double bf16Flops,
            Double fp8Flops,
            double hbmBandwidth,
            String hbmCapacity,
            double hostLinkBandwidth,
            double prefillMfu,
            double decodeBandwidthUtilization,
            AttentionCost attention,
            KvLoadCost kvLoad,
            dev.kvlab.harness.api.catalog.OutputRowsCost outputRows) {}

    /** The built-in catalog extended (and overridden by id) by {@code extra} YAML files or directories of them, in order. */
    public static Catalog load(List<Path> extra) {
        Map<String, ModelSpec> m = new LinkedHashMap<>();
        Map<String, HardwareSpec> h = new LinkedHashMap<>();
        List<String> sources = new ArrayList<>();
        builtIn(m, h, sources);
        for (Path p : extra) user(p, m, h, sources);
        return Catalog.of(m, h, sources);
    }

    /**
     * Adds the built-in catalog. Its resources are read and bound once per JVM (they cannot change while it runs;
     * the entries are immutable records): validation binds it for every cell of a matrix.
     */
    public static void builtIn(
            Map<String, ModelSpec> models, Map<String, HardwareSpec> hardware, List<String> sources) {
        models.putAll(BuiltIn.MODELS);
        hardware.putAll(BuiltIn.HARDWARE);
        sources.addAll(BuiltIn.SOURCES);
    }

    /** The parsed built-in resources (initialised on first use). */
    private static final class BuiltIn {
        static final Map<String, ModelSpec> MODELS;
        static final Map<String, HardwareSpec> HARDWARE;
        static final List<String> SOURCES;

        static {
            Map<String, ModelSpec> m = new java.util.LinkedHashMap<>();
            Map<String, HardwareSpec> h = new java.util.LinkedHashMap<>();
            List<String> s = new java.util.ArrayList<>();
            read(m, h, s);
            MODELS = java.util.Collections.unmodifiableMap(m);
            HARDWARE = java.util.Collections.unmodifiableMap(h);
            SOURCES = List.copyOf(s);
        }
    }

    private static void read(Map<String, ModelSpec> models, Map<String, HardwareSpec> hardware, List<String> sources) {
        for (String f : new String[] {"models.yaml", "hardware.yaml"}) {
            try (InputStream in = CatalogFiles.class.getResourceAsStream(BASE + f)) {
                if (in == null) throw new IllegalStateException("built-in catalog " + f + " is missing from the jar");
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                add(LocatedTree.parse(text, "catalog/" + f), models, hardware);
                sources.add("builtin:catalog/" + f);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Adds a user catalog: one YAML file, or every {@code *.yaml}/{@code *.yml} file of a directory in name order. */
    public static void user(
            Path path, Map<String, ModelSpec> models, Map<String, HardwareSpec> hardware, List<String> sources) {
        if (Files.isDirectory(path)) {
            List<Path> files;
            try (Stream<Path> s = Files.list(path)) {
                files = s.filter(p -> {
                            String n = p.getFileName().toString();
                            return Files.isRegularFile(p) && (n.endsWith(".yaml") || n.endsWith(".yml"));
                        })
                        .sorted()
                        .toList();
            } catch (IOException e) {
                throw new BadInputException(path + ": cannot list catalog directory: " + e.getMessage(), e);
            }
            if (files.isEmpty()) throw new BadInputException(path + ": catalog directory has no .yaml files");
            for (Path f : files) user(f, models, hardware, sources);
            return;
        }
        if (!Files.isRegularFile(path)) throw new BadInputException(path + ": no such catalog file or directory");
        add(LocatedTree.read(path), models, hardware);
        sources.add(path.toString());
    }

    static void add(LocatedTree tree, Map<String, ModelSpec> models, Map<String, HardwareSpec> hardware) {
        Iterator<String> names = tree.root().fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (!n.equals("models") && !n.equals("hardware"))
                throw new BadInputException(TreeBinder.where(tree, "/" + n) + ": unknown key '" + n
                        + "' (a catalog has: hardware, models)");
        }
        JsonNode ms = tree.root().path("models");
        if (!ms.isMissingNode() && !ms.isArray())
            throw new BadInputException(TreeBinder.where(tree, "/models") + ": 'models' must be a list");
        for (int i = 0; i < ms.size(); i++) {
            ModelSpec m = BINDER.bind(tree, "/models/" + i, ModelSpec.class);
            models.put(m.id(), m);
        }
        JsonNode hs = tree.root().path("hardware");
        if (!hs.isMissingNode() && !hs.isArray())
            throw new BadInputException(TreeBinder.where(tree, "/hardware") + ": 'hardware' must be a list");
        for (int i = 0; i < hs.size(); i++) {
            String ptr = "/hardware/" + i;
            HardwareEntry e = BINDER.bind(tree, ptr, HardwareEntry.class);
            try {
                if (e.hbmCapacity() == null) throw new IllegalArgumentException("hbm_capacity is missing");
                HardwareSpec h = new HardwareSpec(
                        e.id(),
                        e.name(),
                        e.aliases(),
                        e.source(),
                        e.bf16Flops(),
                        e.fp8Flops(),
                        e.hbmBandwidth(),
                        ByteSize.parse(e.hbmCapacity()),
                        e.hostLinkBandwidth(),
                        e.prefillMfu(),
                        e.decodeBandwidthUtilization(),
                        e.attention(),
                        e.kvLoad(),
                        e.outputRows());
                hardware.put(h.id(), h);
            } catch (IllegalArgumentException ex) {
                throw new BadInputException(TreeBinder.where(tree, ptr) + ": " + ex.getMessage(), ex);
            }
        }
    }
}
