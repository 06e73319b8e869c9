package io.blockcache.sim;

/**
 * What a crash did to the writes that were not yet durable: how many survived whole, vanished, or
 * survived torn (a proper, non-empty subset of their 512-byte sectors landed).
 */
public record CrashOutcome(int survived, int vanished, int torn) {
    /** Returns the number of writes that were exposed to the crash. */
    public int exposed() {
        return survived + vanished + torn;
    }
}
