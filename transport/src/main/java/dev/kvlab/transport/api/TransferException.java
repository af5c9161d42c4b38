package dev.kvlab.transport.api;

/** A batch could not complete: the peer died, the connection broke, or the batch timed out. */
public class TransferException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TransferException(String message) {
        super(message);
    }

    public TransferException(String message, Throwable cause) {
        super(message, cause);
    }
}
