package dev.kvlab.harness.llama.internal.realkv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Linux network namespace by its {@code ip netns} name (a file under {@code /run/netns}): another "host" on this
 * machine, as {@code scripts/netns-cluster.sh} makes them, joined to the others by shaped veth links. {@link #call}
 * runs code on a thread of its own that has entered the namespace ({@code setns(2)}): a socket that code opens belongs
 * to the namespace for its whole life, whatever thread uses it later, so a server it binds is reached over the
 * namespace's links only. Entering one needs {@code CAP_SYS_ADMIN} (root).
 */
final class NetNamespace {

    /** {@code CLONE_NEWNET} of {@code <sched.h>}. */
    private static final int CLONE_NEWNET = 0x40000000;
    /** {@code O_RDONLY | O_CLOEXEC}. */
    private static final int OPEN_FLAGS = 0x80000;

    private NetNamespace() {}

    /** Where {@code ip netns} keeps the namespace {@code name}. */
    static Path path(String name) {
        return Path.of("/run/netns", name);
    }

    /** Why {@code name} cannot be a namespace's name here (null: it can): a plain file name that exists under /run/netns. */
    static String problem(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"))
            return "'" + name + "' is not a network namespace's name (letters, digits, '_', '.', '-')";
        if (!Files.exists(path(name)))
            return "no network namespace '" + name + "' (" + path(name) + "; scripts/netns-cluster.sh up --decode-host "
                    + "makes one, ip netns list shows them)";
        return null;
    }

    /** {@code body}'s result, run on a new platform thread inside the namespace {@code name}; its exception rethrown. */
    static <T> T call(String name, Callable<T> body) {
        String why = problem(name);
        if (why != null) throw new IllegalArgumentException(why);
        AtomicReference<T> out = new AtomicReference<>();
        AtomicReference<Throwable> err = new AtomicReference<>();
        Thread t = Thread.ofPlatform().name("kvlab-netns-" + name).start(() -> {
            try {
                enter(name);
                out.set(body.call());
            } catch (Throwable e) {
                err.set(e);
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while working in network namespace " + name, e);
        }
        Throwable e = err.get();
        if (e instanceof RuntimeException r) throw r;
        if (e instanceof Error r) throw r;
        if (e != null) throw new IllegalStateException(e.getMessage(), e);
        return out.get();
    }

    /** The namespace's first IPv4 address on an interface that is up and not loopback (its address on its link). */
    static String address(String name) {
        return call(name, () -> {
            for (NetworkInterface i : NetworkInterface.networkInterfaces().toList()) {
                if (!i.isUp() || i.isLoopback()) continue;
                for (var a : i.getInterfaceAddresses())
                    if (a.getAddress() instanceof Inet4Address v4) return v4.getHostAddress();
            }
            throw new SocketException("network namespace " + name + " has no IPv4 address on a link that is up");
        });
    }

    /** libc's {@code open}, {@code setns} and {@code close}, looked up once (when a namespace is first entered). */
    private static final class Libc {
        static final Linker LINKER = Linker.nativeLinker();
        static final StructLayout STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO =
                STATE.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        static final MethodHandle OPEN = LINKER.downcallHandle(
                LINKER.defaultLookup().find("open").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
                Linker.Option.captureCallState("errno"));
        static final MethodHandle SETNS = LINKER.downcallHandle(
                LINKER.defaultLookup().find("setns").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
                Linker.Option.captureCallState("errno"));
        static final MethodHandle CLOSE = LINKER.downcallHandle(
                LINKER.defaultLookup().find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    /** The calling thread enters the namespace {@code name} (its file opened, {@code setns(fd, CLONE_NEWNET)}). */
    private static void enter(String name) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(Libc.STATE);
            int fd = (int) Libc.OPEN.invokeExact(st, a.allocateFrom(path(name).toString()), OPEN_FLAGS);
            if (fd < 0)
                throw new IllegalStateException(
                        "cannot open " + path(name) + ": errno " + (int) Libc.ERRNO.get(st, 0L));
            try {
                int rc = (int) Libc.SETNS.invokeExact(st, fd, CLONE_NEWNET);
                if (rc != 0) {
                    int e = (int) Libc.ERRNO.get(st, 0L);
                    throw new IllegalStateException("cannot enter network namespace " + name + ": errno " + e
                            + (e == 1 ? " (EPERM: entering a namespace needs root, CAP_SYS_ADMIN)" : ""));
                }
            } finally {
                int ignored = (int) Libc.CLOSE.invokeExact(fd);
            }
        }
    }
}
