package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.report.ReportFixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ReportCommandTest {

    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {}

    static Run kvlab(String... args) {
        CommandLine cl = Kvlab.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void reRendersAndRefreshesTheManifestSoEveryChecksumMatches() throws Exception {
        Path bundle = ReportFixtures.finishedSmoke(tmp);
        Files.delete(bundle.resolve("report.html"));
        Run r = kvlab("report", bundle.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().strip().lines().reduce((a, b) -> b).orElseThrow()).isEqualTo(bundle.resolve("report.html").toAbsolutePath().toString());
        assertThat(bundle.resolve("report.html")).isRegularFile();
        JsonNode m = new ObjectMapper().readTree(bundle.resolve("manifest.json").toFile());
        Set<String> listed = new HashSet<>();
        for (JsonNode f : m.get("files")) {
            Path p = bundle.resolve(f.get("path").asText());
            assertThat(p).isRegularFile();
            assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p))))
                    .as(f.get("path").asText()).isEqualTo(f.get("sha256").asText());
            assertThat(Files.size(p)).isEqualTo(f.get("bytes").asLong());
            listed.add(f.get("path").asText());
        }
        try (Stream<Path> s = Files.walk(bundle)) {
            Set<String> present = new HashSet<>(s.filter(Files::isRegularFile).map(p -> bundle.relativize(p).toString())
                    .filter(p -> !p.equals("manifest.json")).toList());
            assertThat(listed).isEqualTo(present);
        }
        assertThat(listed).contains("report.html", "plots/ttft-p50-p99.svg");
        // the rest of the manifest is untouched
        assertThat(m.get("run_id").asText()).isEqualTo(bundle.getFileName().toString());
        assertThat(m.get("command_line").toString()).contains("<redacted>");
    }

    @Test
    void badBundlesExitTwoAndWriteNothing() throws Exception {
        Run missing = kvlab("report", tmp.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("nope");
        Files.createDirectories(tmp.resolve("empty"));
        Run empty = kvlab("report", tmp.resolve("empty").toString());
        assertThat(empty.exit()).isEqualTo(2);
        assertThat(empty.err()).contains("summary.json");
        try (Stream<Path> s = Files.list(tmp.resolve("empty"))) {
            assertThat(s.toList()).isEmpty();
        }
        Files.writeString(tmp.resolve("b.tar.gz"), "x");
        assertThat(kvlab("report", tmp.resolve("b.tar.gz").toString()).exit()).isEqualTo(2);
        assertThat(kvlab("report").exit()).isEqualTo(2);
    }
}
