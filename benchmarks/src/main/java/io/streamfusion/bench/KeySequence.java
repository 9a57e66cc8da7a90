package io.streamfusion.bench;

import java.util.SplittableRandom;

/**
 * Keys, uniform or Zipf-skewed, at the same cost for every backend. Uniform keys are drawn on each
 * call: a precomputed cycle of 2^20 draws over 1M keys touches only about 650k distinct keys, which
 * a cache of half the keys serves far better than uniform access allows. Zipf keys come from a
 * precomputed cycle, since drawing one costs a binary search over the key count.
 */
final class KeySequence {

    private static final int LENGTH = 1 << 20;

    private final SplittableRandom random;
    private final int keyCount;
    private final long[] keys;
    private int next;

    KeySequence(String distribution, int keyCount, long seed) {
        this.random = new SplittableRandom(seed);
        this.keyCount = keyCount;
        switch (distribution) {
            case "uniform":
                keys = null;
                break;
            case "zipf":
                keys = new long[LENGTH];
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
        if (keys == null) {
            return random.nextInt(keyCount);
        }
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
