package dev.kvlab.harness.internal.llama;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LlamaSmokeTest {
    @Test
    void dumpsState() {
        LlamaLibrary lib = LlamaTestSupport.library();
        System.out.println(lib.systemInfo());
        try (LlamaModel m = LlamaModel.load(lib, LlamaTestSupport.tinyModel());
             LlamaContext c = m.newContext(LlamaContext.Options.of(256));
             Arena a = Arena.ofConfined()) {
            System.out.println("layers " + m.layers() + " hidden " + m.hidden() + " heads " + m.heads() + "/" + m.kvHeads() + " vocab " + m.vocabSize());
            int[] t = m.tokenize("hello world this is a test of the tokenizer", true);
            System.out.println(Arrays.toString(t));
            float[] l = c.prefill(0, t, 0, t.length, 0);
            System.out.println("argmax " + LlamaContext.argmax(l));
            MemorySegment s = c.state(0, a);
            System.out.println("state " + s.byteSize() + " for " + t.length + " tokens");
            int[] head = s.asSlice(0, 64).toArray(ValueLayout.JAVA_INT);
            System.out.println(Arrays.toString(head));
            assertTrue(s.byteSize() > 0);
        }
    }
}
