package dev.kvlab.harness.internal.metrics;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/** Run ids for runs that make no bundle (a single {@code kvlab run CONFIG.yaml}), in the bundle format's shape. */
public final class RunIds {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

    private RunIds() {}

    /** {@code <yyyyMMdd-HHmmss UTC>-<config base name>-<6 random hex>}. */
    public static String single(Path config) {
        String name = config.getFileName().toString().replaceFirst("\\.ya?ml$", "").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
        byte[] r = new byte[3];
        ThreadLocalRandom.current().nextBytes(r);
        return STAMP.format(ZonedDateTime.now(ZoneOffset.UTC)) + "-" + name + "-" + HexFormat.of().formatHex(r);
    }
}
