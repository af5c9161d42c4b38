package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Columns;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Every column this module's registry holds (kvlab's own: no target is on this module's class path) is in docs/columns.md
 * once. That the file is exactly what the registry generates with every target's columns is checked where every target is
 * on the class path: the CLI's {@code dev.kvlab.harness.report.ColumnsDocWithEveryTargetTest}.
 */
class ColumnsDocTest {

    static Path docs() {
        return dev.kvlab.workloads.testing.SourceTree.file("docs/bundle-format.md")
                .resolveSibling("columns.md");
    }

    @Test
    void everyRegisteredColumnIsInDocsColumnsMdOnce() throws Exception {
        String doc = Files.readString(docs(), StandardCharsets.UTF_8);
        for (Column<?> c : Columns.all()) assertThat(doc).containsOnlyOnce("| `" + c.name() + "` |");
    }
}
