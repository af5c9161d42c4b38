package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.MatrixSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * What a capacity search's probes keep of their request records ({@code bundle.requests} of the matrix file, stated in
 * the manifest's {@code bundle} section): {@code all}; {@code capacity} (the default: per searched cell, replicate 0's
 * run at its capacity and its first failing probe, {@code Experiment.requestsKept}; the other probes keep their
 * histograms and summary, which is all the search, {@code verify --rerun} and the summaries read); {@code none}. Decided once the searches have ended (a probe's
 * {@code requests.csv.gz} is written with it and dropped then), so a killed run resumes with every request it had.
 * Fixed-load runs (cells not searched) always keep their {@code requests.csv}.
 */
public final class RequestsKept {

    public static final List<String> LEVELS = List.of("all", "capacity", "none");
    public static final String DEFAULT = "capacity";

    private RequestsKept() {}

    /** The matrix's {@code bundle.requests}, or the default. */
    public static String level(MatrixSpec spec) {
        return spec.resolved().path("bundle").path("requests").asText(DEFAULT);
    }

    /**
     * Drops the {@code requests.csv.gz} of the probes among {@code runs} the level does not keep ({@code keep}: the
     * runs {@code capacity} keeps, null for every run) and returns the manifest's {@code bundle} section.
     */
    public static Section apply(Path bundle, MatrixSpec spec, List<CellRun> runs, Set<String> keep) throws IOException {
        String level = level(spec);
        int probes = 0, kept = 0;
        for (CellRun r : runs) {
            if (!CellFiles.probe(r.cell())) continue;
            probes++;
            boolean k = switch (level) {
                case "all" -> true;
                case "none" -> false;
                default -> keep == null || keep.contains(r.label());
            };
            if (k) {
                if (RunFiles.requestsFile(CellFiles.dir(bundle, r.cell(), r.replicate())) != null) kept++;
            } else CellFiles.dropRequests(bundle, r.cell(), r.replicate());
        }
        return new Section(
                level,
                !spec.resolved().path("bundle").has("requests"),
                probes,
                kept,
                "fixed-load runs: cells/<cell>/r<k>/<metric>.hlog, requests.csv, cell.json; capacity-search probes"
                        + " (cells/<cell>@<load>/r<k>/): run.hlog (one interval per metric over the measured phase, tagged with the metric;"
                        + " the run's record as its '#kvlab-cell' comment line) and requests.csv.gz where bundle.requests keeps them ("
                        + switch (level) {
                            case "all" -> "all: every probe";
                            case "none" -> "none: no probe";
                            default ->
                                keep == null
                                        ? "capacity, but this search's rule reads every probe's requests: every probe"
                                        : "capacity: per searched cell, replicate 0's run at its capacity and its first failing probe";
                        }
                        + ")");
    }

    /**
     * The manifest's {@code bundle} section.
     *
     * @param requests           the level ({@link #LEVELS})
     * @param requestsDefault    whether the matrix left it to the default
     * @param probes             capacity-search probes run
     * @param probesWithRequests of those, the ones that kept their {@code requests.csv.gz}
     * @param statement          what the bundle holds per run, in words
     */
    public record Section(
            String requests,
            @JsonProperty("requests_default") boolean requestsDefault,
            int probes,
            @JsonProperty("probes_with_requests") int probesWithRequests,
            String statement)
            implements ManifestSection {}
}
