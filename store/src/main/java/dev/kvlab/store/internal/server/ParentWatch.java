package dev.kvlab.store.internal.server;

/**
 * Ends this process when another one is gone: store processes that a harness started ({@code --parent-pid}) must not
 * outlive it, even when it was killed with SIGKILL and could not stop them.
 */
public final class ParentWatch {

    private ParentWatch() {}

    /** Starts a daemon thread that halts this JVM (exit 1) once process {@code pid} is gone; does nothing for null. */
    public static void exitWith(Long pid) {
        if (pid == null) return;
        Thread.ofPlatform().daemon().name("kvlab-parent-watch").start(() -> {
            while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
            Runtime.getRuntime().halt(1); // the harness that started this process is gone
        });
    }
}
