package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.llama.api.RestoreCheckResult;
import dev.kvlab.harness.testsupport.TinyGguf;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On the real llama.cpp library and a tiny random model (2 layers, hidden 64): skipped with the reason without it. */
class LlamaEngineTest {

    @Test
    void aRestoreContinuesExactlyAsARecompute() {
        RestoreCheckResult r = RestoreCheck.run(LlamaTestSupport.library(), LlamaTestSupport.tinyModel(), 2, 12, 16);
        assertTrue(r.allEqual(), r.toString());
        assertEquals(
                0.0,
                r.sameSplitLogitDiff(),
                "restored KV is bit-exact: same logits as a recompute in the same batches");
        assertEquals(TinyGguf.Shape.tiny().kvBytesPerToken(), r.kvBytesPerToken());
        assertEquals(r.expectedKvBytesPerToken(), r.kvBytesPerToken());
    }

    @Test
    void theStateOfWholeBlocksSplitsAndAssemblesToTheSameBytes() {
        try (LlamaModel m = LlamaModel.load(LlamaTestSupport.library(), LlamaTestSupport.tinyModel());
                LlamaContext c = m.newContext(LlamaContext.Options.of(128));
                Arena a = Arena.ofConfined()) {
            int[] t = Arrays.copyOf(m.tokenize(RestoreCheck.prompt(3), true), 64);
            c.prefill(0, t, 0, 64, 0);
            MemorySegment state = c.state(0, a);
            KvStateCodec.Parsed p = KvStateCodec.parse(state);
            assertEquals(64, p.tokens());
            assertEquals(m.kvBytesPerTokenF16(), p.layout().bytesPerToken());
            assertEquals(p.layout().stateBytes(64), state.byteSize());
            MemorySegment again = KvStateCodec.assemble(p.layout(), 16, KvStateCodec.split(state, 16, a), a);
            assertArrayEquals(state.toArray(JAVA_BYTE), again.toArray(JAVA_BYTE));
        }
    }

    /** Flash attention off: llama.cpp stores V transposed, and the codec's per-channel runs restore it exactly. */
    @Test
    void aTransposedVStateRestoresExactly() {
        try (LlamaModel m = LlamaModel.load(LlamaTestSupport.library(), LlamaTestSupport.tinyModel());
                LlamaContext c = m.newContext(
                        LlamaContext.Options.of(128).withFlashAttention(LlamaContext.FlashAttention.DISABLED));
                Arena a = Arena.ofConfined()) {
            int[] t = Arrays.copyOf(m.tokenize(RestoreCheck.prompt(3), true), 70);
            c.prefill(0, t, 0, 70, 0);
            MemorySegment state = c.state(0, a);
            KvStateCodec.Parsed p = KvStateCodec.parse(state);
            assertTrue(p.layout().vTrans(), p.layout().describe());
            List<MemorySegment> blocks = KvStateCodec.split(state, 16, a);
            assertEquals(4, blocks.size());
            c.clear();
            c.restore(0, KvStateCodec.assemble(p.layout(), 16, blocks, a));
            assertEquals(63, c.maxPos(0));
            float[] restored = c.prefill(0, t, 64, 70, 64);
            c.clear();
            c.prefill(0, t, 0, 64, 0);
            float[] recomputed = c.prefill(0, t, 64, 70, 64);
            assertArrayEquals(recomputed, restored);
        }
    }

    /** Two sequences prefilled in one batch; one's state restored into the other's slot continues as it would have. */
    @Test
    void twoSequencesInOneBatchAndAStateMovedBetweenThem() {
        try (LlamaModel m = LlamaModel.load(LlamaTestSupport.library(), LlamaTestSupport.tinyModel());
                LlamaContext c = m.newContext(LlamaContext.Options.of(256).withSeqMax(2));
                LlamaBatch b = c.newBatch();
                Arena a = Arena.ofConfined()) {
            int[] x = Arrays.copyOf(m.tokenize(RestoreCheck.prompt(1), true), 40);
            int[] y = Arrays.copyOf(m.tokenize(RestoreCheck.prompt(2), true), 40);
            int lastX = -1, lastY = -1;
            for (int i = 0; i < 40; i++) {
                lastX = b.add(x[i], i, 0, i == 39);
                lastY = b.add(y[i], i, 1, i == 39);
            }
            c.decode(b);
            float[] yLogits = c.logits(lastY);
            assertFalse(Arrays.equals(c.logits(lastX), yLogits));
            int[] yNext = c.greedy(1, yLogits, 40, 6);
            c.removeSeq(1, 40, -1);
            MemorySegment yState = c.state(1, a);
            KvStateCodec.Parsed p = KvStateCodec.parse(yState);
            assertEquals(2, p.layout().nStream());
            assertEquals(1, p.layout().stream());
            c.clear();
            c.restore(0, KvStateCodec.assemble(p.layout(), 8, KvStateCodec.split(yState, 8, a), a));
            assertEquals(39, c.maxPos(0));
            assertEquals(-1, c.maxPos(1));
            assertTrue(c.removeSeq(0, 39, -1)); // drop the last token, to decode it again for its logits
            assertEquals(38, c.maxPos(0));
            float[] again = c.prefill(0, y, 39, 40, 39);
            assertArrayEquals(yNext, c.greedy(0, again, 40, 6));
        }
    }

    @Test
    void aFileThatIsNoModelIsBadInput(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("x.gguf"), "no model");
        LlamaLibrary lib = LlamaTestSupport.library();
        BadInputException e = assertThrows(BadInputException.class, () -> LlamaModel.load(lib, f));
        assertTrue(e.getMessage().contains("cannot load"), e.getMessage());
        assertThrows(BadInputException.class, () -> LlamaModel.load(lib, dir.resolve("missing.gguf")));
    }
}
