package dev.kvlab.workloads.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.workloads.MooncakeTrace;
import dev.kvlab.workloads.TraceAnalyzer;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceAnalysis;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.testing.SharedTrace;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reference figures of shared/data/traces/README.md, reproduced exactly. */
class ConversationTraceTest {

    @Test
    void referenceFigures() {
        TraceAnalysis a;
        try (RequestSource s =
                MooncakeTrace.open(SharedTrace.conversation(), TraceFormat.defaults(), Namespace.of("m"))) {
            a = TraceAnalyzer.analyze(s, List.of(0.01, 0.10));
        }
        assertThat(a.requests()).isEqualTo(12_031);
        assertThat(a.firstArrivalNanos()).isZero();
        assertThat(a.lastArrivalNanos()).isEqualTo(3_536_999_000_000L);
        assertThat(a.inputTokens().total()).isEqualTo(144_793_823L);
        assertThat(a.outputTokens().total()).isEqualTo(4_122_048L);
        assertThat(a.totalBlocks()).isEqualTo(288_500);
        assertThat(a.distinctBlocks()).isEqualTo(182_790);
        assertThat(a.ideal().hitBlocks()).isEqualTo(105_710);
        assertThat(a.ideal().blockHitRatio()).isCloseTo(0.366412478, within(1e-9));
        assertThat(a.ideal().tokenHitRatio()).isCloseTo(0.373623749, within(1e-9));
        var lru1 = a.lru().get(0);
        assertThat(lru1.capacityBlocks()).isEqualTo(1_827);
        assertThat(lru1.hitBlocks()).isEqualTo(15_080);
        assertThat(lru1.blockHitRatio()).isCloseTo(0.052270364, within(1e-9));
        assertThat(lru1.tokenHitRatio()).isCloseTo(0.053297232, within(1e-9));
        var lru10 = a.lru().get(1);
        assertThat(lru10.capacityBlocks()).isEqualTo(18_279);
        assertThat(lru10.hitBlocks()).isEqualTo(80_323);
        assertThat(lru10.blockHitRatio()).isCloseTo(0.278415945, within(1e-9));
        assertThat(lru10.tokenHitRatio()).isCloseTo(0.283886869, within(1e-9));
        // every access is either cold or has a distance
        var rd = a.reuseDistances();
        assertThat(rd.cold()).isEqualTo(a.distinctBlocks());
        assertThat(rd.cold() + rd.buckets().stream().mapToLong(b -> b.count()).sum())
                .isEqualTo(a.totalBlocks());
    }
}
