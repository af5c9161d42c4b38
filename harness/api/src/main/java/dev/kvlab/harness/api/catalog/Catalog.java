package dev.kvlab.harness.api.catalog;

import dev.kvlab.harness.api.input.BadInputException;
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

    /**
     * The catalog of these models and hardware (by id, in order) read from {@code sources}; the catalog files are read
     * through the entry {@link dev.kvlab.harness.Catalogs} ({@code builtIn}, {@code load}).
     */
    public static Catalog of(Map<String, ModelSpec> models, Map<String, HardwareSpec> hardware, List<String> sources) {
        return new Catalog(new LinkedHashMap<>(models), new LinkedHashMap<>(hardware), sources);
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
        if (name == null || name.isBlank())
            throw new BadInputException("no model given (known: " + String.join(", ", models.keySet()) + ")");
        for (ModelSpec s : models.values()) if (s.answersTo(name)) return s;
        throw new BadInputException("unknown model '" + name + "' (known: " + String.join(", ", models.keySet()) + ")");
    }

    /** The hardware called {@code name}; {@link BadInputException} naming the known ones otherwise. */
    public HardwareSpec hardware(String name) {
        if (name == null || name.isBlank())
            throw new BadInputException("no hardware given (known: " + String.join(", ", hardware.keySet()) + ")");
        for (HardwareSpec s : hardware.values()) if (s.answersTo(name)) return s;
        throw new BadInputException(
                "unknown hardware '" + name + "' (known: " + String.join(", ", hardware.keySet()) + ")");
    }
}
