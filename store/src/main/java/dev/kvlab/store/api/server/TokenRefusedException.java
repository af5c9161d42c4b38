package dev.kvlab.store.api.server;

/** The master refused a node's auth token (wrong, or none given): final, since retrying with the same token cannot succeed. */
public final class TokenRefusedException extends RuntimeException {

    public TokenRefusedException(String message) {
        super(message);
    }
}
