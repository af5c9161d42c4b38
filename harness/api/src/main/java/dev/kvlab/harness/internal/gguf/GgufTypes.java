package dev.kvlab.harness.internal.gguf;

/** GGUF value types and the ggml tensor types kvlab knows the size of (block size, bytes per block). */
final class GgufTypes {

    static final int MAGIC = 0x46554747; // "GGUF" read little-endian
    static final int VERSION = 3;
    static final int DEFAULT_ALIGNMENT = 32;

    static final int UINT8 = 0,
            INT8 = 1,
            UINT16 = 2,
            INT16 = 3,
            UINT32 = 4,
            INT32 = 5,
            FLOAT32 = 6,
            BOOL = 7,
            STRING = 8,
            ARRAY = 9,
            UINT64 = 10,
            INT64 = 11,
            FLOAT64 = 12;
    static final int GGML_F32 = 0, GGML_F16 = 1, GGML_Q8_0 = 8;

    private GgufTypes() {}

    /** Bytes of one scalar of value type {@code t}, or -1 (string, array, unknown). */
    static int scalarBytes(int t) {
        return switch (t) {
            case UINT8, INT8, BOOL -> 1;
            case UINT16, INT16 -> 2;
            case UINT32, INT32, FLOAT32 -> 4;
            case UINT64, INT64, FLOAT64 -> 8;
            default -> -1;
        };
    }

    /** {elements per block, bytes per block} of ggml tensor type {@code t}, or null when kvlab does not know it. */
    static int[] tensorBlock(int t) {
        return switch (t) {
            case 0 -> new int[] {1, 4}; // F32
            case 1 -> new int[] {1, 2}; // F16
            case 2 -> new int[] {32, 18}; // Q4_0
            case 3 -> new int[] {32, 20}; // Q4_1
            case 6 -> new int[] {32, 22}; // Q5_0
            case 7 -> new int[] {32, 24}; // Q5_1
            case 8 -> new int[] {32, 34}; // Q8_0
            case 10 -> new int[] {256, 84}; // Q2_K
            case 11 -> new int[] {256, 110}; // Q3_K
            case 12 -> new int[] {256, 144}; // Q4_K
            case 13 -> new int[] {256, 176}; // Q5_K
            case 14 -> new int[] {256, 210}; // Q6_K
            case 24 -> new int[] {1, 1}; // I8
            case 25 -> new int[] {1, 2}; // I16
            case 26 -> new int[] {1, 4}; // I32
            case 27 -> new int[] {1, 8}; // I64
            case 28 -> new int[] {1, 8}; // F64
            case 30 -> new int[] {1, 2}; // BF16
            default -> null;
        };
    }
}
