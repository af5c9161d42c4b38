package dev.kvlab.store.internal.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ObjectTableTest {

    private static ObjectMeta meta(String key, long id) {
        return new ObjectMeta(key, id, 1, 0, false, false, 0, new ArrayList<>());
    }

    /** Random puts, removes and conditional removes (with keys that share hashes) agree with a HashMap throughout. */
    @Test
    void behavesLikeAMap() {
        SplittableRandom r = new SplittableRandom(5);
        ObjectTable t = new ObjectTable();
        Map<String, ObjectMeta> want = new HashMap<>();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 3000; i++)
            keys.add(r.nextInt(4) == 0 ? (i % 2 == 0 ? "Aa" : "BB") + i / 2 % 40 : "k" + i); // "Aa" and "BB" collide
        long id = 0;
        for (int step = 0; step < 200_000; step++) {
            String k = new String(keys.get(r.nextInt(keys.size()))); // equal, not identical
            switch (r.nextInt(5)) {
                case 0, 1 -> {
                    ObjectMeta o = meta(k, ++id);
                    t.put(k, o);
                    want.put(k, o);
                }
                case 2 -> assertThat(t.remove(k)).isSameAs(want.remove(k));
                case 3 -> {
                    ObjectMeta o = r.nextBoolean() ? want.get(k) : meta(k, -1);
                    assertThat(t.remove(k, o)).isEqualTo(o != null && want.remove(k, o));
                }
                default -> assertThat(t.get(k)).isSameAs(want.get(k));
            }
            assertThat(t.size()).isEqualTo(want.size());
        }
        for (String k : keys) assertThat(t.get(k)).isSameAs(want.get(k));
        HashSet<ObjectMeta> seen = new HashSet<>();
        for (int i = 0; i < t.slots(); i++) if (t.slot(i) != null) seen.add(t.slot(i));
        assertThat(seen).containsExactlyInAnyOrderElementsOf(want.values());
    }

    @Test
    void removeIfTakesWhatTheTestAcceptsOnce() {
        ObjectTable t = new ObjectTable();
        for (int i = 0; i < 1000; i++) t.put("k" + i, meta("k" + i, i));
        List<Long> asked = new ArrayList<>();
        List<ObjectMeta> gone = t.removeIf(o -> asked.add(o.putId) && o.putId % 3 == 0);
        assertThat(asked).hasSize(1000).doesNotHaveDuplicates();
        assertThat(gone).hasSize(334).allMatch(o -> o.putId % 3 == 0);
        assertThat(t.size()).isEqualTo(666);
        for (int i = 0; i < 1000; i++) assertThat(t.get("k" + i) == null).isEqualTo(i % 3 == 0);
    }
}
