package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.api.ShardSplit;
import dev.kvlab.harness.api.run.RequestSplit;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code shard} section of a shard bundle's manifest (docs/bundle-format.md, "Shards"):
 *
 * <pre>
 * "shard": {"index": 1, "count": 2, "label": "1/2", "matrix_sha256": "&lt;the whole matrix's hash&gt;",
 *           "total_runs": 20, "all_runs": ["c00-cold_local-only_recompute/r0", ...], "runs": [the runs held]}
 * </pre>
 *
 * A shard bundle is otherwise an ordinary bundle of the runs it holds, whose {@code matrix.sha256} is
 * {@link Shard#sha256Of} the whole matrix's. For a capacity search the units are whole searches (one per searched
 * cell × replicate, named as the run it searches): the bundle holds every probe ({@code <cell>@<load>/r<k>}) of each.
 */
public final class ShardManifest {

    public static final String SECTION = "shard";

    /** What a shard's manifest says about it ({@code split} {@link ShardSplit#RUNS} for a section without one). */
    public record Info(Shard shard, ShardSplit split, String matrixSha256, List<String> allRuns, List<String> runs) {

        /** What the shard holds, in words ({@code kvlab verify}): its label, the matrix, and its runs or its share of every run's requests. */
        public String describe() {
            String what = "a shard: " + shard.label() + " of matrix " + matrixSha256.substring(0, 12) + ", ";
            return split == ShardSplit.REQUESTS
                    ? what + "split by requests: every " + shard.count() + "-th request of each of its "
                            + allRuns.size() + " runs (kvlab merge adds the shards into one cell per run)"
                    : what + runs.size() + " of its " + allRuns.size() + " runs (kvlab merge puts the shards together)";
        }
    }

    private ShardManifest() {}

    /**
     * The section for shard {@code shard} of a matrix with hash {@code matrixSha256} and runs {@code allRuns} (labels, in
     * order), split by {@code split}.
     */
    public static Section section(Shard shard, ShardSplit split, String matrixSha256, List<String> allRuns) {
        String load = split != ShardSplit.REQUESTS
                ? null
                : "every run's requests split over " + shard.count() + " hosts: this one sent positions i with i mod "
                        + shard.count() + " = " + (shard.index() - 1);
        return new Section(
                shard.index(),
                shard.count(),
                shard.label(),
                split.label(),
                load,
                matrixSha256,
                allRuns.size(),
                List.copyOf(allRuns),
                held(shard, split, allRuns));
    }

    /**
     * The {@value #SECTION} section as the manifest writes it.
     *
     * @param load what share of each run's requests the shard sent (a split by requests; null and absent otherwise)
     * @param runs the runs held (a split by requests: every run)
     */
    public record Section(
            int index,
            int count,
            String label,
            String split,
            @JsonInclude(JsonInclude.Include.NON_NULL) String load,
            @JsonProperty("matrix_sha256") String matrixSha256,
            @JsonProperty("total_runs") int totalRuns,
            @JsonProperty("all_runs") List<String> allRuns,
            List<String> runs)
            implements ManifestSection {}

    /** The runs {@code shard} holds: a share of the runs, or (split by requests) a share of every run's requests. */
    static List<String> held(Shard shard, ShardSplit split, List<String> allRuns) {
        if (split == ShardSplit.REQUESTS) return List.copyOf(allRuns);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < allRuns.size(); i++) if (shard.holds(i)) out.add(allRuns.get(i));
        return out;
    }

    /** The section of {@code manifest}, or null when it is not a shard's; malformed sections throw {@link IllegalArgumentException}. */
    public static Info read(JsonNode manifest) {
        JsonNode s = manifest.get(SECTION);
        if (s == null || s.isNull()) return null;
        if (!s.isObject()) throw new IllegalArgumentException("'shard' is not an object");
        if (!s.path("index").canConvertToInt() || !s.path("count").canConvertToInt())
            throw new IllegalArgumentException("shard: index/count missing");
        Shard sh = new Shard(s.get("index").asInt(), s.get("count").asInt());
        ShardSplit split = s.has("split") ? ShardSplit.parse(s.get("split").asText()) : ShardSplit.RUNS;
        String sha = s.path("matrix_sha256").asText("");
        if (!sha.matches("[0-9a-f]{64}")) throw new IllegalArgumentException("shard: matrix_sha256 is not a SHA-256");
        List<String> all = texts(s.get("all_runs"), "all_runs"), runs = texts(s.get("runs"), "runs");
        if (s.path("total_runs").asInt(-1) != all.size())
            throw new IllegalArgumentException("shard: total_runs is not the length of all_runs");
        return new Info(sh, split, sha, all, runs);
    }

    private static List<String> texts(JsonNode a, String name) {
        if (a == null || !a.isArray())
            throw new IllegalArgumentException("shard: '" + name + "' missing or not a list");
        List<String> out = new ArrayList<>();
        a.forEach(x -> out.add(x.asText()));
        return out;
    }

    /** Problems with the shard section of {@code manifest} (none when it has none). */
    static void check(JsonNode manifest, List<BundleVerifier.Problem> p) {
        String f = PartialBundle.MANIFEST;
        Info info;
        try {
            info = read(manifest);
        } catch (IllegalArgumentException e) {
            p.add(new BundleVerifier.Problem(f, e.getMessage()));
            return;
        }
        if (info == null) return;
        String sha = info.split() == ShardSplit.REQUESTS
                ? RequestSplit.sha256Of(info.shard(), info.matrixSha256())
                : info.shard().sha256Of(info.matrixSha256());
        if (!sha.equals(manifest.path("matrix").path("sha256").asText()))
            p.add(new BundleVerifier.Problem(
                    f,
                    "shard " + info.shard().label() + ": matrix.sha256 is not the hash of this shard of matrix "
                            + info.matrixSha256()));
        if (!held(info.shard(), info.split(), info.allRuns()).equals(info.runs()))
            p.add(new BundleVerifier.Problem(
                    f, "shard " + info.shard().label() + ": 'runs' are not the runs this shard holds of 'all_runs'"));
        boolean search = isSearch(manifest);
        List<String> inCells = new ArrayList<>();
        for (JsonNode c : manifest.path("cells"))
            for (JsonNode r : c.path("replicates")) {
                String label = baseCell(c.path("cell").asText(), search) + "/r"
                        + r.path("replicate").asInt();
                if (!search || !inCells.contains(label)) inCells.add(label);
            }
        boolean same = search
                ? new java.util.HashSet<>(inCells).equals(new java.util.HashSet<>(info.runs()))
                : inCells.equals(info.runs());
        if (!same)
            p.add(new BundleVerifier.Problem(
                    f,
                    "shard " + info.shard().label() + ": the manifest's cells hold " + inCells.size()
                            + (search ? " searches" : " runs") + ", not the shard's "
                            + info.runs().size()));
    }

    /** Whether {@code manifest} is a capacity search's: its units are whole searches, whose probes are cells {@code <cell>@<load>}. */
    public static boolean isSearch(JsonNode manifest) {
        JsonNode c = manifest.path("matrix").path("resolved").get("capacity");
        return c != null && c.isObject();
    }

    private static final java.util.regex.Pattern PROBE =
            java.util.regex.Pattern.compile("@[0-9][0-9.eE+-]*(x[0-9]+)?$");

    /** The searched cell a probe's cell id belongs to (the id itself when not a probe, or not a search). */
    public static String baseCell(String cell, boolean search) {
        return search ? PROBE.matcher(cell).replaceFirst("") : cell;
    }
}
