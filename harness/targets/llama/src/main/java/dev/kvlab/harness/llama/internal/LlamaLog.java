package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * llama.cpp's log, captured: its callback ({@code llama_log_set}, which also sets ggml's) is one per process, and so
 * is this record of it. It keeps the last error (for exception messages) and echoes everything to stderr with
 * {@code KVLAB_LLAMA_LOG=1}; otherwise llama.cpp stays quiet.
 */
final class LlamaLog {
    private LlamaLog() {}

    private static final int LOG_ERROR = 4, LOG_CONT = 5;
    private static final boolean ECHO = "1".equals(System.getenv("KVLAB_LLAMA_LOG"));
    private static volatile String lastError = "";
    private static volatile boolean lastWasError;
    private static MemorySegment stub;

    /** Points llama.cpp's log at this class (once per process; the stub lives as long as the process). */
    static synchronized void install(MethodHandle logSet) throws Throwable {
        if (stub == null) {
            MethodHandle target = MethodHandles.lookup()
                    .findStatic(
                            LlamaLog.class,
                            "onLog",
                            MethodType.methodType(void.class, int.class, MemorySegment.class, MemorySegment.class));
            stub = Linker.nativeLinker()
                    .upcallStub(target, FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, ADDRESS), Arena.global());
        }
        logSet.invoke(stub, MemorySegment.NULL);
    }

    /** The last error llama.cpp logged, empty if none. */
    static String lastError() {
        return lastError.strip();
    }

    private static void onLog(int level, MemorySegment text, MemorySegment userData) {
        String s = text.address() == 0 ? "" : text.reinterpret(Long.MAX_VALUE).getString(0);
        if (ECHO) System.err.print(s);
        if (level == LOG_ERROR) {
            lastError = s;
            lastWasError = true;
        } else if (level == LOG_CONT && lastWasError) {
            lastError = lastError + s;
        } else {
            lastWasError = false;
        }
    }
}
