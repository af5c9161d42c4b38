package dev.kvlab.transport.internal.tcp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Compares an offered auth token with the expected one in constant time (both hashed first, so length leaks nothing). */
final class TokenCheck {

    private final byte[] expectedDigest;

    TokenCheck(String expected) {
        this.expectedDigest = expected == null ? null : sha256(expected.getBytes(StandardCharsets.UTF_8));
    }

    boolean required() {
        return expectedDigest != null;
    }

    boolean accepts(byte[] offered) {
        if (expectedDigest == null) return true;
        return MessageDigest.isEqual(expectedDigest, sha256(offered));
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
