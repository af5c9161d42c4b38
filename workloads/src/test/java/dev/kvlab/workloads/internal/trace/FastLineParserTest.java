package dev.kvlab.workloads.internal.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.kvlab.workloads.api.WorkloadFormatException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

/** The fast path accepts a subset of what the Jackson path accepts, with the same result. */
class FastLineParserTest {

    static boolean fast(String s, TraceLineParser.Line out) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return new FastLineParser().parse(b, b.length, out);
    }

    /** Null when the slow path rejects the line. */
    static TraceLineParser.Line slow(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        TraceLineParser.Line out = new TraceLineParser.Line();
        try {
            new TraceLineParser("x", false).parse(b, b.length, 1, out);
            return out;
        } catch (WorkloadFormatException e) {
            return null;
        }
    }

    /** True when the fast path took the line. */
    static boolean agree(String s) {
        TraceLineParser.Line f = new TraceLineParser.Line();
        if (!fast(s, f)) return false;
        TraceLineParser.Line j = slow(s);
        if (j == null) fail("fast path accepted a line the strict parser rejects: " + s);
        assertThat(f.timestampNanos).as(s).isEqualTo(j.timestampNanos);
        assertThat(f.inputLength).as(s).isEqualTo(j.inputLength);
        assertThat(f.outputLength).as(s).isEqualTo(j.outputLength);
        assertThat(f.hashIds()).as(s).containsExactly(j.hashIds());
        assertThat(f.blockTokens).as(s).isEqualTo(j.blockTokens);
        assertThat(f.session).isNull();
        assertThat(f.namespace).isNull();
        return true;
    }

    @Test
    void canonicalLinesTakeTheFastPath() {
        TraceLineParser.Line out = new TraceLineParser.Line();
        assertThat(fast(
                        "{\"timestamp\": 27, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1, -2, 999999999999999999]}",
                        out))
                .isTrue();
        assertThat(out.timestampNanos).isEqualTo(27_000_000L);
        assertThat(out.hashIds()).containsExactly(0, 1, -2, 999_999_999_999_999_999L);
        agree(
                "{\"timestamp\": 27, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1, -2, 999999999999999999]}");
        assertThat(fast(
                        "{\"hash_ids\":[],\"output_length\":1,\"input_length\":1,\"timestamp\":0,\"block_tokens\":16}",
                        out))
                .isTrue();
    }

    @Test
    void anythingUnusualIsLeftToTheStrictParser() {
        TraceLineParser.Line out = new TraceLineParser.Line();
        for (String s : new String[] {
            "",
            "{}",
            "{\"timestamp\": 1.5, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}",
            "{\"timestamp\": 1, \"input_length\": 01, \"output_length\": 1, \"hash_ids\": [1]}",
            "{\"timestamp\": 1, \"input_length\": 0, \"output_length\": 1, \"hash_ids\": [1]}",
            "{\"timestamp\": -1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}",
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [-0]}",
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1e3]}",
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1,]}",
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [18446744073709551615]}",
            "{\"timestamp\": 1, \"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}",
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1], \"session\": \"s\"}",
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]} x",
            "{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1}",
            "{\"timest\\u0061mp\": 1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}"
        }) {
            assertThat(fast(s, out)).as(s).isFalse();
        }
    }

    @Property(tries = 3000)
    void fastAcceptsOnlyWhatTheStrictParserAcceptsWithTheSameResult(@ForAll("lines") String line) {
        boolean took = agree(line);
        boolean strict = slow(line) != null;
        Statistics.collect(took ? "fast" : strict ? "strict only" : "rejected");
        // the comparison is not vacuous: many lines take the fast path, and many are left to the strict parser
        Statistics.coverage(c -> {
            c.check("fast").percentage(p -> p > 5);
            c.check("strict only").percentage(p -> p > 1);
            c.check("rejected").percentage(p -> p > 10);
        });
    }

    @Provide
    Arbitrary<String> lines() {
        Arbitrary<String> num = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(
                        8, Arbitraries.integers().between(1, 100_000).map(Object::toString)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().map(v -> Long.toString(v))),
                net.jqwik.api.Tuple.of(
                        2,
                        Arbitraries.of(
                                "0",
                                "-0",
                                "-1",
                                "01",
                                "1.0",
                                "1e2",
                                "9223372036854775807",
                                "9223372036854775808",
                                "999999999999999999",
                                "1000000000000000000",
                                "2147483647",
                                "2147483648",
                                "9223372036854",
                                "9223372036855",
                                "\"1\"",
                                "null",
                                "true")));
        Arbitrary<String> ids = num.list().ofMaxSize(5).map(l -> "[" + String.join(", ", l) + "]");
        Arbitrary<String> key = Arbitraries.of(
                "timestamp", "input_length", "output_length", "hash_ids", "block_tokens", "session", "x");
        Arbitrary<String> ws = Arbitraries.of("", " ", "  ", "\t", "\r");
        Arbitrary<String> member = Combinators.combine(key, ws, num, ids, ws)
                .as((k, w, n, a, w2) -> "\"" + k + "\"" + w + ":" + w2 + (k.equals("hash_ids") ? a : n));
        Arbitrary<String> canonical = Combinators.combine(num, num, num, ids)
                .as((t, i, o, h) -> "{\"timestamp\": " + t + ", \"input_length\": " + i + ", \"output_length\": " + o
                        + ", \"hash_ids\": " + h + "}");
        Arbitrary<String> shuffled = member.list().ofMinSize(3).ofMaxSize(6).map(l -> "{" + String.join(", ", l) + "}");
        Arbitrary<String> any =
                Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, canonical), net.jqwik.api.Tuple.of(1, shuffled));
        return Combinators.combine(
                        any,
                        Arbitraries.integers().between(0, 400),
                        Arbitraries.of("", "}", ",", "x", " ", "]", "[", "-"))
                .as((s, cut, junk) -> {
                    if (cut % 4 != 0) return s;
                    int at = Math.min(s.length(), (cut / 4) % (s.length() + 1));
                    return cut % 8 == 0 ? s.substring(0, at) + junk + s.substring(at) : s.substring(0, at);
                });
    }

    @Test
    void fastPathIsUsedForTheWholeRangeOfEveryField() {
        // spot-check numeric edges on both sides
        for (String t : Arrays.asList("0", "9223372036854", "9223372036855")) {
            agree("{\"timestamp\": " + t + ", \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}");
        }
    }
}
