package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 26, the doubtful cases decided: each is bad input, exit 2 with one line saying why, before anything runs. */
class DoubtfulInputsTest {

    @Test
    void anEmptyTraceIsRefusedByAnalyzeAsByRun(@TempDir Path dir) throws Exception {
        Path empty = Files.createFile(dir.resolve("empty.jsonl"));
        BenchTransportCommandTest.assertBadInput("no requests (an empty trace)", "analyze", empty.toString());
        BenchTransportCommandTest.assertBadInput("no requests (an empty trace)", "analyze", empty.toString(), "--json");
    }

    @Test
    void mergeIntoAFileIsNotADirectory(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("existing"), "x");
        BenchTransportCommandTest.assertBadInput(
                "is not a directory", "merge", dir.resolve("no-shard").toString(), "--out", file.toString());
        assertThat(Files.readString(file)).isEqualTo("x");
    }

    @Test
    void benchMasterRefusesAWindowTooShortToMeanAnything() {
        BenchTransportCommandTest.assertBadInput(
                "--duration must be at least 100ms",
                "bench",
                "master",
                "--op",
                "put",
                "--duration",
                "1ms",
                "--jit-wait",
                "0s");
    }
}
