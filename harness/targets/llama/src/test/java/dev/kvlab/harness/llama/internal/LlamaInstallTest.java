package dev.kvlab.harness.llama.internal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kvlab.harness.llama.api.EngineUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LlamaInstallTest {

    @Test
    void anotherPackageVersionIsRefusedWithBothVersions(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(LlamaInstall.LIBRARY), "not a library");
        Files.writeString(
                dir.resolve("package.json"), "{\"name\": \"@node-llama-cpp/linux-x64\", \"version\": \"3.20.0\"}");
        EngineUnavailableException e = assertThrows(EngineUnavailableException.class, () -> LlamaInstall.verify(dir));
        assertTrue(
                e.getMessage().contains("version 3.20.0") && e.getMessage().contains(LlamaInstall.VERSION),
                e.getMessage());
    }

    @Test
    void aLibraryWithAnotherDigestIsRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(LlamaInstall.LIBRARY), "not a library");
        Files.writeString(dir.resolve("package.json"), "{\"version\": \"" + LlamaInstall.VERSION + "\"}");
        EngineUnavailableException e = assertThrows(EngineUnavailableException.class, () -> LlamaInstall.verify(dir));
        assertTrue(
                e.getMessage().contains("SHA-256") && e.getMessage().contains(LlamaInstall.LIBRARY_SHA256),
                e.getMessage());
    }

    @Test
    void aDirectoryWithoutTheLibraryIsRefused(@TempDir Path dir) {
        EngineUnavailableException e = assertThrows(EngineUnavailableException.class, () -> LlamaInstall.verify(dir));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }
}
