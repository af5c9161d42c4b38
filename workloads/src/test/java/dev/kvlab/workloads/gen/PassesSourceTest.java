package dev.kvlab.workloads.gen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A workload k passes over is the one-pass workload first, then fresh requests drawn the same way: a longer run of the same stream. */
class PassesSourceTest {

    static final WorkloadSpec SPEC = new WorkloadSpec.SharedPrefix(6, 4, 1024, 64, 16, "random", 512);

    static List<Request> all(RequestSource s) {
        List<Request> out = new ArrayList<>();
        try (s) {
            while (s.hasNext()) out.add(s.next());
        }
        return out;
    }

    @Test
    void theFirstPassIsTheOnePassWorkloadAndLaterPassesAreFresh() {
        Namespace ns = Namespace.of("m");
        List<Request> one = all(Workloads.open(SPEC, ns, 7));
        List<Request> four = all(Workloads.open(SPEC, 4, ns, 7));
        assertThat(four).hasSize(4 * one.size());
        assertThat(four.subList(0, one.size())).isEqualTo(one);
        for (int i = 0; i < four.size(); i++) assertThat(four.get(i).id()).isEqualTo(i);
        assertThat(four.get(one.size()).session()).startsWith("p1/");
        Set<Long> firstKeys = new HashSet<>();
        for (Request r : one) firstKeys.add(r.blockKeys()[0]);
        Set<Long> secondKeys = new HashSet<>();
        for (Request r : four.subList(one.size(), 2 * one.size())) secondKeys.add(r.blockKeys()[0]);
        assertThat(secondKeys)
                .doesNotContainAnyElementsOf(firstKeys); // its own prefixes: as cold as the first pass was
        assertThat(all(Workloads.open(SPEC, 4, ns, 7))).isEqualTo(four); // deterministic
    }

    @Test
    void aTraceIsReplayedOnce() {
        assertThatThrownBy(
                        () -> Workloads.open(new WorkloadSpec.Trace("x.jsonl", 0, false, 0), 2, Namespace.of("m"), 1))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessageContaining("passes");
    }
}
