package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A bundle's {@code capacity.json}: written by the capacity search ({@code CapacityResults.json}), found and
 * read back here by the report, {@code kvlab compare}, {@code kvlab run --json} and the demo (docs/bundle-format.md).
 */
public final class CapacityFile {

    public static final String NAME = "capacity.json";

    /** What the {@code undecided} flag says, in plain words (the table's legend and capacity.json). */
    public static final String UNDECIDED_MEANS =
            "undecided: at some load the SLO attainment was too close to the target to tell pass from fail, "
                    + "and the probe could not be made longer (a live probe, or a trace replayed once): the search took the measured attainment "
                    + "at face value there, so the capacity may be off by more than the precision. (A sim probe runs on a longer workload "
                    + "instead, up to max_passes times its requests; one still undecided then has its attainment equal to the target within "
                    + "its interval: it is the knee, and the search stops there with that load as the capacity, knee_probe in capacity.json.)";

    /** What the {@code wide} flag says at the default target (+-10%) with no replicates added (a bundle whose capacity.json has no {@code wide_means}). */
    public static final String WIDE_MEANS = wideMeans(0.10, false);

    /**
     * What the {@code wide} flag says: the capacity's 95% half-width is over {@code halfWidth} of it; with {@code added}
     * (capacity.max_replicates above the replicates a cell starts with), even after the cell got replicates up to that cap.
     */
    public static String wideMeans(double halfWidth, boolean added) {
        String pct = String.format(java.util.Locale.ROOT, "+-%.0f%%", 100 * halfWidth);
        return added
                ? "wide: the replicates disagree: the capacity's 95% interval is still wider than " + pct
                        + " of it after the cell got more "
                        + "replicates up to capacity.max_replicates (replicate_target in capacity.json): the data cannot give it to "
                        + pct
                        + " within that budget, so read it as a rough figure, not an answer"
                : "wide: the replicates disagree: the capacity's 95% interval is wider than " + pct + " of it; more "
                        + "replicates (capacity.max_replicates adds them where needed) or longer probes would narrow it, until then read it as a rough figure, not an answer";
    }

    /** What {@code vs_baseline.text} says (and the tables print) when the baseline cell was not searched. */
    public static final String NOT_SEARCHED = "baseline not searched";

    private CapacityFile() {}

    /**
     * The cell ids of every probe {@code capacity} lists: a probe's run names its last pass ({@code <probe>x<n>/r<k>}
     * when the sim ran it on a longer workload), and {@code extended_from} the passes before it ({@code <probe>},
     * {@code <probe>x2}, ...), each a cell of the bundle too. The bundle's other cells are its fixed-load cells.
     */
    public static Set<String> probeCells(JsonNode capacity) {
        Set<String> out = new HashSet<>();
        capacity.path("cells")
                .forEach(e -> e.path("probes").forEach(p -> {
                    String run = p.path("run").asText().replaceFirst("/r\\d+$", "");
                    String probe = run.replaceFirst("x\\d+$", "");
                    out.add(probe);
                    out.add(run);
                    for (JsonNode n : p.path("extended_from")) out.add(n.asInt() > 1 ? probe + "x" + n.asInt() : probe);
                }));
        return out;
    }

    /** Where {@code bundle} keeps it (whether or not its matrix searched a capacity). */
    public static Path in(Path bundle) {
        return bundle.resolve(NAME);
    }

    /** Whether {@code bundle}'s matrix searched a capacity. */
    public static boolean exists(Path bundle) {
        return Files.isRegularFile(in(bundle));
    }

    /** {@code bundle}'s capacity.json, or empty when its matrix searched no capacity. */
    public static Optional<JsonNode> read(Path bundle) throws IOException {
        return exists(bundle) ? Optional.of(BundleJson.read(in(bundle))) : Optional.empty();
    }
}
