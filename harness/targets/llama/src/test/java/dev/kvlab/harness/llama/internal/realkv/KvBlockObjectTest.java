package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The block object's own header check: the block asked for, intact, is accepted; any other bytes are refused with the reason. */
class KvBlockObjectTest {

    @Test
    void aSealedBlockVerifiesAndEveryAlterationIsRefused() {
        long payload = 4096;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment obj = a.allocate(KvBlockObject.objectBytes(payload));
            MemorySegment p = KvBlockObject.payload(obj, payload);
            for (long i = 0; i < payload; i++) p.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            KvBlockObject.seal(obj, 0x1234L, 16, payload);
            long len = obj.byteSize();
            assertThat(KvBlockObject.verify(obj, len, 0x1234L, 16, payload)).isNull();
            assertThat(KvBlockObject.verify(obj, len, 0x1235L, 16, payload)).contains("not 1235");
            assertThat(KvBlockObject.verify(obj, len, 0x1234L, 32, payload)).contains("tokens");
            assertThat(KvBlockObject.verify(obj, len - 1, 0x1234L, 16, payload)).contains("length");
            p.set(ValueLayout.JAVA_BYTE, 777, (byte) ~p.get(ValueLayout.JAVA_BYTE, 777));
            assertThat(KvBlockObject.verify(obj, len, 0x1234L, 16, payload)).isEqualTo("payload checksum mismatch");
        }
    }
}
