package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.kvlab.harness.api.input.BadInputException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A GGUF model loaded by llama.cpp ({@code llama_model_load_from_file} with the default parameters: CPU, mmap),
 * its shape, and its vocabulary's tokenizer. Close it after its contexts.
 */
public final class LlamaModel implements AutoCloseable {
    private final LlamaLibrary lib;
    private final Path file;
    private MemorySegment model;
    private final MemorySegment vocab;

    private LlamaModel(LlamaLibrary lib, Path file, MemorySegment model) throws Throwable {
        this.lib = lib;
        this.file = file;
        this.model = model;
        this.vocab = (MemorySegment) lib.modelGetVocab.invoke(model);
    }

    /** Loads {@code file}; a missing, unreadable or unloadable file is bad input, with llama.cpp's reason. */
    public static LlamaModel load(LlamaLibrary lib, Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file))
            throw new BadInputException("--model " + file + ": no such readable file");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment params = (MemorySegment) lib.modelDefaultParams.invoke((SegmentAllocator) a);
            MemorySegment m = (MemorySegment) lib.modelLoad.invoke(a.allocateFrom(file.toString()), params);
            if (m.address() == 0)
                throw new BadInputException("--model " + file + ": llama.cpp cannot load it"
                        + (lib.lastError().isEmpty() ? "" : ": " + lib.lastError()));
            return new LlamaModel(lib, file, m);
        } catch (BadInputException e) {
            throw e;
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    public Path file() {
        return file;
    }

    public LlamaLibrary library() {
        return lib;
    }

    MemorySegment handle() {
        return live();
    }

    public int layers() {
        return intOf(lib.modelNLayer, live());
    }

    public int hidden() {
        return intOf(lib.modelNEmbd, live());
    }

    public int heads() {
        return intOf(lib.modelNHead, live());
    }

    public int kvHeads() {
        return intOf(lib.modelNHeadKv, live());
    }

    public int headDim() {
        return hidden() / heads();
    }

    public int vocabSize() {
        return intOf(lib.vocabNTokens, vocab);
    }

    public int bos() {
        return intOf(lib.vocabBos, vocab);
    }

    public int eos() {
        return intOf(lib.vocabEos, vocab);
    }

    /** KV bytes per token with an f16 cache: layers × 2 (K and V) × KV heads × head dim × 2 bytes. */
    public long kvBytesPerTokenF16() {
        return (long) layers() * 2 * kvHeads() * headDim() * 2;
    }

    /** {@code llama_tokenize}: the tokens of {@code text}, with the vocabulary's BOS first when {@code addSpecial}. */
    public int[] tokenize(String text, boolean addSpecial) {
        live();
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(utf8.length + 1L);
            MemorySegment.copy(utf8, 0, t, JAVA_BYTE, 0, utf8.length);
            int cap = utf8.length + 8;
            MemorySegment out = a.allocate(JAVA_INT, cap);
            int n = (int) lib.tokenize.invoke(vocab, t, utf8.length, out, cap, addSpecial, false);
            if (n < 0) {
                cap = -n;
                out = a.allocate(JAVA_INT, cap);
                n = (int) lib.tokenize.invoke(vocab, t, utf8.length, out, cap, addSpecial, false);
            }
            if (n < 0) throw new IllegalStateException("llama_tokenize failed (" + n + ")");
            return out.asSlice(0, (long) n * 4).toArray(JAVA_INT);
        } catch (Throwable th) {
            throw LlamaLibrary.rethrow(th);
        }
    }

    /** A new context on this model. */
    public LlamaContext newContext(LlamaContext.Options options) {
        return LlamaContext.create(this, options);
    }

    private MemorySegment live() {
        if (model == null) throw new IllegalStateException("model " + file + " is closed");
        return model;
    }

    private static int intOf(MethodHandle h, MemorySegment p) {
        try {
            return (int) h.invoke(p);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    @Override
    public void close() {
        if (model == null) return;
        try {
            lib.modelFree.invoke(model);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        } finally {
            model = null;
        }
    }
}
