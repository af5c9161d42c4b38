package dev.kvlab.harness.api.input;

/**
 * Input that kvlab refuses before doing anything: a bad config value, an unknown key, a malformed matrix. The
 * message names where: {@code FILE:LINE: reason}, or {@code key 'a.b': reason}. The CLI exits 2 on it.
 */
public class BadInputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BadInputException(String message) {
        super(message);
    }

    public BadInputException(String message, Throwable cause) {
        super(message, cause);
    }

    /** {@code FILE:LINE: reason}. */
    public static BadInputException at(String file, long line, String reason) {
        return new BadInputException(file + ":" + line + ": " + reason);
    }

    /** {@code key 'KEY': reason}. */
    public static BadInputException key(String key, String reason) {
        return new BadInputException("key '" + key + "': " + reason);
    }
}
