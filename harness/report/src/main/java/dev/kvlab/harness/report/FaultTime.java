package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.bundle.RunFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * When a cell's fault struck, in seconds into its measured phase, as the run measured it ({@code fault_at_s} of its
 * first replicate's summary); null when unknown or it never struck. Not {@code fault_at} of the config: that is the
 * share of the measured arrivals before the strike, not a time.
 */
final class FaultTime {

    private static final ObjectMapper JSON = new ObjectMapper();

    private FaultTime() {}

    static Double of(CellData cell) {
        return of(summary(cell));
    }

    /** The strike in a summary already read ({@link #summary}), null when unknown or it never struck. */
    static Double of(JsonNode summary) {
        JsonNode at = summary.path("fault_at_s");
        return at.isNumber() && Double.isFinite(at.asDouble()) ? at.asDouble() : null;
    }

    /** The first replicate's summary (cell.json, or the run's record in a compact probe's run.hlog), missing when there is none. */
    static JsonNode summary(CellData cell) {
        if (cell.replicateDirs().isEmpty()) return JSON.missingNode();
        Path d = cell.replicateDirs().getFirst();
        try {
            return RunFiles.recorded(d) ? RunFiles.cellJson(d).path("summary") : JSON.missingNode();
        } catch (IOException e) {
            return JSON.missingNode();
        }
    }
}
