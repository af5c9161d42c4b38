package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 26: an archive cut short (anywhere, even inside the gzip trailer) or corrupted is bad input naming the file, never "null". */
class TruncatedArchiveTest {

    @Test
    void aTruncatedOrCorruptArchiveIsNamedAsSuch(@TempDir Path t) throws Exception {
        Path bundle = t.resolve("run-1");
        Files.createDirectories(bundle.resolve("cells/c01/r0"));
        byte[] noise = new byte[300_000];
        new Random(1).nextBytes(noise);
        Files.write(bundle.resolve("cells/c01/r0/requests.csv"), noise);
        Files.writeString(bundle.resolve("manifest.json"), "{}");
        Path archive = BundleArchive.create(bundle, t.resolve("run-1.tar.gz"));
        byte[] all = Files.readAllBytes(archive);
        try (OpenedBundle ok = OpenedBundle.open(archive)) {
            assertThat(ok.dir().resolve("cells/c01/r0/requests.csv")).hasBinaryContent(noise);
        }
        for (int cut : new int[] {all.length / 2, all.length - 4, all.length - 1, 40}) {
            Path cutFile = t.resolve("cut-" + cut + ".tar.gz");
            Files.write(cutFile, Arrays.copyOf(all, cut));
            assertThatThrownBy(() -> OpenedBundle.open(cutFile).close())
                    .as("cut at %d of %d", cut, all.length)
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining(cutFile.toString())
                    .hasMessageContaining("truncated or corrupt")
                    .hasMessageNotContaining("null");
        }
        byte[] flipped = all.clone();
        flipped[all.length / 2] ^= 0x5a;
        Path bad = t.resolve("flipped.tar.gz");
        Files.write(bad, flipped);
        assertThatThrownBy(() -> OpenedBundle.open(bad).close())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(bad.toString());
    }
}
