package dev.kvlab.harness.api.gguf;

import dev.kvlab.harness.api.input.BadInputException;
import java.util.Locale;

/** How a synthesized model stores its 2-D weights (norms are always f32); with its GGUF {@code general.file_type}. */
public enum WeightType {
    /** IEEE half precision, 2 bytes a weight ({@code general.file_type} 1, MOSTLY_F16). */
    F16(1),
    /** Blocks of 32 weights: an f16 scale and 32 int8 (34 bytes; {@code general.file_type} 7, MOSTLY_Q8_0). */
    Q8_0(7);

    private final int fileType;

    WeightType(int fileType) {
        this.fileType = fileType;
    }

    public int fileType() {
        return fileType;
    }

    /** Bytes of {@code n} weights of this type ({@code n} a multiple of 32 for Q8_0). */
    public long bytes(long n) {
        return this == F16 ? 2 * n : n / 32 * 34;
    }

    /** {@code f16} or {@code q8_0} (case-insensitive). */
    public static WeightType parse(String s) {
        return switch (s == null ? "" : s.toLowerCase(Locale.ROOT)) {
            case "f16", "fp16" -> F16;
            case "q8_0", "q8" -> Q8_0;
            default -> throw new BadInputException("dtype '" + s + "': expected f16 or q8_0");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
