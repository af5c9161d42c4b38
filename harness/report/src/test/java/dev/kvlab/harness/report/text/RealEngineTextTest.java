package dev.kvlab.harness.report.text;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The real-engine demo's line over its runs: sums of means × replicates, and NaN where a cell did not report a figure. */
class RealEngineTextTest {

    private static String totals(String summary) throws Exception {
        StringWriter out = new StringWriter();
        try (PrintWriter w = new PrintWriter(out)) {
            RealEngineText.totals(w, new ObjectMapper().readTree(summary));
        }
        return out.toString();
    }

    private static String cell(int reps, String metrics) {
        return "{\"replicates\": " + reps + ", \"metrics\": {" + metrics + "}}";
    }

    @Test
    void sumsEveryRunAndSaysWhatItDoesNotKnow() throws Exception {
        String known =
                "\"completed\": {\"mean\": 10}, \"fallbacks\": {\"mean\": 1}, \"wrong_hits_used\": {\"mean\": 0},"
                        + " \"fetched_bytes\": {\"mean\": 2048}, \"fetched_tokens\": {\"mean\": 2}";
        assertThat(totals("{\"cells\": [" + cell(2, known) + ", " + cell(1, known) + "]}"))
                .contains(
                        "over its 3 runs: 30 requests completed, 3 blocks failed verification and were recomputed, 0 wrong hits used, "
                                + "1024.0 bytes moved per fetched token");
        String silent =
                "\"completed\": {\"mean\": 10}, \"fallbacks\": {\"mean\": 1}, \"fetched_tokens\": {\"mean\": 2}";
        assertThat(totals("{\"cells\": [" + cell(1, known) + ", " + cell(1, silent) + "]}"))
                .as("a cell without wrong hits or fetched bytes makes those totals unknown, not 0")
                .contains("NaN wrong hits used")
                .contains("NaN (a cell did not report its fetched bytes or tokens)");
        assertThat(totals("{\"cells\": ["
                        + cell(
                                1,
                                "\"completed\": {\"mean\": 4}, \"fallbacks\": {\"mean\": 0}, \"wrong_hits_used\": {\"mean\": 0},"
                                        + " \"fetched_bytes\": {\"mean\": 0}, \"fetched_tokens\": {\"mean\": 0}")
                        + "]}"))
                .contains("NaN (nothing fetched)");
    }
}
