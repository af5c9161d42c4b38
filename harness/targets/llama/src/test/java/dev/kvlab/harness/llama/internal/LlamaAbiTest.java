package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kvlab.harness.llama.api.EngineUnavailableException;
import java.io.IOException;
import java.io.StringReader;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class LlamaAbiTest {

    @Test
    void theBindingsLayoutsAgreeWithThePinnedHeaderFigures() {
        Map<String, Long> figures = LlamaAbi.pinnedFigures();
        for (StructLayout l : LlamaAbi.layouts())
            assertEquals(List.of(), LlamaAbi.mismatches(l, figures), l.name().orElseThrow());
        assertEquals(160, LlamaAbi.CONTEXT_PARAMS.byteSize());
        assertEquals(80, LlamaAbi.MODEL_PARAMS.byteSize());
        assertEquals(56, LlamaAbi.BATCH.byteSize());
    }

    @Test
    void aWrongLayoutIsRefusedWithTheFieldsNamed() {
        // llama_batch as an older header had it, without the embd pointer: every later field moves
        StructLayout old = MemoryLayout.structLayout(
                        JAVA_INT.withName("n_tokens"),
                        MemoryLayout.paddingLayout(4),
                        ADDRESS.withName("token"),
                        ADDRESS.withName("pos"),
                        ADDRESS.withName("n_seq_id"),
                        ADDRESS.withName("seq_id"),
                        ADDRESS.withName("logits"))
                .withName("llama_batch");
        List<String> bad = LlamaAbi.mismatches(old, LlamaAbi.pinnedFigures());
        assertTrue(bad.contains("llama_batch: size 48, the header says 56"), bad.toString());
        assertTrue(bad.contains("llama_batch.pos: offset 16, the header says 24"), bad.toString());
        assertTrue(bad.contains("llama_batch.embd: in the header, missing from the layout"), bad.toString());
        EngineUnavailableException e = assertThrows(
                EngineUnavailableException.class,
                () -> LlamaLibrary.checkLayouts(List.of(LlamaAbi.MODEL_PARAMS, old), LlamaAbi.pinnedFigures()));
        assertTrue(e.getMessage().contains("llama_batch.pos: offset 16, the header says 24"), e.getMessage());
        assertTrue(e.getMessage().contains(LlamaInstall.VERSION), e.getMessage());
    }

    @Test
    void aFieldTheHeaderLacksIsRefused() {
        Map<String, Long> figures = new TreeMap<>(LlamaAbi.pinnedFigures());
        figures.remove("llama_context_params.n_rs_seq");
        List<String> bad = LlamaAbi.mismatches(LlamaAbi.CONTEXT_PARAMS, figures);
        assertEquals(List.of("llama_context_params.n_rs_seq: not in the header"), bad);
    }

    /** Where gcc and the pinned source are here, the C program's figures today are the committed ones. */
    @Test
    void theCommittedFiguresAreWhatTheCompilerPrints() throws Exception {
        String cache = System.getenv().getOrDefault("KVLAB_CACHE", System.getProperty("user.home") + "/.cache/kvlab");
        Path src = Path.of(cache, "llama.cpp", LlamaInstall.COMMIT, "src");
        Path program = LlamaInstall.script().resolveSibling("llama-abi.c");
        skipUnlessCi(Files.isRegularFile(src.resolve("include/llama.h")), "no llama.cpp source at " + src);
        skipUnlessCi(Files.isRegularFile(program), "no " + program);
        Path exe = Files.createTempFile("llama-abi", "");
        try {
            Process cc;
            try {
                cc = new ProcessBuilder(
                                "gcc",
                                "-I" + src.resolve("include"),
                                "-I" + src.resolve("ggml/include"),
                                program.toString(),
                                "-o",
                                exe.toString())
                        .redirectErrorStream(true)
                        .start();
            } catch (IOException e) {
                skipUnlessCi(false, "no gcc: " + e.getMessage());
                return;
            }
            String ccOut = new String(cc.getInputStream().readAllBytes());
            assertEquals(0, cc.waitFor(), ccOut);
            Process run = new ProcessBuilder(exe.toString()).start();
            Properties p = new Properties();
            p.load(new StringReader(new String(run.getInputStream().readAllBytes())));
            assertEquals(0, run.waitFor());
            Map<String, Long> printed = new TreeMap<>();
            p.forEach((k, v) -> printed.put((String) k, Long.parseLong((String) v)));
            assertEquals(LlamaAbi.pinnedFigures(), printed);
        } finally {
            Files.deleteIfExists(exe);
        }
    }

    /** A visible skip with {@code reason} where the check cannot run here; with {@code KVLAB_CI=1} (where it must run) a failure. */
    private static void skipUnlessCi(boolean can, String reason) {
        if (can) return;
        if ("1".equals(System.getenv("KVLAB_CI")))
            throw new AssertionError("KVLAB_CI=1 and the ABI check cannot run: " + reason);
        Assumptions.abort(reason);
    }
}
