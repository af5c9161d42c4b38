package dev.kvlab.harness.api;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * The per-request records of one cell run, streamed as {@code requests.csv} rows to a file while the run goes
 * (a run's memory does not grow with its number of requests). Written on one thread (the run's loop); after
 * {@link #close()} the file is complete and {@link #forEach}/{@link #readAll()} read it back. The bundle moves
 * the file into the cell's directory ({@link #writeTo}). Records are held back and formatted {@value #BATCH} at a
 * time, or when {@link #writeHeld()} is called (the measurement does at every interval cut): a row formatted alone
 * once per request, between a live cell's idle waits, ran with cold caches and took 45 us of the loop thread (the
 * same row back to back: 2 us).
 */
public final class RequestLog implements AutoCloseable {

    private static final SecureRandom SEQ = new SecureRandom();

    private Path file;
    private boolean temporary;
    private BufferedWriter out;
    private final StringBuilder row = new StringBuilder(256);
    /** Records most held back before they are written. */
    static final int BATCH = 256;

    private final RequestRecord[] held = new RequestRecord[BATCH];
    private int heldCount;
    private long count;

    private RequestLog(Path file, boolean temporary) {
        this.file = file;
        this.temporary = temporary;
        try {
            out = new BufferedWriter(
                    new OutputStreamWriter(
                            Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                            StandardCharsets.UTF_8),
                    1 << 16);
            out.write(RequestRecord.CSV_HEADER);
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the request log " + file, e);
        }
    }

    /** A log in a new temporary file (deleted at exit unless it was moved into a bundle). */
    public static RequestLog temporary() {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        // a fresh name; the file is created by the log's writer (CREATE_NEW), with the usual permissions
        Path f = dir.resolve("kvlab-requests-" + Long.toUnsignedString(SEQ.nextLong(), 36) + ".csv");
        f.toFile().deleteOnExit();
        return new RequestLog(f, true);
    }

    /** Appends one record (a CSV row, written with the next batch). */
    public void add(RequestRecord r) {
        if (out == null) throw new IllegalStateException("request log " + file + " is closed");
        held[heldCount++] = r;
        count++;
        if (heldCount == BATCH) writeHeld();
    }

    /** Formats and writes the records held back (to the file's buffer). */
    public void writeHeld() {
        if (out == null) return;
        for (int i = 0; i < heldCount; i++) {
            write(held[i]);
            held[i] = null;
        }
        heldCount = 0;
    }

    private void write(RequestRecord r) {
        StringBuilder sb = row;
        sb.setLength(0);
        sb.append(r.id()).append(',');
        sb.append(Csv.field(r.session())).append(',');
        sb.append(r.arrivalMs()).append(',');
        sb.append(r.instance()).append(',');
        sb.append(r.inputTokens()).append(',');
        sb.append(r.outputTokens()).append(',');
        count(sb, r.localHitTokens());
        count(sb, r.remoteHitTokens());
        count(sb, r.fetchedBytes());
        count(sb, r.fallbackBlocks());
        sb.append(r.queueMs()).append(',');
        sb.append(r.fetchMs()).append(',');
        sb.append(r.ttftMs()).append(',');
        sb.append(r.tpotMs()).append(',');
        sb.append(r.tbtMs()).append(',');
        sb.append(r.e2elMs()).append(',');
        sb.append(r.good()).append(',');
        sb.append(Csv.field(r.status())).append('\n');
        try {
            out.append(sb);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the request log " + file, e);
        }
    }

    /** Records added. */
    public long count() {
        return count;
    }

    /** The file the rows are in (its place changes when {@link #writeTo} moved it). */
    public Path file() {
        return file;
    }

    /** Flushes and closes the file; idempotent. */
    @Override
    public void close() {
        if (out == null) return;
        try {
            writeHeld();
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the request log " + file, e);
        } finally {
            out = null;
        }
    }

    /**
     * Puts the complete file at {@code target} (which must not exist): the temporary file is renamed there the
     * first time (copied when the file systems differ), copied on later calls. Closes the log first.
     */
    public void writeTo(Path target) throws IOException {
        close();
        if (temporary) {
            try {
                Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(file, target);
            } catch (IOException e) {
                if (Files.exists(target)) throw e;
                Files.copy(file, target);
                Files.delete(file);
            }
            file = target;
            temporary = false;
        } else {
            Files.copy(file, target);
        }
    }

    /**
     * Puts the complete file gzip-compressed at {@code target} (which must not exist; deflate's default level: the best
     * is 0.7% smaller and twice as slow on request rows; no name or time in the header, so the same rows give the same bytes). Closes the log first; a temporary file is deleted after.
     */
    public void writeGzipTo(Path target) throws IOException {
        close();
        try (java.io.OutputStream o = Files.newOutputStream(target, java.nio.file.StandardOpenOption.CREATE_NEW);
                java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(o, 1 << 16)) {
            Files.copy(file, gz);
        }
        if (temporary) {
            Files.deleteIfExists(file);
            file = target;
            temporary = false;
        }
    }

    /** Reads the records back, in the order they were added, one at a time. Closes the log first. */
    public void forEach(Consumer<RequestRecord> each) {
        close();
        try (BufferedReader r = file.getFileName().toString().endsWith(".gz")
                ? new BufferedReader(new java.io.InputStreamReader(
                        new java.util.zip.GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))
                : Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = r.readLine();
            if (!RequestRecord.CSV_HEADER.equals(header))
                throw new IOException(file + ": not a requests.csv (header " + header + ")");
            String line;
            while ((line = r.readLine()) != null) {
                while (quotes(line) % 2 != 0) {
                    String more = r.readLine();
                    if (more == null) throw new IOException(file + ": unterminated quoted field");
                    line = line + "\n" + more;
                }
                if (!line.isEmpty()) each.accept(parse(Csv.parse(line).get(0)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the request log " + file, e);
        }
    }

    /** Every record, in memory: for small runs and tests (a long run's log is read with {@link #forEach}). */
    public List<RequestRecord> readAll() {
        List<RequestRecord> all = new ArrayList<>((int) Math.min(count, 1 << 20));
        forEach(all::add);
        return List.copyOf(all);
    }

    private static int quotes(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) == '"') n++;
        return n;
    }

    /** A count, or NaN for {@link RequestRecord#UNKNOWN} (a target that does not know it). */
    private static void count(StringBuilder sb, long n) {
        if (n == RequestRecord.UNKNOWN) sb.append("NaN,");
        else sb.append(n).append(',');
    }

    private static long count(String s) {
        return s.equals("NaN") ? RequestRecord.UNKNOWN : Long.parseLong(s);
    }

    private static RequestRecord parse(List<String> f) {
        if (f.size() != 18)
            throw new NoSuchElementException("a requests.csv row with " + f.size() + " fields (want 18)");
        return new RequestRecord(
                Long.parseLong(f.get(0)),
                f.get(1),
                Double.parseDouble(f.get(2)),
                Integer.parseInt(f.get(3)),
                Integer.parseInt(f.get(4)),
                Integer.parseInt(f.get(5)),
                count(f.get(6)),
                count(f.get(7)),
                count(f.get(8)),
                count(f.get(9)),
                Double.parseDouble(f.get(10)),
                Double.parseDouble(f.get(11)),
                Double.parseDouble(f.get(12)),
                Double.parseDouble(f.get(13)),
                Double.parseDouble(f.get(14)),
                Double.parseDouble(f.get(15)),
                Boolean.parseBoolean(f.get(16)),
                f.get(17));
    }
}
