package dev.kvlab.workloads.api;

/**
 * Bad workload input: the message starts with {@code FILE:LINE:} when it comes from a file. The CLI turns it
 * into exit code 2.
 */
public class WorkloadFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final long line;

    public WorkloadFormatException(String file, long line, String reason) {
        super(file + ":" + line + ": " + reason);
        this.file = file;
        this.line = line;
    }

    public WorkloadFormatException(String reason) {
        super(reason);
        this.file = null;
        this.line = 0;
    }

    /** The file, or null when the input did not come from one. */
    public String file() {
        return file;
    }

    /** 1-based line number, or 0. */
    public long line() {
        return line;
    }
}
