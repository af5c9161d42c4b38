package dev.kvlab.harness.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.experiments.api.Heartbeat;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** A run that prints nothing for a while still says what it is doing. */
class HeartbeatTest {

    @Test
    void saysTheStatusAfterAQuietSpellAndNotWhileLinesFlow() throws Exception {
        StringWriter text = new StringWriter();
        PrintWriter err = new PrintWriter(text);
        try (Heartbeat hb = new Heartbeat(err, 0.2)) {
            hb.status("expanding and validating the matrix: 512 of 100,000 cells");
            long until = System.nanoTime() + 10_000_000_000L;
            while (!text.toString().contains("512 of 100,000") && System.nanoTime() < until) Thread.sleep(20);
        }
        assertThat(text.toString()).startsWith("kvlab: expanding and validating the matrix: 512 of 100,000 cells (");

        StringWriter quiet = new StringWriter();
        try (Heartbeat hb = new Heartbeat(new PrintWriter(quiet), 5)) {
            for (int i = 0; i < 10; i++) {
                hb.printed();
                Thread.sleep(20);
            }
        }
        assertThat(quiet.toString()).as("lines flowed: nothing added").isEmpty();
    }
}
