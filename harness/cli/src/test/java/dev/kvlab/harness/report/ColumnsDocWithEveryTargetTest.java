package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Columns;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/columns.md is what the registry generates with every target the CLI ships (their declared columns included); every
 * column is in it once, the targets' own among them.
 */
class ColumnsDocWithEveryTargetTest {

    @Test
    void docsColumnsMdIsGeneratedFromTheRegistryWithEveryTarget() throws Exception {
        String want = ColumnsDoc.markdown();
        Path f = dev.kvlab.workloads.testing.SourceTree.file("docs/bundle-format.md")
                .resolveSibling("columns.md");
        if (!Files.isRegularFile(f)
                || !Files.readString(f, StandardCharsets.UTF_8).equals(want)) {
            Path fresh = Path.of("target/columns.md").toAbsolutePath();
            Files.createDirectories(fresh.getParent());
            Files.writeString(fresh, want, StandardCharsets.UTF_8);
            throw new AssertionError(f + " is not what the column registry generates: copy " + fresh + " over it");
        }
        for (Column<?> c : Columns.all()) assertThat(want).containsOnlyOnce("| `" + c.name() + "` |");
        // the targets' own columns are registered (declared in their modules, not in Columns)
        assertThat(Columns.named("prompt_words")).isPresent();
        assertThat(Columns.named("engine_calibrated_decode_ms_per_token")).isPresent();
        assertThat(Columns.rowExtras())
                .contains(Columns.named("harness_ttft_gap_p50_ms").orElseThrow());
        // with their merge rules, which kvlab merge (harness/bundle) applies to a request-split cell's shards
        assertThat(Columns.named("unsent_requests").orElseThrow().merge()).isEqualTo(Column.Merge.SUM);
    }
}
