package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The probe cells of capacity.json: a probe extended over three passes is three cells, none of them a fixed-load cell. */
class CapacityProbeCellsTest {

    @Test
    void aProbeRunOnLongerWorkloadsNamesEveryPassCell() throws Exception {
        var cap = new ObjectMapper().readTree("""
                {"cells": [
                  {"cell": "c00", "probes": [{"run": "c00@2/r0"}, {"run": "c00@4x3/r1", "extended_from": [1, 2]}]},
                  {"cell": "c01", "probes": [{"run": "c01@1.5x2/r0", "extended_from": [1]}]}]}
                """);
        assertThat(CapacityFile.probeCells(cap))
                .containsExactlyInAnyOrder("c00@2", "c00@4", "c00@4x2", "c00@4x3", "c01@1.5", "c01@1.5x2");
        assertThat(CapacityFile.probeCells(new ObjectMapper().readTree("{}"))).isEmpty();
    }
}
