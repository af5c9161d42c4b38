package dev.kvlab.workloads.api;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Everything besides the tokens that decides whether KV can be reused: the same text under a different model,
 * KV dtype, tensor-parallel layout, LoRA adapter or tenant is different KV, so it is part of every block key.
 *
 * @param model    model name, e.g. {@code llama-3-8b}
 * @param kvDtype  KV cache dtype, e.g. {@code bf16}, {@code fp8}
 * @param tpLayout tensor-parallel layout, e.g. {@code tp1}, {@code tp8}
 * @param lora     LoRA adapter name, or {@code none}
 * @param tenant   tenant id, or {@code default}
 */
public record Namespace(String model, String kvDtype, String tpLayout, String lora, String tenant) {

    public Namespace {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(kvDtype, "kvDtype");
        Objects.requireNonNull(tpLayout, "tpLayout");
        Objects.requireNonNull(lora, "lora");
        Objects.requireNonNull(tenant, "tenant");
    }

    public static Namespace of(String model) {
        return new Namespace(model, "bf16", "tp1", "none", "default");
    }

    /** A stable 64-bit digest of all five fields (FNV-1a, field-separated, SplitMix-finalised); the root of every block chain. */
    public long digest() {
        long h = 0xcbf29ce484222325L;
        for (String f : new String[] {model, kvDtype, tpLayout, lora, tenant}) {
            for (byte b : f.getBytes(StandardCharsets.UTF_8)) {
                h ^= (b & 0xff);
                h *= 0x100000001b3L;
            }
            h ^= 0x1f;
            h *= 0x100000001b3L;
        }
        return BlockKeys.mix(h);
    }
}
