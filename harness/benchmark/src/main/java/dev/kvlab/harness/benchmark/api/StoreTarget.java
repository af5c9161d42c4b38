package dev.kvlab.harness.benchmark.api;

import dev.kvlab.harness.api.input.BadOptionException;
import java.util.regex.Pattern;

/** A running store named as {@code kvlab://HOST:PORT} ({@code kvlab calibrate --target}): the name, its host and its port (1..65535). */
public record StoreTarget(String uri, String host, int port) {

    private static final Pattern FORM = Pattern.compile("kvlab://[^\\s/:]+:\\d{1,5}");

    /** Parses {@code text}; a {@link BadOptionException} naming {@code --target} when it is not {@code kvlab://HOST:PORT}. */
    public static StoreTarget parse(String text) {
        if (!FORM.matcher(text).matches())
            throw new BadOptionException("--target must be kvlab://HOST:PORT, got '" + text + "'");
        int port = Integer.parseInt(text.substring(text.lastIndexOf(':') + 1));
        if (port < 1 || port > 65535)
            throw new BadOptionException("--target " + text + ": port must be 1..65535, got " + port);
        return new StoreTarget(text, text.substring("kvlab://".length(), text.lastIndexOf(':')), port);
    }
}
