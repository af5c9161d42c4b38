package dev.kvlab.harness.measure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.RequestLog;
import dev.kvlab.harness.api.RequestRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The request log streams requests.csv rows to a file and reads them back exactly. */
class RequestLogTest {

    private static RequestRecord rec(long id, String session, String status, double tpot) {
        return new RequestRecord(
                id,
                session,
                id * 0.1 + 1e-9,
                3,
                1000,
                7,
                512,
                256,
                123456789012L,
                1,
                0.25,
                Double.NaN,
                100.0 / 3,
                tpot,
                9.5,
                1e6 + 0.125,
                id % 2 == 0,
                status);
    }

    @Test
    void rowsRoundTripIncludingQuotedFieldsAndNaN() {
        List<RequestRecord> in = List.of(
                rec(0, "plain", "ok", Double.NaN),
                rec(1, "with,comma", "failed: needs 3 blocks, has 2", 12.5),
                rec(2, "a \"quoted\"\nline", "failed: x", -0.0));
        try (RequestLog log = RequestLog.temporary()) {
            for (RequestRecord r : in) log.add(r);
            assertThat(log.count()).isEqualTo(3);
            List<RequestRecord> out = log.readAll();
            assertThat(out).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(out.get(i).toString()).isEqualTo(in.get(i).toString());
            }
        }
    }

    @Test
    void theFileIsTheBundlesCsvAndMovesThenCopies(@TempDir Path dir) throws Exception {
        RequestLog log = RequestLog.temporary();
        log.add(rec(5, "s", "ok", 1.0));
        Path tmp = log.file();
        log.writeTo(dir.resolve("a.csv"));
        assertThat(tmp).doesNotExist();
        assertThat(log.file()).isEqualTo(dir.resolve("a.csv"));
        log.writeTo(dir.resolve("b.csv"));
        assertThat(dir.resolve("a.csv")).exists();
        String text = Files.readString(dir.resolve("b.csv"), StandardCharsets.UTF_8);
        assertThat(text)
                .startsWith(RequestRecord.CSV_HEADER + "\n5,s," + (5 * 0.1 + 1e-9)
                        + ",3,1000,7,512,256,123456789012,1,0.25,NaN,");
        assertThat(text).endsWith(",false,ok\n");
        List<Long> ids = new ArrayList<>();
        log.forEach(r -> ids.add(r.id()));
        assertThat(ids).containsExactly(5L);
    }
}
