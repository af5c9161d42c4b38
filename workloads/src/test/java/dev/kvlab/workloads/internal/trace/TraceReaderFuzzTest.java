package dev.kvlab.workloads.internal.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kvlab.workloads.MooncakeTrace;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import java.io.ByteArrayInputStream;
import java.util.regex.Pattern;

/**
 * Fuzzes the Mooncake trace reader with hostile bytes. Whatever the input, the reader either yields well-formed
 * requests or stops with a {@link WorkloadFormatException} naming {@code FILE:LINE}; nothing else escapes (no
 * NumberFormatException, no IndexOutOfBounds, no OutOfMemoryError from a huge line). The fast line parser must
 * agree with the strict one whenever it accepts a line. Regression inputs: {@code TraceReaderFuzzTestInputs/}.
 * Fuzz for real: {@code JAZZER_FUZZ=1 mvn -pl workloads test -Dtest=TraceReaderFuzzTest#readerYieldsRequestsOrNamesTheLine}
 * (see {@code docs/fuzzing.md}).
 */
class TraceReaderFuzzTest {

    private static final Pattern WHERE = Pattern.compile("^fuzz\\.jsonl:\\d+: .+", Pattern.DOTALL);
    private static final Namespace NS = Namespace.of("fuzz-model");

    @FuzzTest(maxDuration = "5m")
    void readerYieldsRequestsOrNamesTheLine(byte[] data) {
        TraceFormat format = TraceFormat.defaults().withMaxLineBytes(1 << 14);
        long lines = 1;
        for (byte b : data) if (b == '\n') lines++;
        long previous = Long.MIN_VALUE;
        long n = 0;
        try (RequestSource s = MooncakeTrace.read(new ByteArrayInputStream(data), "fuzz.jsonl", format, NS)) {
            while (s.hasNext()) {
                Request r = s.next();
                assertThat(r.id()).isEqualTo(n++);
                assertThat(r.inputTokens()).isPositive();
                assertThat(r.outputTokens()).isNotNegative();
                assertThat(r.arrivalNanos()).isGreaterThanOrEqualTo(previous).isNotNegative();
                previous = r.arrivalNanos();
                assertThat((long) r.blockKeys().length)
                        .isEqualTo(((long) r.inputTokens() + r.blockTokens() - 1) / r.blockTokens());
                assertThat(r.session()).isNotNull();
            }
            assertThat(n).isLessThanOrEqualTo(lines);
        } catch (WorkloadFormatException e) {
            assertThat(e.getMessage()).matches(WHERE);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void fastParserAgreesWithTheStrictOne(byte[] line) {
        for (byte b : line) if (b == '\n') return; // one line only
        TraceLineParser.Line fast = new TraceLineParser.Line(), strict = new TraceLineParser.Line();
        if (!new FastLineParser().parse(line, line.length, fast)) return;
        new TraceLineParser("fuzz.jsonl", false)
                .parse(line, line.length, 1, strict); // must accept what the fast path accepted
        assertThat(fast.timestampNanos).isEqualTo(strict.timestampNanos);
        assertThat(fast.inputLength).isEqualTo(strict.inputLength);
        assertThat(fast.outputLength).isEqualTo(strict.outputLength);
        assertThat(fast.hashIds()).isEqualTo(strict.hashIds());
        assertThat(fast.blockTokens).isEqualTo(strict.blockTokens);
        assertThat(fast.session).isEqualTo(strict.session);
        assertThat(fast.namespace).isEqualTo(strict.namespace);
    }
}
