package dev.kvlab.workloads.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.workloads.MooncakeTrace;
import dev.kvlab.workloads.api.BlockKeys;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MooncakeTraceReaderTest {

    static final Namespace NS = Namespace.of("m");

    static List<Request> read(String text, TraceFormat format) {
        List<Request> out = new ArrayList<>();
        try (RequestSource s = MooncakeTrace.read(
                new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "t.jsonl", format, NS)) {
            s.forEachRemaining(out::add);
        }
        return out;
    }

    static List<Request> read(String text) {
        return read(text, TraceFormat.defaults());
    }

    static String line(long ts, int in, int out, String ids) {
        return "{\"timestamp\": " + ts + ", \"input_length\": " + in + ", \"output_length\": " + out
                + ", \"hash_ids\": [" + ids + "]}\n";
    }

    @Test
    void readsMooncakeLinesIntoRequests() {
        List<Request> rs = read(line(0, 600, 5, "1, 2") + line(10, 512, 7, "1") + line(10, 1, 1, "9"));
        assertThat(rs).hasSize(3);
        Request a = rs.get(0), b = rs.get(1);
        assertThat(a.id()).isZero();
        assertThat(a.arrivalNanos()).isZero();
        assertThat(b.arrivalNanos()).isEqualTo(10_000_000L);
        assertThat(a.inputTokens()).isEqualTo(600);
        assertThat(a.outputTokens()).isEqualTo(5);
        assertThat(a.blockTokens()).isEqualTo(512);
        assertThat(a.blockKeys())
                .containsExactly(BlockKeys.ofTraceId(NS.digest(), 1), BlockKeys.ofTraceId(NS.digest(), 2));
        assertThat(b.blockKeys()[0]).isEqualTo(a.blockKeys()[0]);
        assertThat(a.session()).isEqualTo("req-0");
        assertThat(rs.get(2).id()).isEqualTo(2);
        assertThat(a.namespace()).isEqualTo(NS);
    }

    @Test
    void fieldOrderWhitespaceCrlfAndMissingFinalNewlineAreFine() {
        String text = "  {\"hash_ids\":[3],\"output_length\":2,\"input_length\":5,\"timestamp\":1}\r\n"
                + "{\"timestamp\": 2, \"input_length\": 5, \"output_length\": 2, \"hash_ids\": [4]}";
        List<Request> rs = read(text);
        assertThat(rs).extracting(Request::arrivalNanos).containsExactly(1_000_000L, 2_000_000L);
    }

    @Test
    void decimalTimestampsAreExactToTheNanosecond() {
        List<Request> rs =
                read("{\"timestamp\": 1.000001, \"input_length\": 5, \"output_length\": 2, \"hash_ids\": [4]}\n"
                        + "{\"timestamp\": 2.5e3, \"input_length\": 5, \"output_length\": 2, \"hash_ids\": [4]}\n");
        assertThat(rs).extracting(Request::arrivalNanos).containsExactly(1_000_001L, 2_500_000_000L);
    }

    @Test
    void unsignedSixtyFourBitIdsAreAccepted() {
        List<Request> rs = read(line(0, 5, 1, "18446744073709551615"));
        assertThat(rs.get(0).blockKeys()[0]).isEqualTo(BlockKeys.ofTraceId(NS.digest(), -1L));
    }

    @Test
    void blockTokensAreConfigurable() {
        List<Request> rs =
                read(line(0, 33, 1, "1, 2, 3"), TraceFormat.defaults().withBlockTokens(16));
        assertThat(rs.get(0).blockKeys()).hasSize(3);
        assertThat(rs.get(0).blockTokens()).isEqualTo(16);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not json                 | {"timestamp": 0, "input_length": 5, | malformed JSON
            string length            | {"timestamp": 0, "input_length": "many", "output_length": 5, "hash_ids": [4]} | field 'input_length' must be an integer, got string "many"
            float length             | {"timestamp": 0, "input_length": 5.5, "output_length": 5, "hash_ids": [4]} | field 'input_length' must be an integer
            null output              | {"timestamp": 0, "input_length": 5, "output_length": null, "hash_ids": [4]} | field 'output_length' must be an integer, got null
            zero input               | {"timestamp": 0, "input_length": 0, "output_length": 5, "hash_ids": []} | field 'input_length' must be >= 1, got 0
            negative output          | {"timestamp": 0, "input_length": 5, "output_length": -1, "hash_ids": [4]} | field 'output_length' must be >= 0, got -1
            huge length              | {"timestamp": 0, "input_length": 5000000000, "output_length": 5, "hash_ids": [4]} | field 'input_length' is out of range
            negative timestamp       | {"timestamp": -1, "input_length": 5, "output_length": 5, "hash_ids": [4]} | field 'timestamp' must be >= 0 ms
            string timestamp         | {"timestamp": "0", "input_length": 5, "output_length": 5, "hash_ids": [4]} | field 'timestamp' must be a number
            missing hash_ids         | {"timestamp": 0, "input_length": 5, "output_length": 5} | missing field 'hash_ids'
            missing timestamp        | {"input_length": 5, "output_length": 5, "hash_ids": [4]} | missing field 'timestamp'
            hash_ids not array       | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": 4} | field 'hash_ids' must be an array
            hash id string           | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": ["4"]} | hash_ids[0] must be an integer
            hash id float            | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [4.0]} | hash_ids[0] must be an integer
            hash id too big          | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [18446744073709551616]} | outside the 64-bit range
            too few ids              | {"timestamp": 0, "input_length": 1600, "output_length": 5, "hash_ids": [1]} | hash_ids has 1 ids, but input_length 1600 needs ceil(1600 / 512) = 4
            too many ids             | {"timestamp": 0, "input_length": 512, "output_length": 5, "hash_ids": [1, 2]} | hash_ids has 2 ids, but input_length 512 needs ceil(512 / 512) = 1
            unknown field            | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [4], "extra": 1} | unknown field 'extra'
            duplicate field          | {"timestamp": 0, "timestamp": 1, "input_length": 5, "output_length": 5, "hash_ids": [4]} | duplicate field 'timestamp'
            array line               | [1, 2, 3] | expected a JSON object, got an array
            trailing content         | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [4]} {} | unexpected content after the JSON object
            trailing garbage         | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [4]}x | malformed JSON
            bad namespace            | {"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [4], "namespace": {"model": "m"}} | field 'namespace' needs all of
            """)
    void badSecondLineIsAnErrorNamingFileAndLine(String name, String bad, String reason) {
        String text = line(0, 5, 1, "1") + bad + "\n" + line(1, 5, 1, "1");
        assertThatThrownBy(() -> read(text))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessageStartingWith("t.jsonl:2: ")
                .hasMessageContaining(reason)
                .satisfies(e -> {
                    assertThat(((WorkloadFormatException) e).file()).isEqualTo("t.jsonl");
                    assertThat(((WorkloadFormatException) e).line()).isEqualTo(2);
                });
    }

    @Test
    void decreasingTimestampIsAnError() {
        assertThatThrownBy(() -> read(line(5, 5, 1, "1") + line(6, 5, 1, "1") + line(4, 5, 1, "1")))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessageStartingWith("t.jsonl:3: timestamp 4 ms is before the previous line's 6 ms");
    }

    @Test
    void emptyLinesAreErrorsNotSkipped() {
        assertThatThrownBy(() -> read(line(0, 5, 1, "1") + "\n" + line(1, 5, 1, "1")))
                .hasMessageStartingWith("t.jsonl:2: empty line");
        assertThatThrownBy(() -> read(line(0, 5, 1, "1") + "  \r\n")).hasMessageStartingWith("t.jsonl:2: empty line");
    }

    @Test
    void unknownFieldsCanBeIgnoredOnRequest() {
        String text =
                "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 5, \"hash_ids\": [4], \"extra\": {\"a\": [1, {}]}}\n";
        assertThat(read(text, TraceFormat.defaults().withIgnoreUnknownFields(true)))
                .hasSize(1);
    }

    @Test
    void lineLengthIsBounded() {
        StringBuilder ids = new StringBuilder("0");
        for (int i = 1; i < 400; i++) ids.append(", ").append(i);
        String text = line(0, 5, 1, "1") + line(1, 400 * 512, 1, ids.toString());
        assertThatThrownBy(() -> read(text, TraceFormat.defaults().withMaxLineBytes(1000)))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessage("t.jsonl:2: line longer than 1000 bytes");
        assertThat(read(text)).hasSize(2);
    }

    @Test
    void lineBlockTokensMustAgreeWithAnExplicitSetting() {
        String text =
                "{\"timestamp\": 0, \"input_length\": 17, \"output_length\": 5, \"hash_ids\": [4, 5], \"block_tokens\": 16}\n";
        assertThat(read(text).get(0).blockTokens()).isEqualTo(16);
        assertThatThrownBy(() -> read(text, TraceFormat.defaults().withBlockTokens(512)))
                .hasMessageStartingWith("t.jsonl:1: block_tokens 16 in the line, but the trace is read with 512");
    }

    @Test
    void filesAreNamedAndGzipIsRead(@TempDir Path dir) throws IOException {
        Path gz = dir.resolve("x.jsonl.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            o.write((line(0, 5, 1, "1") + line(1, 5, 1, "1")).getBytes(StandardCharsets.UTF_8));
        }
        try (RequestSource s = MooncakeTrace.open(gz, TraceFormat.defaults(), NS)) {
            int n = 0;
            while (s.hasNext()) {
                s.next();
                n++;
            }
            assertThat(n).isEqualTo(2);
        }
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, line(0, 5, 1, "1") + "{oops\n");
        try (RequestSource s = MooncakeTrace.open(bad, TraceFormat.defaults(), NS)) {
            s.next();
            assertThatThrownBy(s::hasNext).hasMessageStartingWith(bad + ":2: malformed JSON");
        }
        assertThatThrownBy(() -> MooncakeTrace.open(dir.resolve("none.jsonl"), TraceFormat.defaults(), NS))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessageContaining("none.jsonl: no such file");
        Path notGz = dir.resolve("plain.gz");
        Files.writeString(notGz, "hello");
        assertThatThrownBy(() -> MooncakeTrace.open(notGz, TraceFormat.defaults(), NS))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessageContaining("not a gzip file");
    }

    @Test
    void writtenRequestsReadBackEqual() throws IOException {
        Namespace other = new Namespace("llama", "fp8", "tp2", "ad\"apter", "t\u00e9nant");
        List<Request> rs = List.of(
                new Request(0, 0, "s-1", 600, 5, 512, new long[] {7, -3}, NS),
                new Request(1, 1_500_001, "s\n2", 16, 1, 16, new long[] {Long.MIN_VALUE}, other),
                new Request(2, 3_000_000_000L, "s-1", 1, 9, 512, new long[] {Long.MAX_VALUE}, NS));
        var bytes = new java.io.ByteArrayOutputStream();
        MooncakeTrace.write(rs.iterator(), bytes);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).startsWith("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [");
        assertThat(text).contains("\"timestamp\": 1.500001,");
        assertThat(read(text)).containsExactlyElementsOf(rs);
    }
}
