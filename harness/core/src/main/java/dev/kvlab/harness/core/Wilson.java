package dev.kvlab.harness.core;

/** The Wilson score interval of a binomial share (95%: z = 1.96), as GuideLLM reports per probe. */
public record Wilson(double lo, double hi) {

    static final double Z95 = 1.959963984540054;

    /** The interval of {@code k} successes in {@code n} trials; [0, 1] when {@code n} is 0. */
    public static Wilson of(long k, long n) {
        return of(k, n, Z95);
    }

    /** The interval of {@code k} successes in {@code n} trials at normal quantile {@code z}; [0, 1] when {@code n} is 0. */
    public static Wilson of(long k, long n, double z) {
        if (n <= 0) return new Wilson(0, 1);
        double p = (double) k / n, z2 = z * z;
        double denom = 1 + z2 / n;
        double centre = (p + z2 / (2.0 * n)) / denom;
        double half = z * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denom;
        return new Wilson(Math.max(0, centre - half), Math.min(1, centre + half));
    }

    /** Whether {@code x} lies inside the interval (the verdict against target {@code x} is undecided at 95%). */
    public boolean straddles(double x) {
        return lo < x && x < hi;
    }
}
