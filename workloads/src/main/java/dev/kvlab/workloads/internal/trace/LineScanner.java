package dev.kvlab.workloads.internal.trace;

import dev.kvlab.workloads.api.WorkloadFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Splits a byte stream into lines ({@code \n}, with an optional {@code \r} before it) without decoding, and
 * refuses lines longer than a bound, so that hostile input cannot make it buffer without limit.
 */
final class LineScanner {

    private final InputStream in;
    private final String file;
    private final int maxLineBytes;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private int lim;
    private boolean eof;
    private byte[] line = new byte[1 << 12];
    private int lineLen;
    private long lineNo;

    LineScanner(InputStream in, String file, int maxLineBytes) {
        this.in = in;
        this.file = file;
        this.maxLineBytes = maxLineBytes;
    }

    /** Reads the next line; false at the end of the input. */
    boolean next() {
        lineLen = 0;
        boolean any = false;
        while (true) {
            if (pos == lim) {
                if (!fill()) {
                    if (!any) return false;
                    break; // last line without a newline
                }
            }
            any = true;
            int nl = indexOfNewline(buf, pos, lim);
            int end = nl < 0 ? lim : nl;
            append(buf, pos, end - pos);
            pos = end;
            if (nl >= 0) {
                pos++;
                break;
            }
        }
        lineNo++;
        if (lineLen > 0 && line[lineLen - 1] == '\r') lineLen--;
        return true;
    }

    byte[] bytes() {
        return line;
    }

    int length() {
        return lineLen;
    }

    /** 1-based number of the line last returned by {@link #next()}. */
    long lineNo() {
        return lineNo;
    }

    private void append(byte[] src, int off, int n) {
        if (n == 0) return;
        long want = (long) lineLen + n;
        if (want > maxLineBytes) {
            throw new WorkloadFormatException(file, lineNo + 1, "line longer than " + maxLineBytes + " bytes");
        }
        if (want > line.length) {
            line = Arrays.copyOf(line, (int) Math.min(maxLineBytes, Math.max(want, 2L * line.length)));
        }
        System.arraycopy(src, off, line, lineLen, n);
        lineLen += n;
    }

    private static int indexOfNewline(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) if (b[i] == '\n') return i;
        return -1;
    }

    private boolean fill() {
        if (eof) return false;
        try {
            int n = in.read(buf, 0, buf.length);
            while (n == 0) n = in.read(buf, 0, buf.length);
            if (n < 0) {
                eof = true;
                return false;
            }
            pos = 0;
            lim = n;
            return true;
        } catch (java.util.zip.ZipException | java.io.EOFException e) {
            throw new WorkloadFormatException(file, lineNo + 1, "corrupt compressed input: " + e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(file + ":" + (lineNo + 1) + ": read failed: " + e.getMessage(), e);
        }
    }
}
