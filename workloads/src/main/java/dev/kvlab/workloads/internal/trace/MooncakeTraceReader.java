package dev.kvlab.workloads.internal.trace;

import dev.kvlab.workloads.api.BlockKeys;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.NoSuchElementException;
import java.util.zip.GZIPInputStream;

/**
 * Streams a Mooncake JSONL trace as {@link Request}s, one line at a time: request {@code i} is line {@code i+1},
 * its keys are {@link BlockKeys#ofTraceId} of the line's {@code hash_ids} in its namespace (the line's
 * {@code namespace} field, else the reader's). Files ending in {@code .gz} are decompressed. Every defect is a
 * {@link WorkloadFormatException} naming {@code FILE:LINE}; nothing is skipped.
 */
public final class MooncakeTraceReader implements RequestSource {

    private final String file;
    private final InputStream in;
    private final LineScanner lines;
    private final TraceLineParser parser;
    private final FastLineParser fast = new FastLineParser();
    private final TraceLineParser.Line line = new TraceLineParser.Line();
    private final TraceFormat format;
    private final Namespace namespace;
    private Namespace lastNamespace;
    private long lastDigest;
    private long previousNanos = Long.MIN_VALUE;
    private long nextId;
    private Request pending;
    private boolean done;

    /** Reads {@code in}, naming it {@code file} in errors. Closes {@code in} on {@link #close()}. */
    public MooncakeTraceReader(InputStream in, String file, TraceFormat format, Namespace namespace) {
        this.file = file;
        this.in = in;
        this.format = format;
        this.namespace = namespace;
        this.lines = new LineScanner(in, file, format.maxLineBytes());
        this.parser = new TraceLineParser(file, format.ignoreUnknownFields());
    }

    /** Opens {@code path}; a missing or unreadable file is a {@link WorkloadFormatException}. */
    public static MooncakeTraceReader open(Path path, TraceFormat format, Namespace namespace) {
        String name = path.toString();
        InputStream in;
        try {
            if (Files.isDirectory(path)) throw new WorkloadFormatException(name + ": is a directory, not a trace file");
            in = Files.newInputStream(path);
            if (name.endsWith(".gz")) {
                try {
                    in = new GZIPInputStream(in, 1 << 16);
                } catch (IOException e) {
                    in.close();
                    throw new WorkloadFormatException(name + ": not a gzip file: " + e.getMessage());
                }
            }
        } catch (NoSuchFileException e) {
            throw new WorkloadFormatException(name + ": no such file");
        } catch (IOException e) {
            throw new WorkloadFormatException(name + ": cannot read: " + e.getMessage());
        }
        return new MooncakeTraceReader(in, name, format, namespace);
    }

    @Override
    public boolean hasNext() {
        if (pending != null) return true;
        if (done) return false;
        if (!lines.next()) {
            done = true;
            return false;
        }
        pending = toRequest();
        return true;
    }

    @Override
    public Request next() {
        if (!hasNext()) throw new NoSuchElementException("end of " + file);
        Request r = pending;
        pending = null;
        return r;
    }

    private Request toRequest() {
        long no = lines.lineNo();
        parser.at(no);
        if (!fast.parse(lines.bytes(), lines.length(), line)) parser.parse(lines.bytes(), lines.length(), no, line);
        if (line.timestampNanos < previousNanos) {
            throw parser.error("timestamp " + ms(line.timestampNanos) + " ms is before the previous line's "
                    + ms(previousNanos) + " ms (timestamps must be non-decreasing)");
        }
        previousNanos = line.timestampNanos;
        int blockTokens = format.blockTokens();
        if (blockTokens == 0) {
            blockTokens = line.blockTokens != 0 ? line.blockTokens : TraceFormat.MOONCAKE_BLOCK_TOKENS;
        } else if (line.blockTokens != 0 && line.blockTokens != blockTokens) {
            throw parser.error("block_tokens " + line.blockTokens + " in the line, but the trace is read with "
                    + blockTokens + " tokens per block (--block-tokens)");
        }
        long want = ((long) line.inputLength + blockTokens - 1) / blockTokens;
        if (line.hashIdCount != want) {
            throw parser.error("hash_ids has " + line.hashIdCount + " ids, but input_length " + line.inputLength
                    + " needs ceil(" + line.inputLength + " / " + blockTokens + ") = " + want);
        }
        Namespace ns = line.namespace != null ? line.namespace : namespace;
        if (ns != lastNamespace) {
            if (lastNamespace == null || !ns.equals(lastNamespace)) lastDigest = ns.digest();
            lastNamespace = ns;
        }
        long[] keys = new long[line.hashIdCount];
        for (int i = 0; i < keys.length; i++) keys[i] = BlockKeys.ofTraceId(lastDigest, line.hashIds[i]);
        long id = nextId++;
        String session = line.session != null ? line.session : "req-" + id;
        return new Request(
                id, line.timestampNanos, session, line.inputLength, line.outputLength, blockTokens, keys, ns);
    }

    private static String ms(long nanos) {
        return MooncakeTraceWriter.formatMillis(nanos);
    }

    @Override
    public String describe() {
        return "mooncake-trace " + file + (format.blockTokens() != 0 ? " block_tokens=" + format.blockTokens() : "");
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
