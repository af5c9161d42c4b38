package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace record with {@code output_length: 0} (prefill only) is served: prefill still emits the first token. */
class PrefillOnlyRequestTest {

    @Test
    void prefillOnlyRecordsCompleteWithOneToken(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("t.jsonl");
        Files.writeString(trace, """
                {"timestamp": 0, "input_length": 600, "output_length": 0, "hash_ids": [1, 2]}
                {"timestamp": 10, "input_length": 600, "output_length": 4, "hash_ids": [1, 3]}
                {"timestamp": 20, "input_length": 100, "output_length": 0, "hash_ids": [4]}
                """);
        ConfigTree t = ConfigTree.load(dev.kvlab.workloads.testing.SourceTree.file("ablations/trace-replay.yaml"));
        t.set("workload.trace", trace.toString(), "test");
        CellResult r = new CellRunner().run(t.bind());
        assertThat(r.summary().get(Columns.REQUESTS)).isEqualTo(3);
        assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(3);
        assertThat(r.requests()).filteredOn(q -> q.id() != 1).allSatisfy(q -> {
            assertThat(q.ttftMs()).isPositive();
            assertThat(q.e2elMs()).isEqualTo(q.ttftMs());
        });
        assertThat(r.requests().stream().mapToInt(RequestRecord::outputTokens).sum())
                .isEqualTo(1 + 4 + 1);
    }
}
