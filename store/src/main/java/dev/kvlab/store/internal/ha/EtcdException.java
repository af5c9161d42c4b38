package dev.kvlab.store.internal.ha;

/** etcd could not be reached, or refused a request (its message and gRPC code, when it answered). */
public final class EtcdException extends RuntimeException {

    private final int code;

    public EtcdException(String message, int code, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The gRPC status code etcd answered with; -1 when it did not answer. */
    public int code() {
        return code;
    }
}
