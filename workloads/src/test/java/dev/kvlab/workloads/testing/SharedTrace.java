package dev.kvlab.workloads.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Test fixture: finds the shared Mooncake conversation trace, which is data beside the project and never copied
 * into it. Looks in {@code $KVLAB_TRACE_DIR}, then walks up from the working directory to a directory that has
 * {@code shared/data/traces/mooncake-conversation.jsonl}. When it is absent, tests skip with the reason, unless
 * {@code KVLAB_CI=1}, where they fail.
 */
public final class SharedTrace {

    public static final String CONVERSATION = "mooncake-conversation.jsonl";
    /** Reference figures of the conversation trace ({@code shared/data/traces/README.md}). */
    public static final long CONVERSATION_REQUESTS = 12_031;

    private SharedTrace() {}

    /** The conversation trace, or the test is aborted (skipped) with a reason / failed in CI. */
    public static Path conversation() {
        return require(CONVERSATION);
    }

    /** A trace file of the shared trace directory, or the test is aborted (skipped) with a reason / failed in CI. */
    public static Path require(String fileName) {
        Optional<Path> p = find(fileName);
        if (p.isPresent()) return p.get();
        String reason = "shared trace " + fileName + " not found: set KVLAB_TRACE_DIR, or keep shared/data/traces/ "
                + "beside the project (searched up from " + Path.of("").toAbsolutePath() + ")";
        if ("1".equals(System.getenv("KVLAB_CI"))) fail(reason + " [KVLAB_CI=1: a missing trace is a failure]");
        abort(reason);
        throw new AssertionError("unreachable");
    }

    /** Locates a shared trace file without skipping. */
    public static Optional<Path> find(String fileName) {
        String dir = System.getenv("KVLAB_TRACE_DIR");
        if (dir != null && !dir.isBlank()) {
            Path p = Path.of(dir).resolve(fileName);
            if (Files.isRegularFile(p)) return Optional.of(p);
        }
        return SourceTree.find("shared/data/traces/" + fileName).filter(Files::isRegularFile);
    }
}
