package dev.kvlab.store.api;

/**
 * Result of one get: its status, the object's length when it was a {@link GetStatus#HIT} (0 otherwise), and
 * a short detail for non-hits (may be empty).
 */
public record GetResult(GetStatus status, long length, String detail) {

    private static final GetResult MISS = new GetResult(GetStatus.MISS, 0, "");

    public static GetResult hit(long length) {
        return new GetResult(GetStatus.HIT, length, "");
    }

    public static GetResult miss() {
        return MISS;
    }

    public static GetResult failed(GetStatus status, String detail) {
        return new GetResult(status, 0, detail == null ? "" : detail);
    }

    public boolean isHit() {
        return status == GetStatus.HIT;
    }
}
