package dev.kvlab.workloads.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.workloads.MooncakeTrace;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of the trace reader (issue 8 asks for them; Jazzer fuzzes the same entry point): arbitrary bytes give
 * requests or a {@link WorkloadFormatException} naming a line, never another exception; written requests read
 * back equal.
 */
class TraceParserPropertiesTest {

    static final Namespace NS = Namespace.of("m");
    static final String VALID =
            "{\"timestamp\": 5, \"input_length\": 1100, \"output_length\": 7, \"hash_ids\": [1, 2, 3]}\n";

    /** Reads everything; returns the number of requests, or throws only WorkloadFormatException. */
    static int readAll(byte[] bytes, TraceFormat format) {
        int n = 0;
        try (RequestSource s = MooncakeTrace.read(new ByteArrayInputStream(bytes), "fuzz.jsonl", format, NS)) {
            while (s.hasNext()) {
                s.next();
                n++;
            }
        }
        return n;
    }

    static void onlyFormatErrors(byte[] bytes, TraceFormat format) {
        try {
            readAll(bytes, format);
        } catch (WorkloadFormatException e) {
            assertThat(e.getMessage()).startsWith("fuzz.jsonl:");
            assertThat(e.line()).isPositive();
        }
    }

    @Property(tries = 1000)
    void arbitraryBytesGiveRequestsOrAFormatError(@ForAll("bytes") byte[] bytes) {
        onlyFormatErrors(bytes, TraceFormat.defaults());
        onlyFormatErrors(
                bytes, TraceFormat.defaults().withIgnoreUnknownFields(true).withMaxLineBytes(64));
    }

    @Property(tries = 2000)
    void mutatedValidLinesGiveRequestsOrAFormatError(@ForAll("mutants") byte[] bytes) {
        onlyFormatErrors(bytes, TraceFormat.defaults());
        onlyFormatErrors(bytes, TraceFormat.defaults().withIgnoreUnknownFields(true));
    }

    @Property(tries = 150)
    void writtenRequestsReadBackEqual(@ForAll("requests") List<Request> requests) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MooncakeTrace.write(requests.iterator(), out);
        List<Request> back = new ArrayList<>();
        try (RequestSource s = MooncakeTrace.read(
                new ByteArrayInputStream(out.toByteArray()), "rt.jsonl", TraceFormat.defaults(), NS)) {
            s.forEachRemaining(back::add);
        }
        assertThat(back).containsExactlyElementsOf(requests);
    }

    @Provide
    Arbitrary<byte[]> bytes() {
        byte[] alphabet = "{}[]\":,0123456789-+.eE \n\r\ttrue".getBytes(StandardCharsets.UTF_8);
        Arbitrary<Byte> jsonish =
                Arbitraries.integers().between(0, alphabet.length - 1).map(i -> alphabet[i]);
        Arbitrary<Byte> any = Arbitraries.bytes();
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, jsonish), net.jqwik.api.Tuple.of(1, any))
                .list()
                .ofMaxSize(300)
                .map(l -> {
                    byte[] b = new byte[l.size()];
                    for (int i = 0; i < b.length; i++) b[i] = l.get(i);
                    return b;
                });
    }

    @Provide
    Arbitrary<byte[]> mutants() {
        byte[] base = (VALID + VALID.replace("5,", "9,")).getBytes(StandardCharsets.UTF_8);
        Arbitrary<int[]> edits = Arbitraries.integers()
                .between(0, Integer.MAX_VALUE)
                .array(int[].class)
                .ofMinSize(1)
                .ofMaxSize(6);
        Arbitrary<byte[]> fragments = Arbitraries.of(
                        "\"",
                        "{",
                        "}",
                        "[",
                        "]",
                        ",",
                        ":",
                        "-",
                        "1e99999",
                        "99999999999999999999999",
                        "null",
                        "\"x\"",
                        "\\u0000",
                        "\n",
                        "\u00ff",
                        "1.5",
                        "[[[[[[[[[[[[[[[[[[[[",
                        "\"hash_ids\": []",
                        "\"extra\": 1, ",
                        "\"timestamp\": 1e-99999999999, ",
                        "\"namespace\": {\"model\": 1}, ",
                        "\"session\": \"\\ud800\", ")
                .map(s -> s.getBytes(StandardCharsets.UTF_8));
        return Combinators.combine(edits, fragments.list().ofSize(6)).as((ops, frags) -> {
            byte[] b = base.clone();
            for (int k = 0; k < ops.length; k++) {
                int op = ops[k];
                int pos = (op >>> 3) % (b.length + 1);
                switch (op & 3) {
                    case 0 -> { // delete a byte
                        if (pos < b.length) b = concat(slice(b, 0, pos), slice(b, pos + 1, b.length));
                    }
                    case 1 -> b = concat(concat(slice(b, 0, pos), frags.get(k)), slice(b, pos, b.length)); // insert
                    case 2 -> {
                        if (pos < b.length) b[pos] = (byte) (op >>> 11);
                    } // flip
                    default ->
                        b = concat(slice(b, 0, pos), slice(b, Math.min(b.length, pos + (op >>> 20) % 8), b.length));
                }
            }
            return b;
        });
    }

    static byte[] slice(byte[] b, int from, int to) {
        return java.util.Arrays.copyOfRange(b, from, to);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Provide
    Arbitrary<List<Request>> requests() {
        Arbitrary<String> text = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars("\"\\\n\t\u00e9\u2603/")
                .ofMaxLength(12);
        Arbitrary<Namespace> ns =
                Combinators.combine(text, text, text, text, text).as(Namespace::new);
        Arbitrary<int[]> shape = Combinators.combine(
                        Arbitraries.integers().between(1, 2000),
                        Arbitraries.integers().between(1, 100_000),
                        Arbitraries.of(7, 16, 64, 512))
                .as((in, out, bt) -> new int[] {in, out, bt});
        Arbitrary<Long> gap = Arbitraries.longs().between(0, 10_000_000_000L);
        Arbitrary<Long> keys = Arbitraries.longs(); // seeds the keys: edge cases come from the special values below
        return Combinators.combine(shape, gap, text, ns, keys)
                .as((s, g, session, n, k) -> new Object[] {s, g, session, n, k})
                .list()
                .ofMaxSize(20)
                .map(list -> {
                    List<Request> rs = new ArrayList<>();
                    long t = 0;
                    for (int i = 0; i < list.size(); i++) {
                        Object[] o = list.get(i);
                        int[] s = (int[]) o[0];
                        t += (Long) o[1];
                        int blocks = (s[0] + s[2] - 1) / s[2];
                        long[] k = new java.util.SplittableRandom((Long) o[4])
                                .longs(blocks)
                                .toArray();
                        k[0] = switch ((int) ((Long) o[4] & 3)) {
                            case 0 -> Long.MIN_VALUE;
                            case 1 -> -1L;
                            case 2 -> 0L;
                            default -> k[0];
                        };
                        rs.add(new Request(i, t, (String) o[2], s[0], s[1], s[2], k, (Namespace) o[3]));
                    }
                    return rs;
                });
    }
}
