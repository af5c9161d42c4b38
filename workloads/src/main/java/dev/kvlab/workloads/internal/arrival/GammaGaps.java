package dev.kvlab.workloads.internal.arrival;

import java.util.SplittableRandom;

/**
 * Gamma-distributed gaps with a given shape and mean (shape 1 = exponential, i.e. Poisson arrivals). Marsaglia-Tsang
 * for shape >= 1, boosted for shape < 1; normals by Box-Muller. Only {@link SplittableRandom#nextDouble()} is used,
 * so a seed gives the same gaps on every JDK.
 */
final class GammaGaps {

    private final SplittableRandom rnd;
    private final double shape;
    private final double scale;
    private double spareNormal = Double.NaN;

    GammaGaps(SplittableRandom rnd, double shape, double mean) {
        this.rnd = rnd;
        this.shape = shape;
        this.scale = mean / shape;
    }

    double next() {
        if (shape == 1.0) return -Math.log(1.0 - rnd.nextDouble()) * scale;
        if (shape < 1.0) {
            double u = 1.0 - rnd.nextDouble(); // (0, 1]
            return gamma(shape + 1.0) * Math.pow(u, 1.0 / shape) * scale;
        }
        return gamma(shape) * scale;
    }

    private double gamma(double k) {
        double d = k - 1.0 / 3.0;
        double c = 1.0 / Math.sqrt(9.0 * d);
        while (true) {
            double x, v;
            do {
                x = normal();
                v = 1.0 + c * x;
            } while (v <= 0);
            v = v * v * v;
            double u = 1.0 - rnd.nextDouble();
            if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
            if (Math.log(u) < 0.5 * x * x + d * (1.0 - v + Math.log(v))) return d * v;
        }
    }

    private double normal() {
        if (!Double.isNaN(spareNormal)) {
            double s = spareNormal;
            spareNormal = Double.NaN;
            return s;
        }
        double u1 = 1.0 - rnd.nextDouble(); // (0, 1]
        double u2 = rnd.nextDouble();
        double r = Math.sqrt(-2.0 * Math.log(u1));
        spareNormal = r * Math.sin(2 * Math.PI * u2);
        return r * Math.cos(2 * Math.PI * u2);
    }
}
