package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** A tensor element type as KV caches and weights are stored: its size in bytes. */
public enum Dtype {
    FP32(4),
    BF16(2),
    FP16(2),
    FP8(1);

    private final int bytes;

    Dtype(int bytes) {
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    @JsonValue
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Case-insensitive: {@code bf16}, {@code fp16}, {@code fp8} (also {@code float8}, {@code e4m3}), {@code fp32}. */
    @JsonCreator
    public static Dtype parse(String s) {
        if (s == null) throw new IllegalArgumentException("dtype is missing");
        return switch (s.strip().toLowerCase(Locale.ROOT)) {
            case "bf16", "bfloat16" -> BF16;
            case "fp16", "float16", "half" -> FP16;
            case "fp8", "float8", "e4m3", "fp8_e4m3", "e5m2", "fp8_e5m2" -> FP8;
            case "fp32", "float32" -> FP32;
            default -> throw new IllegalArgumentException("unknown dtype '" + s + "' (use bf16, fp16, fp8 or fp32)");
        };
    }
}
