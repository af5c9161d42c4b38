package dev.kvlab.workloads.internal.trace;

import java.util.Arrays;

/**
 * A fast path for the canonical Mooncake line: one object with exactly {@code timestamp}, {@code input_length},
 * {@code output_length} and {@code hash_ids} (any order, optional {@code block_tokens}), plain integers, no escapes.
 * It accepts only a subset of what {@link TraceLineParser} accepts, with the same result; anything else (another
 * field, a decimal, a leading zero, a string, a syntax error...) returns false and the caller parses the line with
 * {@link TraceLineParser}, which gives the verdict and the error message. Range checks ({@code >= 1}) are left to
 * that slow path too: a line that fails them is never accepted here.
 */
final class FastLineParser {

    private static final byte[] TIMESTAMP = "timestamp".getBytes();
    private static final byte[] INPUT = "input_length".getBytes();
    private static final byte[] OUTPUT = "output_length".getBytes();
    private static final byte[] HASH_IDS = "hash_ids".getBytes();
    private static final byte[] BLOCK_TOKENS = "block_tokens".getBytes();

    private byte[] b;
    private int pos;
    private int end;
    private long number; // result of the last readLong

    /** Parses the line into {@code out}; false when the slow path must decide. */
    boolean parse(byte[] bytes, int len, TraceLineParser.Line out) {
        b = bytes;
        pos = 0;
        end = len;
        out.hashIdCount = 0;
        out.session = null;
        out.namespace = null;
        out.blockTokens = 0;
        int seen = 0;
        ws();
        if (!eat('{')) return false;
        while (true) {
            ws();
            if (!eat('"')) return false;
            int keyStart = pos;
            while (pos < end && b[pos] != '"') {
                if (b[pos] == '\\') return false;
                pos++;
            }
            if (pos >= end) return false;
            int keyEnd = pos++;
            ws();
            if (!eat(':')) return false;
            ws();
            int bit;
            if (is(keyStart, keyEnd, TIMESTAMP)) {
                bit = 1;
                if (!readLong(false) || number > Long.MAX_VALUE / 1_000_000L) return false;
                out.timestampNanos = number * 1_000_000L;
            } else if (is(keyStart, keyEnd, INPUT)) {
                bit = 2;
                if (!readPositiveInt()) return false;
                out.inputLength = (int) number;
            } else if (is(keyStart, keyEnd, OUTPUT)) {
                bit = 4;
                if (!readPositiveInt()) return false;
                out.outputLength = (int) number;
            } else if (is(keyStart, keyEnd, HASH_IDS)) {
                bit = 8;
                if (!readIds(out)) return false;
            } else if (is(keyStart, keyEnd, BLOCK_TOKENS)) {
                bit = 16;
                if (!readPositiveInt()) return false;
                out.blockTokens = (int) number;
            } else {
                return false;
            }
            if ((seen & bit) != 0) return false;
            seen |= bit;
            ws();
            if (eat(',')) continue;
            if (eat('}')) break;
            return false;
        }
        ws();
        return pos == end && (seen & 15) == 15;
    }

    private boolean readPositiveInt() {
        return readLong(false) && number >= 1 && number <= Integer.MAX_VALUE;
    }

    private boolean readIds(TraceLineParser.Line out) {
        if (!eat('[')) return false;
        ws();
        if (eat(']')) return true;
        while (true) {
            if (!readLong(true)) return false;
            if (out.hashIdCount == out.hashIds.length) out.hashIds = Arrays.copyOf(out.hashIds, out.hashIds.length * 2);
            out.hashIds[out.hashIdCount++] = number;
            ws();
            if (eat(',')) {
                ws();
                continue;
            }
            return eat(']');
        }
    }

    /** A JSON integer without fraction or exponent, no leading zeros, no {@code -0}, fitting a long. */
    private boolean readLong(boolean signed) {
        boolean neg = false;
        if (pos < end && b[pos] == '-') {
            if (!signed) return false;
            neg = true;
            pos++;
        }
        int start = pos;
        long v = 0;
        while (pos < end) {
            int d = b[pos] - '0';
            if (d < 0 || d > 9) break;
            if (pos - start >= 18) return false; // 19+ digits: let the slow path handle the range
            v = v * 10 + d;
            pos++;
        }
        int digits = pos - start;
        if (digits == 0) return false;
        if (b[start] == '0' && (digits > 1 || neg)) return false;
        if (pos < end && (b[pos] == '.' || b[pos] == 'e' || b[pos] == 'E')) return false;
        number = neg ? -v : v;
        return true;
    }

    private boolean is(int from, int to, byte[] name) {
        if (to - from != name.length) return false;
        for (int i = 0; i < name.length; i++) if (b[from + i] != name[i]) return false;
        return true;
    }

    private void ws() {
        while (pos < end) {
            byte c = b[pos];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') pos++;
            else return;
        }
    }

    private boolean eat(char c) {
        if (pos < end && b[pos] == c) {
            pos++;
            return true;
        }
        return false;
    }
}
