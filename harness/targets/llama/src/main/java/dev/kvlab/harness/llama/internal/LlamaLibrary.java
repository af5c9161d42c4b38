package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.kvlab.harness.llama.api.EngineUnavailableException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The pinned llama.cpp library loaded into this process: its version and struct layouts checked (a mismatch is
 * refused with the reason), the CPU backends registered from the install directory, its log captured
 * ({@link LlamaLog}), and a method handle per C function kvlab calls. Native libraries stay loaded for the life of
 * the process; a second instance reuses what the first registered.
 */
public final class LlamaLibrary {
    private static final Linker LINKER = Linker.nativeLinker();

    private final LlamaInstall install;
    private final SymbolLookup llama, ggml;
    final MethodHandle modelDefaultParams,
            contextDefaultParams,
            modelLoad,
            modelFree,
            initFromModel,
            free,
            modelGetVocab,
            modelNLayer,
            modelNEmbd,
            modelNHead,
            modelNHeadKv,
            vocabNTokens,
            vocabBos,
            vocabEos,
            tokenize,
            batchInit,
            batchFree,
            decode,
            getLogitsIth,
            getMemory,
            memorySeqRm,
            memorySeqCp,
            memoryClear,
            memorySeqPosMax,
            stateSeqGetSize,
            stateSeqGetData,
            stateSeqSetData,
            stateGetSize,
            stateGetData,
            stateSetData,
            systemInfo;

    private LlamaLibrary(LlamaInstall install) {
        this.install = install;
        Arena global = Arena.global();
        try {
            ggml = SymbolLookup.libraryLookup(install.dir().resolve(LlamaInstall.GGML), global);
            llama = SymbolLookup.libraryLookup(install.dir().resolve(LlamaInstall.LIBRARY), global);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            throw new EngineUnavailableException(
                    "llama.cpp library in " + install.dir() + " cannot be loaded: " + e.getMessage()
                            + (e instanceof IllegalCallerException
                                    ? " (run java with --enable-native-access=ALL-UNNAMED)"
                                    : ""),
                    e);
        }
        modelDefaultParams = fn(llama, "llama_model_default_params", FunctionDescriptor.of(LlamaAbi.MODEL_PARAMS));
        contextDefaultParams =
                fn(llama, "llama_context_default_params", FunctionDescriptor.of(LlamaAbi.CONTEXT_PARAMS));
        modelLoad =
                fn(llama, "llama_model_load_from_file", FunctionDescriptor.of(ADDRESS, ADDRESS, LlamaAbi.MODEL_PARAMS));
        modelFree = fn(llama, "llama_model_free", FunctionDescriptor.ofVoid(ADDRESS));
        initFromModel =
                fn(llama, "llama_init_from_model", FunctionDescriptor.of(ADDRESS, ADDRESS, LlamaAbi.CONTEXT_PARAMS));
        free = fn(llama, "llama_free", FunctionDescriptor.ofVoid(ADDRESS));
        modelGetVocab = fn(llama, "llama_model_get_vocab", FunctionDescriptor.of(ADDRESS, ADDRESS));
        modelNLayer = fn(llama, "llama_model_n_layer", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        modelNEmbd = fn(llama, "llama_model_n_embd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        modelNHead = fn(llama, "llama_model_n_head", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        modelNHeadKv = fn(llama, "llama_model_n_head_kv", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        vocabNTokens = fn(llama, "llama_vocab_n_tokens", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        vocabBos = fn(llama, "llama_vocab_bos", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        vocabEos = fn(llama, "llama_vocab_eos", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        tokenize = fn(
                llama,
                "llama_tokenize",
                FunctionDescriptor.of(
                        JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_BOOLEAN, JAVA_BOOLEAN));
        batchInit = fn(llama, "llama_batch_init", FunctionDescriptor.of(LlamaAbi.BATCH, JAVA_INT, JAVA_INT, JAVA_INT));
        batchFree = fn(llama, "llama_batch_free", FunctionDescriptor.ofVoid(LlamaAbi.BATCH));
        decode = fn(llama, "llama_decode", FunctionDescriptor.of(JAVA_INT, ADDRESS, LlamaAbi.BATCH));
        getLogitsIth = fn(llama, "llama_get_logits_ith", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        getMemory = fn(llama, "llama_get_memory", FunctionDescriptor.of(ADDRESS, ADDRESS));
        memorySeqRm = fn(
                llama,
                "llama_memory_seq_rm",
                FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
        memorySeqCp = fn(
                llama,
                "llama_memory_seq_cp",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        memoryClear = fn(llama, "llama_memory_clear", FunctionDescriptor.ofVoid(ADDRESS, JAVA_BOOLEAN));
        memorySeqPosMax = fn(llama, "llama_memory_seq_pos_max", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        stateSeqGetSize = fn(llama, "llama_state_seq_get_size", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT));
        stateSeqGetData = fn(
                llama,
                "llama_state_seq_get_data",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        stateSeqSetData = fn(
                llama,
                "llama_state_seq_set_data",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        stateGetSize = fn(llama, "llama_state_get_size", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        stateGetData = fn(llama, "llama_state_get_data", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
        stateSetData = fn(llama, "llama_state_set_data", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
        systemInfo = fn(llama, "llama_print_system_info", FunctionDescriptor.of(ADDRESS));
    }

    /** Locates (installing if needed), checks and loads the pinned library. */
    public static LlamaLibrary load() {
        return open(LlamaInstall.locate());
    }

    /** Loads the library in {@code install}: checks its struct layouts, captures its log, loads the CPU backends. */
    public static LlamaLibrary open(LlamaInstall install) {
        checkLayouts(LlamaAbi.layouts(), LlamaAbi.pinnedFigures());
        LlamaLibrary lib = new LlamaLibrary(install);
        lib.captureLog();
        lib.checkDefaults();
        lib.loadBackends();
        return lib;
    }

    /** Refuses layouts that differ from the header figures, naming every difference. */
    static void checkLayouts(List<StructLayout> layouts, Map<String, Long> figures) {
        List<String> bad = new ArrayList<>();
        for (StructLayout l : layouts) bad.addAll(LlamaAbi.mismatches(l, figures));
        if (!bad.isEmpty())
            throw new EngineUnavailableException(
                    "kvlab's llama.cpp struct layouts differ from the headers of " + LlamaInstall.COMMIT
                            + " (@node-llama-cpp/linux-x64@" + LlamaInstall.VERSION + "): " + String.join("; ", bad));
    }

    public LlamaInstall install() {
        return install;
    }

    /** The last error llama.cpp logged (empty if none), for exception messages. */
    public String lastError() {
        return LlamaLog.lastError();
    }

    /** {@code llama_print_system_info()}: the CPU features the loaded backend uses. */
    public String systemInfo() {
        try {
            return ((MemorySegment) systemInfo.invoke())
                    .reinterpret(Long.MAX_VALUE)
                    .getString(0)
                    .strip();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The defaults, read through kvlab's layouts, are the pinned release's values: a library whose structs moved
     * would read as other numbers here even when its sizes happen to match.
     */
    private void checkDefaults() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = (MemorySegment) modelDefaultParams.invoke((SegmentAllocator) a);
            MemorySegment c = (MemorySegment) contextDefaultParams.invoke((SegmentAllocator) a);
            List<String> bad = new ArrayList<>();
            expect(
                    bad,
                    "llama_model_params.n_gpu_layers",
                    m.get(JAVA_INT, off(LlamaAbi.MODEL_PARAMS, "n_gpu_layers")),
                    -1);
            expect(
                    bad,
                    "llama_model_params.use_extra_bufts",
                    m.get(JAVA_BOOLEAN, off(LlamaAbi.MODEL_PARAMS, "use_extra_bufts")) ? 1 : 0,
                    1);
            expect(bad, "llama_context_params.n_ctx", c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "n_ctx")), 512);
            expect(bad, "llama_context_params.n_batch", c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "n_batch")), 2048);
            expect(
                    bad,
                    "llama_context_params.n_ubatch",
                    c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "n_ubatch")),
                    512);
            expect(
                    bad,
                    "llama_context_params.n_seq_max",
                    c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "n_seq_max")),
                    1);
            expect(
                    bad,
                    "llama_context_params.n_outputs_max_per_seq",
                    c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "n_outputs_max_per_seq")),
                    1);
            expect(
                    bad,
                    "llama_context_params.flash_attn_type",
                    c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "flash_attn_type")),
                    -1);
            expect(bad, "llama_context_params.type_k", c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "type_k")), 1);
            expect(bad, "llama_context_params.type_v", c.get(JAVA_INT, off(LlamaAbi.CONTEXT_PARAMS, "type_v")), 1);
            expect(
                    bad,
                    "llama_context_params.swa_full",
                    c.get(JAVA_BOOLEAN, off(LlamaAbi.CONTEXT_PARAMS, "swa_full")) ? 1 : 0,
                    1);
            expect(
                    bad,
                    "llama_context_params.n_samplers",
                    (int) c.get(JAVA_LONG, off(LlamaAbi.CONTEXT_PARAMS, "n_samplers")),
                    0);
            if (!bad.isEmpty())
                throw new EngineUnavailableException(
                        "llama.cpp library in " + install.dir() + " does not match the pinned " + LlamaInstall.VERSION
                                + " struct layouts (defaults read as other values): " + String.join("; ", bad));
        } catch (EngineUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static void expect(List<String> bad, String field, int actual, int expected) {
        if (actual != expected) bad.add(field + " = " + actual + ", expected " + expected);
    }

    static long off(MemoryLayout layout, String field) {
        return layout.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    /** The CPU backend must be registered before a model loads; a second library handle in the process skips it. */
    private void loadBackends() {
        try (Arena a = Arena.ofConfined()) {
            MethodHandle byName = fn(ggml, "ggml_backend_reg_by_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
            MemorySegment cpu = (MemorySegment) byName.invoke(a.allocateFrom("CPU"));
            if (cpu.address() == 0) {
                MethodHandle loadAll = fn(ggml, "ggml_backend_load_all_from_path", FunctionDescriptor.ofVoid(ADDRESS));
                loadAll.invoke(a.allocateFrom(install.dir().toString()));
                cpu = (MemorySegment) byName.invoke(a.allocateFrom("CPU"));
            }
            if (cpu.address() == 0)
                throw new EngineUnavailableException(
                        "llama.cpp: no CPU backend loaded from " + install.dir() + " " + lastError());
            MethodHandle backendInit = fn(llama, "llama_backend_init", FunctionDescriptor.ofVoid());
            backendInit.invoke();
        } catch (EngineUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private void captureLog() {
        try {
            LlamaLog.install(fn(llama, "llama_log_set", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MethodHandle fn(SymbolLookup lookup, String name, FunctionDescriptor d) {
        MemorySegment addr = lookup.find(name)
                .orElseThrow(() -> new EngineUnavailableException(
                        "llama.cpp library has no symbol " + name + ": not the pinned " + LlamaInstall.VERSION));
        return LINKER.downcallHandle(addr, d);
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }
}
