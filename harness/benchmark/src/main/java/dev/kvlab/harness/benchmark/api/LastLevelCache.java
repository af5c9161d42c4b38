package dev.kvlab.harness.benchmark.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The size of the largest CPU cache (Linux sysfs), so that benchmarks can choose working sets that do not fit. */
final class LastLevelCache {
    private LastLevelCache() {}

    private static final long BYTES = read();

    static long bytes() {
        return BYTES;
    }

    private static long read() {
        long best = 32L << 20; // a guess where sysfs says nothing
        Path dir = Path.of("/sys/devices/system/cpu/cpu0/cache");
        for (int i = 0; i < 8; i++) {
            Path size = dir.resolve("index" + i).resolve("size");
            try {
                String s = Files.readString(size).strip().toUpperCase(java.util.Locale.ROOT);
                long mult = s.endsWith("K") ? 1L << 10 : s.endsWith("M") ? 1L << 20 : s.endsWith("G") ? 1L << 30 : 1;
                long v = Long.parseLong(s.replaceAll("[^0-9]", "")) * mult;
                best = Math.max(best, v);
            } catch (IOException | RuntimeException ignored) {
                // no such level
            }
        }
        return Math.min(best, 4L << 30);
    }
}
