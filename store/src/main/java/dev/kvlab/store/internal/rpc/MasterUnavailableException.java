package dev.kvlab.store.internal.rpc;

/** The master could not be reached or did not answer in time. */
public class MasterUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MasterUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
