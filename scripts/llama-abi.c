/* Prints the sizes and field offsets of the llama.cpp structs that kvlab's FFM bindings pass by value, as
 * "struct.field=offset" and "struct=size" lines (a Java properties file). Compile against the pinned source:
 *   src=~/.cache/kvlab/llama.cpp/80fb11ac/src
 *   gcc -I$src/include -I$src/ggml/include scripts/llama-abi.c -o /tmp/llama-abi && /tmp/llama-abi
 * and compare with harness/targets/llama/src/main/resources/dev/kvlab/harness/llama/internal/abi.properties. */
#include <stddef.h>
#include <stdio.h>
#include "llama.h"

#define S(t) printf("%s=%zu\n", #t, sizeof(struct t))
#define F(t, f) printf("%s.%s=%zu\n", #t, #f, offsetof(struct t, f))

int main(void) {
    S(llama_model_params);
    F(llama_model_params, devices); F(llama_model_params, tensor_buft_overrides); F(llama_model_params, n_gpu_layers);
    F(llama_model_params, split_mode); F(llama_model_params, load_mode); F(llama_model_params, lazy_mode);
    F(llama_model_params, main_gpu); F(llama_model_params, tensor_split); F(llama_model_params, progress_callback);
    F(llama_model_params, progress_callback_user_data); F(llama_model_params, kv_overrides);
    F(llama_model_params, vocab_only); F(llama_model_params, check_tensors); F(llama_model_params, use_extra_bufts);
    F(llama_model_params, no_host); F(llama_model_params, no_alloc); F(llama_model_params, load_mtp);

    S(llama_context_params);
    F(llama_context_params, n_ctx); F(llama_context_params, n_batch); F(llama_context_params, n_ubatch);
    F(llama_context_params, n_seq_max); F(llama_context_params, n_rs_seq); F(llama_context_params, n_outputs_max);
    F(llama_context_params, n_outputs_max_per_seq); F(llama_context_params, n_threads);
    F(llama_context_params, n_threads_batch); F(llama_context_params, ctx_type);
    F(llama_context_params, rope_scaling_type); F(llama_context_params, pooling_type);
    F(llama_context_params, attention_type); F(llama_context_params, flash_attn_type);
    F(llama_context_params, rope_freq_base); F(llama_context_params, rope_freq_scale);
    F(llama_context_params, yarn_ext_factor); F(llama_context_params, yarn_attn_factor);
    F(llama_context_params, yarn_beta_fast); F(llama_context_params, yarn_beta_slow);
    F(llama_context_params, yarn_orig_ctx); F(llama_context_params, defrag_thold); F(llama_context_params, cb_eval);
    F(llama_context_params, cb_eval_user_data); F(llama_context_params, type_k); F(llama_context_params, type_v);
    F(llama_context_params, abort_callback); F(llama_context_params, abort_callback_data);
    F(llama_context_params, embeddings); F(llama_context_params, offload_kqv); F(llama_context_params, no_perf);
    F(llama_context_params, op_offload); F(llama_context_params, swa_full); F(llama_context_params, kv_unified);
    F(llama_context_params, samplers); F(llama_context_params, n_samplers); F(llama_context_params, ctx_other);

    S(llama_batch);
    F(llama_batch, n_tokens); F(llama_batch, token); F(llama_batch, embd); F(llama_batch, pos);
    F(llama_batch, n_seq_id); F(llama_batch, seq_id); F(llama_batch, logits);
    return 0;
}
