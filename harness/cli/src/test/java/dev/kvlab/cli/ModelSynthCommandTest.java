package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvlab model synth} and {@code kvlab plan --gguf} through the CLI: the check shape, refusals with exit 2. */
class ModelSynthCommandTest {

    @TempDir
    Path dir;

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        var cl = Kvlab.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static JsonNode json(Run r) throws Exception {
        assertThat(r.code()).as(r.err()).isZero();
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    void checkShapeGives1024KvBytesPerTokenAtASmallVocab() throws Exception {
        Path m = dir.resolve("m.gguf");
        JsonNode w = json(run(
                "model",
                "synth",
                "--layers",
                "4",
                "--hidden",
                "256",
                "--heads",
                "8",
                "--kv-heads",
                "2",
                "--ff",
                "688",
                "--vocab",
                "1024",
                "--seed",
                "7",
                "--out",
                m.toString(),
                "--json"));
        assertThat(w.get("bytes").asLong()).isEqualTo(Files.size(m));
        JsonNode p = json(run("plan", "--gguf", m.toString(), "--json"));
        assertThat(p.get("kv_bytes_per_token").asLong()).isEqualTo(1024);
        assertThat(p.get("layers").asInt()).isEqualTo(4);
        assertThat(p.get("kv_heads").asInt()).isEqualTo(2);
        assertThat(p.get("head_dim").asInt()).isEqualTo(32);
        assertThat(p.get("hidden").asInt()).isEqualTo(256);
        assertThat(p.get("vocab").asInt()).isEqualTo(1024);
        assertThat(p.get("context_length").asLong()).isEqualTo(8192);
        assertThat(p.get("parameters").asLong()).isEqualTo(w.get("parameters").asLong());
        assertThat(p.get("sha256").asText()).isEqualTo(w.get("sha256").asText()).hasSize(64);
        assertThat(p.get("dtype").asText()).isEqualTo("fp16");
    }

    @Test
    void badShapeExits2AndWritesNothing() throws Exception {
        Path m = dir.resolve("bad.gguf");
        Run r = run(
                "model",
                "synth",
                "--layers",
                "4",
                "--hidden",
                "250",
                "--heads",
                "8",
                "--kv-heads",
                "3",
                "--ff",
                "688",
                "--out",
                m.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("hidden 250 is not divisible by heads 8");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
        assertThat(run(
                                "model",
                                "synth",
                                "--layers",
                                "2",
                                "--hidden",
                                "64",
                                "--heads",
                                "4",
                                "--kv-heads",
                                "2",
                                "--ff",
                                "96",
                                "--dtype",
                                "q4",
                                "--out",
                                m.toString())
                        .code())
                .isEqualTo(2);
        assertThat(run("model").code()).isEqualTo(2);
    }

    @Test
    void planGgufRefusesMixedOptionsAndBadFiles() throws Exception {
        Path m = dir.resolve("m.gguf");
        json(run(
                "model",
                "synth",
                "--layers",
                "2",
                "--hidden",
                "64",
                "--heads",
                "4",
                "--kv-heads",
                "2",
                "--ff",
                "96",
                "--vocab",
                "1024",
                "--out",
                m.toString(),
                "--json"));
        Run both = run("plan", "--gguf", m.toString(), "--model", "llama-3-8b");
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err()).contains("--gguf");
        assertThat(run("plan", "--gguf", m.toString(), "--layers", "2").code()).isEqualTo(2);
        Path junk = Files.writeString(dir.resolve("junk.gguf"), "{\"not\": \"a model\"}");
        Run bad = run("plan", "--gguf", junk.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains(junk.toString()).contains("not a GGUF file");
        assertThat(json(run("plan", "--gguf", m.toString(), "--dtype", "fp8", "--json"))
                        .get("kv_bytes_per_token")
                        .asLong())
                .isEqualTo(2L * 2 * 2 * 16);
    }

    /** The model is written as any file the user writes (not a temporary file's owner-only mode): other tools read it. */
    @Test
    void theModelIsReadableByOthersAsAnyFileTheUserWrites() throws Exception {
        Path m = dir.resolve("shared.gguf");
        json(run(
                "model",
                "synth",
                "--layers",
                "1",
                "--hidden",
                "64",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ff",
                "128",
                "--vocab",
                "1000",
                "--out",
                m.toString(),
                "--json"));
        var perms = Files.getPosixFilePermissions(m);
        assertThat(perms)
                .contains(
                        java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        // the process's umask decides the rest, as for a shell redirect; what a temporary file gets (0600) it must not
        // be
        Path probe = Files.createFile(dir.resolve("probe"));
        assertThat(perms).isEqualTo(Files.getPosixFilePermissions(probe));
    }

    /** An --out that cannot be written is bad input, named (exit 2), not an I/O failure that names a temporary file. */
    @Test
    void anOutThatCannotBeWrittenIsRefusedNamingIt() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Run r = run(
                "model",
                "synth",
                "--layers",
                "1",
                "--hidden",
                "64",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ff",
                "128",
                "--out",
                file.resolve("m.gguf").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--out " + file.resolve("m.gguf")).doesNotContain(".tmp");
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("a-file");
        }
    }

    /** {@code calibrate --engine --prefix-tokens} larger than the model's context takes is refused at once, naming the most it takes. */
    @Test
    void calibratePrefixTokensBeyondTheModelsContextIsRefused() throws Exception {
        Path m = dir.resolve("ctx.gguf"), tiny = dir.resolve("tiny.gguf");
        json(run(
                "model",
                "synth",
                "--layers",
                "1",
                "--hidden",
                "64",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ff",
                "128",
                "--vocab",
                "1000",
                "--context",
                "8192",
                "--out",
                m.toString(),
                "--json"));
        long t0 = System.nanoTime();
        Run r = run(
                "calibrate",
                "--engine",
                m.toString(),
                "--prefix-tokens",
                "99999",
                "--out",
                dir.resolve("e.yaml").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err())
                .contains("--prefix-tokens 99999")
                .contains("context is 8192 tokens")
                .contains("at most 4072");
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(10);
        json(run(
                "model",
                "synth",
                "--layers",
                "1",
                "--hidden",
                "64",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ff",
                "128",
                "--vocab",
                "1000",
                "--context",
                "40",
                "--out",
                tiny.toString(),
                "--json"));
        Run t = run(
                "calibrate",
                "--engine",
                tiny.toString(),
                "--out",
                dir.resolve("t.yaml").toString());
        assertThat(t.code()).isEqualTo(2);
        assertThat(t.err()).contains("too short to calibrate on");
        assertThat(dir.resolve("e.yaml")).doesNotExist();
    }
}
