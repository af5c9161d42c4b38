package dev.kvlab.harness.api.catalog;

import dev.kvlab.harness.api.input.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Models and hardware as data: the built-in YAML under {@code dev/kvlab/harness/catalog/} plus any user files
 * or directories (later entries with the same id replace earlier ones). Look-ups are case-insensitive and
 * accept ids, names and aliases. Immutable.
 */
public final class Catalog {

    private final Map<String, ModelSpec> models;
    private final Map<String, HardwareSpec> hardware;
    private final List<String> sources;

    private Catalog(Map<String, ModelSpec> models, Map<String, HardwareSpec> hardware, List<String> sources) {
        this.models = models;
        this.hardware = hardware;
        this.sources = List.copyOf(sources);
    }

    /** The catalog shipped with kvlab. */
    public static Catalog builtIn() {
        return load(List.of());
    }

    /** The built-in catalog extended (and overridden by id) by {@code extra} YAML files or directories of them, in order. */
    public static Catalog load(List<Path> extra) {
        Map<String, ModelSpec> m = new LinkedHashMap<>();
        Map<String, HardwareSpec> h = new LinkedHashMap<>();
        List<String> sources = new ArrayList<>();
        CatalogFiles.builtIn(m, h, sources);
        for (Path p : extra) CatalogFiles.user(p, m, h, sources);
        return new Catalog(m, h, sources);
    }

    public Collection<ModelSpec> models() {
        return List.copyOf(models.values());
    }

    public Collection<HardwareSpec> hardware() {
        return List.copyOf(hardware.values());
    }

    /** Files the catalog was read from. */
    public List<String> sources() {
        return sources;
    }

    /** The model called {@code name}; {@link BadInputException} naming the known ones otherwise. */
    public ModelSpec model(String name) {
        if (name == null || name.isBlank()) throw new BadInputException("no model given (known: " + String.join(", ", models.keySet()) + ")");
        for (ModelSpec s : models.values()) if (s.answersTo(name)) return s;
        throw new BadInputException("unknown model '" + name + "' (known: " + String.join(", ", models.keySet()) + ")");
    }

    /** The hardware called {@code name}; {@link BadInputException} naming the known ones otherwise. */
    public HardwareSpec hardware(String name) {
        if (name == null || name.isBlank()) throw new BadInputException("no hardware given (known: " + String.join(", ", hardware.keySet()) + ")");
        for (HardwareSpec s : hardware.values()) if (s.answersTo(name)) return s;
        throw new BadInputException("unknown hardware '" + name + "' (known: " + String.join(", ", hardware.keySet()) + ")");
    }
}
