package dev.kvlab.harness;

import dev.kvlab.harness.api.catalog.BreakevenQuery;
import dev.kvlab.harness.api.catalog.BreakevenReport;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.KvPlan;
import dev.kvlab.harness.api.catalog.PlanQuery;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.internal.catalog.CatalogFiles;
import java.nio.file.Path;
import java.util.List;

/**
 * The model and hardware catalog read from its files: the built-in YAML under {@code dev/kvlab/harness/catalog/} plus
 * any user files or directories (later entries with the same id replace earlier ones); and the questions that read it.
 */
public final class Catalogs {

    private Catalogs() {}

    /** The catalog shipped with kvlab. */
    public static Catalog builtIn() {
        return load(List.of());
    }

    /**
     * The built-in catalog extended (and overridden by id) by {@code extra} YAML files or directories of them, in order;
     * a missing, unreadable or malformed file is a {@link BadInputException} naming it (and the key, FILE:LINE).
     */
    public static Catalog load(List<Path> extra) {
        return CatalogFiles.load(extra);
    }

    /** {@code kvlab plan}'s answer ({@link PlanQuery#plan}), the catalog read from the query's files when it names a model or hardware. */
    public static KvPlan plan(PlanQuery query) {
        return query.plan(() -> load(query.catalogs()));
    }

    /** {@code kvlab plan --gguf}'s answer ({@link PlanQuery#plan(GgufModelInfo, java.util.function.Supplier)}). */
    public static KvPlan plan(PlanQuery query, GgufModelInfo info) {
        return query.plan(info, () -> load(query.catalogs()));
    }

    /** {@code kvlab breakeven}'s answer ({@link BreakevenQuery#report}), the catalog read from the query's files. */
    public static BreakevenReport breakeven(BreakevenQuery query) {
        return query.report(() -> load(query.catalogs()));
    }
}
