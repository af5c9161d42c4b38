package dev.kvlab.workloads.internal.trace;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.kvlab.workloads.api.BlockKeys;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;

/**
 * Writes requests as Mooncake JSONL lines plus kvlab's fields, in a fixed byte layout (so equal requests give
 * equal bytes). {@code hash_ids} are {@link BlockKeys#traceIdOf} the keys, so reading the line back in its
 * namespace gives the same keys; equal ids still mean reusable KV, so any Mooncake tool can analyse the file.
 */
public final class MooncakeTraceWriter {

    private MooncakeTraceWriter() {}

    /** One line, without the newline. */
    public static String line(Request r) {
        StringBuilder sb = new StringBuilder(96 + 22 * r.blockKeys().length);
        sb.append("{\"timestamp\": ")
                .append(formatMillis(r.arrivalNanos()))
                .append(", \"input_length\": ")
                .append(r.inputTokens())
                .append(", \"output_length\": ")
                .append(r.outputTokens())
                .append(", \"hash_ids\": [");
        Namespace ns = r.namespace();
        long digest = ns.digest();
        long[] keys = r.blockKeys();
        for (int i = 0; i < keys.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(Long.toUnsignedString(BlockKeys.traceIdOf(digest, keys[i])));
        }
        sb.append("], \"session\": ");
        quote(sb, r.session());
        sb.append(", \"namespace\": {\"model\": ");
        quote(sb, ns.model());
        sb.append(", \"kv_dtype\": ");
        quote(sb, ns.kvDtype());
        sb.append(", \"tp_layout\": ");
        quote(sb, ns.tpLayout());
        sb.append(", \"lora\": ");
        quote(sb, ns.lora());
        sb.append(", \"tenant\": ");
        quote(sb, ns.tenant());
        sb.append("}, \"block_tokens\": ").append(r.blockTokens()).append('}');
        return sb.toString();
    }

    /** Milliseconds with up to six decimals, no trailing zeros: 1500000 ns is {@code 1.5}. */
    public static String formatMillis(long nanos) {
        if (nanos < 0) throw new IllegalArgumentException("negative time: " + nanos + " ns");
        long ms = nanos / 1_000_000L;
        long frac = nanos % 1_000_000L;
        if (frac == 0) return Long.toString(ms);
        String f = Long.toString(frac + 1_000_000L).substring(1);
        int end = f.length();
        while (f.charAt(end - 1) == '0') end--;
        return ms + "." + f.substring(0, end);
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        JsonStringEncoder.getInstance().quoteAsString(s, sb);
        sb.append('"');
    }
}
