package dev.kvlab.harness.llama.api;

/**
 * The in-process engine cannot run on this machine: its library cannot be installed, is not the pinned version,
 * its struct layouts differ from the pinned ones, or it fails to load. The message says which. The CLI exits 2.
 */
public class EngineUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public EngineUnavailableException(String message) {
        super(message);
    }

    public EngineUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
