package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Columns;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/columns.md is what the registry generates; every column is in it once. */
class ColumnsDocTest {

    static Path docs() {
        return dev.kvlab.workloads.testing.SourceTree.file("docs/bundle-format.md").resolveSibling("columns.md");
    }

    @Test
    void docsColumnsMdIsGeneratedFromTheRegistry() throws Exception {
        String want = ColumnsDoc.markdown();
        Path f = docs();
        if (!Files.isRegularFile(f) || !Files.readString(f, StandardCharsets.UTF_8).equals(want)) {
            Path fresh = Path.of("target/columns.md").toAbsolutePath();
            Files.createDirectories(fresh.getParent());
            Files.writeString(fresh, want, StandardCharsets.UTF_8);
            throw new AssertionError(f + " is not what Columns generates: copy " + fresh + " over it");
        }
        for (Column<?> c : Columns.all()) assertThat(want).containsOnlyOnce("| `" + c.name() + "` |");
    }
}
