package io.streamfusion.bench;

import java.util.SplittableRandom;

/**
 * A precomputed cyclic sequence of keys, uniform or Zipf-skewed, so that choosing the next key
 * costs the same (one array read) for every backend and distribution.
 */
final class KeySequence {

    private static final int LENGTH = 1 << 20;

    private final long[] keys = new long[LENGTH];
    private int next;

    KeySequence(String distribution, int keyCount, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        switch (distribution) {
            case "uniform":
                for (int i = 0; i < LENGTH; i++) {
                    keys[i] = random.nextInt(keyCount);
                }
                break;
            case "zipf":
                double[] cumulative = zipfCumulative(keyCount, 1.0);
                for (int i = 0; i < LENGTH; i++) {
                    keys[i] = search(cumulative, random.nextDouble());
                }
                break;
            default:
                throw new IllegalArgumentException(
                        "Unknown key distribution '" + distribution + "'; use uniform or zipf");
        }
    }

    long next() {
        long key = keys[next];
        next = (next + 1) & (LENGTH - 1);
        return key;
    }

    /** Cumulative probabilities of ranks 1..n with P(rank k) proportional to 1 / k^s. */
    private static double[] zipfCumulative(int n, double s) {
        double[] cumulative = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1.0 / Math.pow(k + 1, s);
            cumulative[k] = sum;
        }
        for (int k = 0; k < n; k++) {
            cumulative[k] /= sum;
        }
        return cumulative;
    }

    private static int search(double[] cumulative, double u) {
        int low = 0;
        int high = cumulative.length - 1;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (cumulative[mid] < u) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
