package dev.kvlab.workloads.api;

/**
 * How a Mooncake JSONL trace is read.
 *
 * <p>Field policy: every line is one JSON object with exactly the Mooncake fields {@code timestamp} (ms from the
 * start of the trace, non-negative, non-decreasing; an integer or a decimal), {@code input_length} (integer
 * &gt;= 1), {@code output_length} (integer &gt;= 0: analysis does not need it, and prefill-only records exist) and {@code hash_ids} (array of integers, 64-bit signed or
 * unsigned, exactly {@code ceil(input_length / block_tokens)} of them), plus optionally kvlab's own fields
 * {@code session} (string), {@code namespace} (object with {@code model, kv_dtype, tp_layout, lora, tenant}) and
 * {@code block_tokens} (integer). Any other field is an error unless {@link #ignoreUnknownFields()} is set; a
 * duplicated field, an empty line, or anything after the object is always an error.
 *
 * @param blockTokens          tokens per block; 0 = take the line's {@code block_tokens}, else 512 (Mooncake's block
 *                             size). When set, a line whose {@code block_tokens} differs is an error.
 * @param ignoreUnknownFields  skip fields that are neither Mooncake's nor kvlab's instead of rejecting the line
 * @param maxLineBytes         longest accepted line in bytes (bounds memory on hostile input); 0 = {@link #DEFAULT_MAX_LINE_BYTES}
 */
public record TraceFormat(int blockTokens, boolean ignoreUnknownFields, int maxLineBytes) {

    /** Mooncake's block size. */
    public static final int MOONCAKE_BLOCK_TOKENS = 512;
    /** 8 MiB: a line of 8 MiB holds about a million hash ids. */
    public static final int DEFAULT_MAX_LINE_BYTES = 8 << 20;

    public TraceFormat {
        if (blockTokens < 0)
            throw new WorkloadFormatException("block_tokens must be >= 1 (or 0 for auto), got " + blockTokens);
        if (maxLineBytes < 0)
            throw new WorkloadFormatException(
                    "max line bytes must be >= 1 (or 0 for the default), got " + maxLineBytes);
        if (maxLineBytes == 0) maxLineBytes = DEFAULT_MAX_LINE_BYTES;
    }

    /** Strict Mooncake defaults: block size from the file or 512, unknown fields rejected. */
    public static TraceFormat defaults() {
        return new TraceFormat(0, false, 0);
    }

    public TraceFormat withBlockTokens(int tokens) {
        return new TraceFormat(tokens, ignoreUnknownFields, maxLineBytes);
    }

    public TraceFormat withIgnoreUnknownFields(boolean ignore) {
        return new TraceFormat(blockTokens, ignore, maxLineBytes);
    }

    public TraceFormat withMaxLineBytes(int bytes) {
        return new TraceFormat(blockTokens, ignoreUnknownFields, bytes);
    }
}
