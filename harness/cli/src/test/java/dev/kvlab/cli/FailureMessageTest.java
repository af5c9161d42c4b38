package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import org.junit.jupiter.api.Test;

/** Issue 26: a failure whose exception carries no message is described by its kind (and cause), never as "null". */
class FailureMessageTest {

    @Test
    void anExceptionWithoutAMessageIsDescribedByItsKind() {
        assertThat(Kvlab.describe(new EOFException())).isEqualTo("EOFException");
        assertThat(Kvlab.describe(new IllegalStateException(null, new java.io.IOException("disk full"))))
                .isEqualTo("IllegalStateException: disk full");
        assertThat(Kvlab.describe(new IllegalStateException("plain"))).isEqualTo("plain");
    }
}
