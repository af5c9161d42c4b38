package dev.kvlab.store.internal.backend;

import java.net.URI;
import java.net.URISyntaxException;

/** A {@code scheme://HOST:PORT} backend address. */
public record HostPort(String host, int port) {

    public static HostPort parse(String spec, String scheme) {
        try {
            URI u = new URI(spec);
            if (!scheme.equals(u.getScheme())
                    || u.getHost() == null
                    || u.getPort() < 1
                    || u.getPort() > 65535
                    || (u.getPath() != null
                            && !u.getPath().isEmpty()
                            && !u.getPath().equals("/"))
                    || u.getQuery() != null)
                throw new IllegalArgumentException(
                        "not a " + scheme + " address: '" + spec + "' (expected " + scheme + "://HOST:PORT)");
            return new HostPort(u.getHost(), u.getPort());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "not a " + scheme + " address: '" + spec + "' (expected " + scheme + "://HOST:PORT)");
        }
    }
}
