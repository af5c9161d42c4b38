package dev.kvlab.transport.api;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;

/**
 * The portable name of a registered segment: which transport serves it, where, which segment and how big.
 * It travels between processes (for example from a storage node to the store master to a client) as a URI
 * string, {@code <transport>://<address>/<segment>?size=<bytes>}; for shared-memory transports the address is
 * empty and the path names the backing file, e.g. {@code shm:///dev/shm/kvlab-n1-seg0?size=1048576}.
 */
public record SegmentHandle(String transport, String address, String segment, long size) {

    public SegmentHandle {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(segment, "segment");
        if (size < 0) throw new IllegalArgumentException("segment size must be >= 0, got " + size);
    }

    /** The URI form, parseable by {@link #parse(String)}. */
    public String toUri() {
        String path = segment.startsWith("/") ? segment : "/" + segment;
        return transport + "://" + address + path + "?size=" + size;
    }

    /** Parses the form written by {@link #toUri()}; throws {@link IllegalArgumentException} with the reason. */
    public static SegmentHandle parse(String uri) {
        try {
            URI u = new URI(uri);
            if (u.getScheme() == null)
                throw new IllegalArgumentException("segment handle has no transport scheme: " + uri);
            String q = u.getRawQuery();
            if (q == null || !q.startsWith("size="))
                throw new IllegalArgumentException("segment handle has no size: " + uri);
            long size = Long.parseLong(q.substring(5));
            String authority = u.getRawAuthority() == null ? "" : u.getRawAuthority();
            String path = u.getPath() == null ? "" : u.getPath();
            String segment = authority.isEmpty() ? path : path.substring(1);
            return new SegmentHandle(u.getScheme(), authority, segment, size);
        } catch (URISyntaxException | NumberFormatException e) {
            throw new IllegalArgumentException("not a segment handle: " + uri + " (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public String toString() {
        return toUri();
    }
}
