package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.RunConfig;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The tags of every point kvlab pushes for one cell × replicate: {@code run}, {@code cell}, {@code replicate},
 * {@code mode}, then every factor value. Factor keys become tag keys in snake_case ({@code workload.rate} →
 * {@code workload_rate}) so that InfluxQL can name them without quotes and Micrometer's naming convention leaves
 * them alone.
 */
public record CellTags(Map<String, String> tags) {

    public CellTags {
        tags = Collections.unmodifiableMap(new LinkedHashMap<>(tags));
    }

    /**
     * @param runId     the run id (bundle format)
     * @param cellId    the cell id
     * @param replicate replicate index
     * @param mode      {@code sim} or {@code live}
     * @param factors   factor key → value (the five standard factors at least)
     */
    public static CellTags of(String runId, String cellId, int replicate, String mode, Map<String, String> factors) {
        Map<String, String> t = new LinkedHashMap<>();
        t.put("run", runId);
        t.put("cell", cellId);
        t.put("replicate", Integer.toString(replicate));
        t.put("mode", mode);
        factors.forEach((k, v) -> t.putIfAbsent(key(k), v == null || v.isEmpty() ? "-" : v));
        return new CellTags(t);
    }

    /**
     * The tags of a cell × replicate of {@code config}: the five standard factors ({@code cache_state, tiers, policy,
     * transport, pd}) from the config, then the matrix's other factors.
     */
    public static CellTags of(
            String runId, String cellId, int replicate, RunConfig config, Map<String, String> factors) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put(ConfigKeys.CACHE_STATE, config.cacheState().label());
        f.put(ConfigKeys.TIERS, config.tiers().label());
        f.put(ConfigKeys.POLICY, config.policy().label());
        f.put(ConfigKeys.TRANSPORT, config.transport());
        f.put(ConfigKeys.PD, config.pd().label());
        factors.forEach(f::putIfAbsent);
        return of(runId, cellId, replicate, config.mode().label(), f);
    }

    /** A factor key as a tag key: lower case, every character outside {@code [a-z0-9_]} replaced by {@code _}. */
    public static String key(String factor) {
        String k = factor.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return k.equals("time") ? "time_" : k;
    }

    public String get(String key) {
        return tags.get(key);
    }
}
