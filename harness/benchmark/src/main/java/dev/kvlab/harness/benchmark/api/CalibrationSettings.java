package dev.kvlab.harness.benchmark.api;

import dev.kvlab.harness.api.input.BadOptionException;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.transport.api.LinkSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * What a calibration of this machine's transports measures ({@code kvlab calibrate}): {@code transports}, known ones in
 * order without repeats, each for 4 measurements of {@code duration}, rdma-emu emulating {@code link} (null: its default).
 */
public record CalibrationSettings(List<String> transports, Duration duration, LinkSpec link) {

    /**
     * The settings of the command-line text: {@code transports} (stripped, blanks dropped; null: every one of {@code known}),
     * {@code duration} as {@link #duration(String)} takes it, {@code link} a {@link LinkSpec} or null. Anything else is a
     * {@link BadOptionException}.
     */
    public static CalibrationSettings parse(List<String> known, List<String> transports, String duration, String link) {
        List<String> names = new ArrayList<>(new LinkedHashSet<>(
                transports == null
                        ? known
                        : transports.stream()
                                .map(String::strip)
                                .filter(n -> !n.isEmpty())
                                .toList()));
        if (names.isEmpty())
            throw new BadOptionException("--transports names no transport (known: " + String.join(", ", known) + ")");
        for (String n : names)
            if (!known.contains(n))
                throw new BadOptionException("unknown transport '" + n + "' (known: " + String.join(", ", known) + ")");
        Duration d = duration(duration);
        try {
            return new CalibrationSettings(List.copyOf(names), d, link == null ? null : LinkSpec.parse(link));
        } catch (IllegalArgumentException e) {
            throw new BadOptionException(e.getMessage(), e);
        }
    }

    /** A calibration's time per measurement: {@code text} parsed ({@code 1s}, {@code 500ms}), more than 0 and at most 10 minutes. */
    public static Duration duration(String text) {
        try {
            Duration d = DurationSpec.parse(text);
            if (d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0)
                throw new IllegalArgumentException("--duration must be > 0 and <= 10m");
            return d;
        } catch (IllegalArgumentException e) {
            throw new BadOptionException(e.getMessage(), e);
        }
    }
}
