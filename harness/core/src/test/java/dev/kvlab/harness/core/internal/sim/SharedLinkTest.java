package dev.kvlab.harness.core.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.transport.api.LinearTransportModel;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedLink}: transfers share the link only while both are on it. On a 1 MB/s link with a 10 ms fixed cost, a
 * 1 MB transfer starts at 0 and a second at 0.51 s: the first has 0.49 MB left when the second's bytes join at 0.52 s,
 * both then get 0.5 MB/s, so the first ends at 1.50 s and the second, alone again with 0.51 MB left, at 2.01 s. Priced
 * once at its start with the sharers of that moment, the second would have taken 2 s of bytes, ending at 2.52 s.
 */
class SharedLinkTest {

    private static final double MB = 1e6;

    @Test
    void aTransferIsSlowedOnlyWhileAnotherSharesTheLink() {
        SimLoop loop = new SimLoop();
        SharedLink link = new SharedLink(loop, new LinearTransportModel("1MBps", true, 0.010, 0, MB, MB));
        Map<String, Long> ends = new LinkedHashMap<>();
        link.transfer((long) MB, () -> ends.put("first", loop.now()));
        loop.at(510_000_000L, () -> link.transfer((long) MB, () -> ends.put("second", loop.now())));
        loop.run();
        assertThat(ends.get("first") / 1e9).isCloseTo(1.50, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(ends.get("second") / 1e9).isCloseTo(2.01, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void aTransferAloneTakesWhatTheModelSays() {
        SimLoop loop = new SimLoop();
        var model = new LinearTransportModel("m", true, 0.002, 0, 3 * MB, 3 * MB);
        SharedLink link = new SharedLink(loop, model);
        long[] end = {-1};
        link.transfer(1_234_567, () -> end[0] = loop.now());
        loop.run();
        assertThat(end[0] / 1e9)
                .isCloseTo(model.batchSeconds(1_234_567, 1, 1), org.assertj.core.data.Offset.offset(2e-9));
    }
}
