package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code kvlab demo} runs its real-engine section by default; {@code --no-real-engine} leaves it out. */
class DemoOptionsTest {

    private static DemoCommand parse(String... args) {
        DemoCommand d = new DemoCommand();
        new CommandLine(d).parseArgs(args);
        return d;
    }

    @Test
    void theRealEngineSectionIsOnUnlessOptedOut() {
        assertThat(parse().realEngine).isTrue();
        assertThat(parse("--no-real-engine").realEngine).isFalse();
        assertThat(parse("--real-engine").realEngine).isTrue();
    }
}
