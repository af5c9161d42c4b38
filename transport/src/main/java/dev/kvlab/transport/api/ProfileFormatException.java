package dev.kvlab.transport.api;

import java.nio.file.Path;

/** A transport profile that cannot be read: the message is {@code FILE:LINE: reason} (line 0 when unknown). */
public final class ProfileFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final int line;

    public ProfileFormatException(Path file, int line, String reason, Throwable cause) {
        super(file + (line > 0 ? ":" + line : "") + ": " + reason, cause);
        this.file = file;
        this.line = line;
    }

    public Path file() {
        return file;
    }

    public int line() {
        return line;
    }
}
