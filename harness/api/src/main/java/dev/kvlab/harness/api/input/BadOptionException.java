package dev.kvlab.harness.api.input;

/**
 * Bad input given as a command-line option: a value out of range or options that do not go together. The message
 * names the option ({@code --tokens must be 1..N}); the CLI exits 2 on it and points to the command's help.
 */
public class BadOptionException extends BadInputException {
    private static final long serialVersionUID = 1L;

    public BadOptionException(String message) {
        super(message);
    }

    public BadOptionException(String message, Throwable cause) {
        super(message, cause);
    }
}
