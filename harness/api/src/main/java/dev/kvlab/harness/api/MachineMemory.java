package dev.kvlab.harness.api;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.store.api.master.Master;
import dev.kvlab.transport.api.ByteSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What this machine's memory can give, for checks made before anything is allocated: the physical total, and what
 * is available now ({@code MemAvailable} of {@code /proc/meminfo} on Linux, the free physical memory elsewhere).
 * Zero means unknown (a check then does not guess).
 *
 * @param totalBytes     physical memory
 * @param availableBytes memory a new allocation can get without swapping or the OOM killer
 */
public record MachineMemory(long totalBytes, long availableBytes) {

    /** This machine, now. */
    public static MachineMemory now() {
        long total = 0, free = 0;
        try {
            if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    instanceof com.sun.management.OperatingSystemMXBean os) {
                total = os.getTotalMemorySize();
                free = os.getFreeMemorySize();
            }
        } catch (RuntimeException | LinkageError e) {
            // unknown
        }
        long available = memAvailable(Path.of("/proc/meminfo"));
        return new MachineMemory(total, available > 0 ? available : free);
    }

    /** One phrase for error messages: "it has 19.1GiB available of 23.5GiB" (or that it is unknown). */
    public String describe() {
        if (availableBytes <= 0) return "this machine's memory is unknown";
        return "this machine has " + ByteSize.format(availableBytes) + " of memory available"
                + (totalBytes > 0 ? " (of " + ByteSize.format(totalBytes) + ")" : "");
    }

    /**
     * Refuses ({@link BadInputException}, naming {@code option} and the size as {@code given}) a store segment of
     * {@code bytes} larger than a segment can be or than 90% of what this memory has available.
     */
    public void checkSegmentFits(String option, String given, long bytes) {
        if (bytes > Master.MAX_SEGMENT_BYTES)
            throw new BadInputException(option + " " + given + ": more than a store segment can be ("
                    + ByteSize.format(Master.MAX_SEGMENT_BYTES) + "); " + describe());
        if (availableBytes > 0 && bytes > availableBytes / 10 * 9)
            throw new BadInputException(option + " " + given + ": more than this machine can give now; " + describe()
                    + ": use " + option + " "
                    + ByteSize.format(Math.max(1L << 20, availableBytes / 10 * 9 / (1L << 20) * (1L << 20)))
                    + " or less");
    }

    /** {@code MemAvailable} of a meminfo file in bytes, 0 when absent. */
    static long memAvailable(Path meminfo) {
        try {
            for (String line : Files.readAllLines(meminfo)) {
                if (!line.startsWith("MemAvailable:")) continue;
                String[] f = line.substring("MemAvailable:".length()).trim().split("\\s+");
                return Math.multiplyExact(
                        Long.parseLong(f[0]), f.length > 1 && f[1].equalsIgnoreCase("kB") ? 1024L : 1L);
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable
        }
        return 0;
    }
}
