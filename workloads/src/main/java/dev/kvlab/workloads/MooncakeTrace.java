package dev.kvlab.workloads;

import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.internal.trace.MooncakeTraceReader;
import dev.kvlab.workloads.internal.trace.MooncakeTraceWriter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;

/**
 * Mooncake JSONL traces: a streaming, strict reader (field policy in {@link TraceFormat}) and a writer whose output
 * reads back to equal {@link Request}s.
 *
 * <p>Reading: request {@code i} is line {@code i+1}; {@code arrivalNanos} is {@code timestamp} in ns; the block keys
 * are {@link BlockKeys#ofTraceId} of the {@code hash_ids} in the line's {@code namespace} (else the one given);
 * {@code session} is the line's, else {@code "req-<id>"}. A defect is a {@link WorkloadFormatException} naming
 * {@code FILE:LINE}, thrown from {@code hasNext()}/{@code next()} when the line is reached.
 *
 * <p>Writing: {@code {"timestamp": MS, "input_length": N, "output_length": M, "hash_ids": [...], "session": S,
 * "namespace": {...}, "block_tokens": B}}, one request per line, in a fixed layout: equal requests give equal
 * bytes. {@code hash_ids} are {@link BlockKeys#traceIdOf} the keys (unsigned decimal), so equal ids still mean
 * reusable KV and any Mooncake tool (or {@code kvlab analyze}) can analyse the file.
 */
public final class MooncakeTrace {

    private MooncakeTrace() {}

    /** Opens a trace file ({@code .gz} is decompressed); a missing file is a {@link WorkloadFormatException}. */
    public static RequestSource open(Path file, TraceFormat format, Namespace namespace) {
        return MooncakeTraceReader.open(file, format, namespace);
    }

    /** Reads a trace from a stream, naming it {@code name} in errors; closing the source closes the stream. */
    public static RequestSource read(InputStream in, String name, TraceFormat format, Namespace namespace) {
        return new MooncakeTraceReader(in, name, format, namespace);
    }

    /** The JSONL line of one request, without the newline. */
    public static String line(Request request) {
        return MooncakeTraceWriter.line(request);
    }

    /** Writes every remaining request as one line each (UTF-8, {@code \n}); returns how many. Does not close {@code out}. */
    public static long write(Iterator<Request> requests, OutputStream out) throws IOException {
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        long n = write(requests, w);
        w.flush();
        return n;
    }

    /** Writes every remaining request as one line each ({@code \n}); returns how many. Does not close {@code out}. */
    public static long write(Iterator<Request> requests, Writer out) throws IOException {
        long n = 0;
        while (requests.hasNext()) {
            out.write(MooncakeTraceWriter.line(requests.next()));
            out.write('\n');
            n++;
        }
        return n;
    }
}
