package dev.kvlab.harness.benchmark.api;

/**
 * A benchmark or calibration could not do its job: the store is unreachable, refused the token, is not a kvlab store,
 * or failed every operation. The message names the target first and says why; the CLI exits 1 with it.
 */
public final class BenchFailedException extends RuntimeException {

    public BenchFailedException(String message) {
        super(message);
    }
}
