package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultTimeTest {

    @TempDir
    Path tmp;

    private CellData cell(String cellJson) throws Exception {
        Path r0 = Files.createDirectories(tmp.resolve("cells/c02/r0"));
        if (cellJson != null) Files.writeString(r0.resolve("cell.json"), cellJson);
        // the config says the fault strikes half-way through the arrivals: a share, not seconds
        var config = new ObjectMapper().readTree("{\"fault\": \"master-failover\", \"fault_at\": 0.5}");
        return new CellData(
                "c02",
                Map.of("fault", "master-failover"),
                "live",
                1,
                Map.of(),
                Map.of(),
                List.of(),
                List.of(r0),
                config,
                Map.of());
    }

    @Test
    void theStrikeIsWhenTheRunMeasuredItNotTheConfigsShareOfArrivals() throws Exception {
        assertThat(FaultTime.of(cell("{\"summary\": {\"fault_at_s\": 7.25, \"failover_s\": 3.1}}")))
                .isEqualTo(7.25);
    }

    @Test
    void unknownWhenTheFaultNeverStruckOrNothingWasRecorded() throws Exception {
        assertThat(FaultTime.of(cell("{\"summary\": {\"fault_at_s\": \"NaN\"}}")))
                .isNull();
        assertThat(FaultTime.of(cell("{\"summary\": {}}"))).isNull();
    }
}
