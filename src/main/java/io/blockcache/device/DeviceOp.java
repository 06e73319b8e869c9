package io.blockcache.device;

/** The four kinds of request a {@link BlockDevice} accepts; used to label counters. */
public enum DeviceOp {
    READ,
    WRITE,
    FLUSH,
    DISCARD
}
