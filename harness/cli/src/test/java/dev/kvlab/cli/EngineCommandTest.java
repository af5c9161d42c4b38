package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.llama.internal.LlamaInstall;
import dev.kvlab.harness.testsupport.TinyGguf;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kvlab engine check-restore} on a tiny random model; skipped with the reason where llama.cpp is unavailable. */
class EngineCommandTest {

    @TempDir
    Path tmp;

    final StringWriter out = new StringWriter(), err = new StringWriter();

    int run(String... args) {
        CommandLine cl = Kvlab.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    static void needLibrary() {
        try {
            LlamaInstall.locate();
        } catch (EngineUnavailableException e) {
            if ("1".equals(System.getenv("KVLAB_CI")))
                throw new AssertionError("KVLAB_CI=1 and llama.cpp is unavailable: " + e.getMessage());
            Assumptions.abort("llama.cpp library unavailable: " + e.getMessage());
        }
    }

    /** A tiny random model (seed 11) in the test's directory. */
    Path tinyModel() throws Exception {
        Path model = tmp.resolve("tiny.gguf");
        TinyGguf.write(model, TinyGguf.Shape.tiny(), 11);
        return model;
    }

    @Test
    void checkRestorePassesOnATinyModelAndPrintsTheLogitDifference() throws Exception {
        needLibrary();
        Path model = tinyModel();
        assertThat(run(
                        "engine",
                        "check-restore",
                        "--model",
                        model.toString(),
                        "--prompts",
                        "2",
                        "--tokens",
                        "8",
                        "--json"))
                .as(err.toString())
                .isZero();
        JsonNode j = new ObjectMapper().readTree(out.toString());
        assertThat(j.get("ok").asBoolean()).isTrue();
        assertThat(j.get("prompts")).hasSize(2);
        assertThat(j.get("same_split_logit_diff").asDouble()).isZero();
        assertThat(j.get("kv_bytes_per_token").asLong())
                .isEqualTo(TinyGguf.Shape.tiny().kvBytesPerToken());
    }

    /** {@code kvlab bench handover} runs real handovers end to end (each verified, or it fails) and gives every part's time. */
    @Test
    void benchHandoverTimesVerifiedHandoversPartByPart() throws Exception {
        needLibrary();
        Path model = tinyModel();
        assertThat(run(
                        "bench",
                        "handover",
                        "--model",
                        model.toString(),
                        "--tokens",
                        "40",
                        "--block-tokens",
                        "16",
                        "--transport",
                        "shm",
                        "--reps",
                        "3",
                        "--json"))
                .as(err.toString())
                .isZero();
        JsonNode j = new ObjectMapper().readTree(out.toString());
        long perToken = TinyGguf.Shape.tiny().kvBytesPerToken();
        assertThat(j.get("objects").asInt()).isEqualTo(3); // 16 + 16 + a tail of 8
        assertThat(j.get("bytes").asLong()).isGreaterThan(40 * perToken).isLessThan(40 * perToken + 3 * 64);
        for (String k : new String[] {"transfer_ms", "restore_ms", "raw_transfer_ms", "restore_path_ms"})
            assertThat(j.get(k).asDouble()).as(k).isPositive();
    }

    @Test
    void aFileThatIsNoModelExits2WithTheReason() throws Exception {
        needLibrary();
        Path bad = Files.writeString(tmp.resolve("bad.gguf"), "not a model");
        assertThat(run("engine", "check-restore", "--model", bad.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("bad.gguf").contains("cannot load");
        assertThat(run(
                        "engine",
                        "check-restore",
                        "--model",
                        tmp.resolve("none.gguf").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("no such readable file");
    }

    @Test
    void benchEngineRefusesBadSettingsByNameBeforeStartingAnything() throws Exception {
        Path model = Files.writeString(tmp.resolve("m.gguf"), "x");
        assertThat(run("bench", "engine", "--model", tmp.resolve("none.gguf").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--model").contains("none.gguf");
        assertThat(run("bench", "engine", "--model", model.toString(), "--flash-attn", "maybe"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--flash-attn").contains("maybe");
        assertThat(run("bench", "engine", "--model", model.toString(), "--sequences", "8", "--prompts", "4"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--prompts");
        assertThat(run("bench", "engine", "--model", model.toString(), "--low-rate", "0"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--low-rate");
    }
}
