package dev.kvlab.store.api.server;

/**
 * A launch whose settings cannot work, refused before anything serves: an endpoint off loopback without a token, or a
 * control plane address that cannot be bound. The message names the setting by its command-line option.
 */
public final class LaunchRefusedException extends RuntimeException {

    public LaunchRefusedException(String message, Throwable cause) {
        super(message, cause);
    }
}
