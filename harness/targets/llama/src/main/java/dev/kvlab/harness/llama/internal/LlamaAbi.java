package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The C structs kvlab passes to llama.cpp by value, as {@link MemoryLayout}s written from the pinned release's
 * {@code include/llama.h}, and their check against the sizes and offsets a C compiler printed for that release
 * ({@code abi.properties}, from {@code scripts/llama-abi.c}).
 */
public final class LlamaAbi {
    private LlamaAbi() {}

    public static final StructLayout MODEL_PARAMS = MemoryLayout.structLayout(
                    ADDRESS.withName("devices"),
                    ADDRESS.withName("tensor_buft_overrides"),
                    JAVA_INT.withName("n_gpu_layers"),
                    JAVA_INT.withName("split_mode"),
                    JAVA_INT.withName("load_mode"),
                    JAVA_INT.withName("lazy_mode"),
                    JAVA_INT.withName("main_gpu"),
                    MemoryLayout.paddingLayout(4),
                    ADDRESS.withName("tensor_split"),
                    ADDRESS.withName("progress_callback"),
                    ADDRESS.withName("progress_callback_user_data"),
                    ADDRESS.withName("kv_overrides"),
                    JAVA_BOOLEAN.withName("vocab_only"),
                    JAVA_BOOLEAN.withName("check_tensors"),
                    JAVA_BOOLEAN.withName("use_extra_bufts"),
                    JAVA_BOOLEAN.withName("no_host"),
                    JAVA_BOOLEAN.withName("no_alloc"),
                    JAVA_BOOLEAN.withName("load_mtp"),
                    MemoryLayout.paddingLayout(2))
            .withName("llama_model_params");

    public static final StructLayout CONTEXT_PARAMS = MemoryLayout.structLayout(
                    JAVA_INT.withName("n_ctx"),
                    JAVA_INT.withName("n_batch"),
                    JAVA_INT.withName("n_ubatch"),
                    JAVA_INT.withName("n_seq_max"),
                    JAVA_INT.withName("n_rs_seq"),
                    JAVA_INT.withName("n_outputs_max"),
                    JAVA_INT.withName("n_outputs_max_per_seq"),
                    JAVA_INT.withName("n_threads"),
                    JAVA_INT.withName("n_threads_batch"),
                    JAVA_INT.withName("ctx_type"),
                    JAVA_INT.withName("rope_scaling_type"),
                    JAVA_INT.withName("pooling_type"),
                    JAVA_INT.withName("attention_type"),
                    JAVA_INT.withName("flash_attn_type"),
                    JAVA_FLOAT.withName("rope_freq_base"),
                    JAVA_FLOAT.withName("rope_freq_scale"),
                    JAVA_FLOAT.withName("yarn_ext_factor"),
                    JAVA_FLOAT.withName("yarn_attn_factor"),
                    JAVA_FLOAT.withName("yarn_beta_fast"),
                    JAVA_FLOAT.withName("yarn_beta_slow"),
                    JAVA_INT.withName("yarn_orig_ctx"),
                    JAVA_FLOAT.withName("defrag_thold"),
                    ADDRESS.withName("cb_eval"),
                    ADDRESS.withName("cb_eval_user_data"),
                    JAVA_INT.withName("type_k"),
                    JAVA_INT.withName("type_v"),
                    ADDRESS.withName("abort_callback"),
                    ADDRESS.withName("abort_callback_data"),
                    JAVA_BOOLEAN.withName("embeddings"),
                    JAVA_BOOLEAN.withName("offload_kqv"),
                    JAVA_BOOLEAN.withName("no_perf"),
                    JAVA_BOOLEAN.withName("op_offload"),
                    JAVA_BOOLEAN.withName("swa_full"),
                    JAVA_BOOLEAN.withName("kv_unified"),
                    MemoryLayout.paddingLayout(2),
                    ADDRESS.withName("samplers"),
                    JAVA_LONG.withName("n_samplers"),
                    ADDRESS.withName("ctx_other"))
            .withName("llama_context_params");

    public static final StructLayout BATCH = MemoryLayout.structLayout(
                    JAVA_INT.withName("n_tokens"),
                    MemoryLayout.paddingLayout(4),
                    ADDRESS.withName("token"),
                    ADDRESS.withName("embd"),
                    ADDRESS.withName("pos"),
                    ADDRESS.withName("n_seq_id"),
                    ADDRESS.withName("seq_id"),
                    ADDRESS.withName("logits"))
            .withName("llama_batch");

    /** The three layouts above. */
    public static List<StructLayout> layouts() {
        return List.of(MODEL_PARAMS, CONTEXT_PARAMS, BATCH);
    }

    /** The figures the C compiler printed for the pinned release: {@code struct=size}, {@code struct.field=offset}. */
    public static Map<String, Long> pinnedFigures() {
        Properties p = new Properties();
        try (InputStream in = LlamaAbi.class.getResourceAsStream("abi.properties")) {
            if (in == null) throw new IllegalStateException("abi.properties missing from the classpath");
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Long> m = new TreeMap<>();
        p.forEach((k, v) -> m.put((String) k, Long.parseLong(((String) v).trim())));
        return m;
    }

    /**
     * Where {@code layout} (named after its C struct) differs from {@code figures}: its size, a field at another
     * offset, a field the figures have and the layout lacks or the other way round. Empty when they agree.
     */
    public static List<String> mismatches(StructLayout layout, Map<String, Long> figures) {
        String struct = layout.name().orElseThrow(() -> new IllegalArgumentException("an unnamed layout"));
        List<String> out = new ArrayList<>();
        Long size = figures.get(struct);
        if (size == null) return List.of(struct + ": no figures for this struct");
        if (size != layout.byteSize()) out.add(struct + ": size " + layout.byteSize() + ", the header says " + size);
        List<String> named = new ArrayList<>();
        for (MemoryLayout member : layout.memberLayouts()) {
            if (member.name().isEmpty()) continue;
            String field = member.name().get();
            named.add(field);
            Long expected = figures.get(struct + "." + field);
            long actual = layout.byteOffset(MemoryLayout.PathElement.groupElement(field));
            if (expected == null) out.add(struct + "." + field + ": not in the header");
            else if (expected != actual)
                out.add(struct + "." + field + ": offset " + actual + ", the header says " + expected);
        }
        for (String key : figures.keySet()) {
            if (key.startsWith(struct + ".") && !named.contains(key.substring(struct.length() + 1)))
                out.add(key + ": in the header, missing from the layout");
        }
        return out;
    }
}
