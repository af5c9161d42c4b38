package dev.kvlab.harness.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;

/** The cell runs a bundle holds, as an {@link Experiment} reads them: recorded files only, never memory of the process. */
public interface RunRecords {

    /** The recorded run's summary ({@code cell.json}'s {@code summary}: column → value), or null when it is not recorded. */
    JsonNode summary(CellRun run);

    /** Where the run's files are ({@code cells/<cell>/r<k>/}), recorded or not. */
    Path dir(CellRun run);

    default boolean recorded(CellRun run) {
        return summary(run) != null;
    }
}
