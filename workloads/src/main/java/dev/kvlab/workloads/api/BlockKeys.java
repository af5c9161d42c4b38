package dev.kvlab.workloads.api;

/**
 * Block keys are chained over the prefix: {@code key[0] = chain(namespace.digest(), content[0])},
 * {@code key[i] = chain(key[i-1], content[i])}. Equal keys therefore mean the same block after the same prefix
 * in the same namespace, which is exactly when KV may be reused.
 *
 * <p>For Mooncake traces, whose {@code hash_ids} already name a block together with its prefix, the key is
 * {@link #ofTraceId(long, long)}: the namespace digest mixed with the id.
 */
public final class BlockKeys {

    private BlockKeys() {}

    /** The key of a block whose content id is {@code content}, following the block whose key is {@code parent}. */
    public static long chain(long parent, long content) {
        return mix(parent * 0x9E3779B97F4A7C15L + content + 0x632BE59BD9B4E019L);
    }

    /** The key of a trace block named by {@code hashId} (already prefix-chained by the trace) in a namespace. */
    public static long ofTraceId(long namespaceDigest, long hashId) {
        return mix(namespaceDigest ^ mix(hashId + 0x5851F42D4C957F2DL));
    }

    /**
     * The inverse of {@link #ofTraceId(long, long)}: the trace id that maps to {@code key} in the namespace whose
     * digest is {@code namespaceDigest}. Writers use it so that a written trace reads back to the same keys.
     */
    public static long traceIdOf(long namespaceDigest, long key) {
        return unmix(unmix(key) ^ namespaceDigest) - 0x5851F42D4C957F2DL;
    }

    /** The store key string of a block key: {@code kv/<16 hex digits>}. */
    public static String storeKey(long key) {
        byte[] b = new byte[19];
        b[0] = 'k';
        b[1] = 'v';
        b[2] = '/';
        for (int i = 18; i >= 3; i--, key >>>= 4) b[i] = HEX[(int) (key & 0xF)];
        return new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);

    /** SplitMix64 finaliser. */
    public static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The inverse of {@link #mix(long)}: {@code unmix(mix(z)) == z} for every {@code z}. */
    public static long unmix(long z) {
        z = z ^ (z >>> 31) ^ (z >>> 62);
        z *= 0x319642B2D24D8EC3L; // inverse of 0x94D049BB133111EB mod 2^64
        z = z ^ (z >>> 27) ^ (z >>> 54);
        z *= 0x96DE1B173F119089L; // inverse of 0xBF58476D1CE4E5B9 mod 2^64
        z = z ^ (z >>> 30) ^ (z >>> 60);
        return z - 0x9E3779B97F4A7C15L;
    }
}
