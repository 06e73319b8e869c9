package io.blockcache.bench;

/**
 * The rows of {@code bench nbd}, in the order they run and print: reads first (of data the
 * fills prepared), then writes. Each row is one fio job group over one {@link NbdRegion}.
 */
public enum NbdWorkload {
    /** 4 KiB random reads of data that went around blockcache's cache: the miss path (fills included). */
    RANDREAD4K_MISS("randread4k-miss", "randread", 4 << 10, true, 1, 32, NbdRegion.MISS),
    /** 4 KiB random reads of data cached by 4 KiB writes and drained: every read is a whole CRC span. */
    RANDREAD4K_HIT4K("randread4k-hit4k", "randread", 4 << 10, true, 1, 32, NbdRegion.HIT4K),
    /** 4 KiB random reads of data cached by 64 KiB writes: each read is 1/16 of its CRC span. */
    RANDREAD4K_HIT64K("randread4k-hit64k", "randread", 4 << 10, true, 1, 32, NbdRegion.HIT64K),
    /** 4 KiB random reads of data cached by 1 MiB writes (128 KiB extents): 1/32 of the span. */
    RANDREAD4K_HIT1M("randread4k-hit1m", "randread", 4 << 10, true, 1, 32, NbdRegion.HIT1M),
    /** The hit4k reads from 4 connections at iodepth 8 each (same 32 in flight). */
    RANDREAD4K_4X8("randread4k-4x8", "randread", 4 << 10, true, 4, 8, NbdRegion.HIT4K),
    /** 4 KiB random writes, writeback running (blockcache writes back concurrently). */
    RANDWRITE4K("randwrite4k", "randwrite", 4 << 10, false, 1, 32, NbdRegion.WRITES),
    /** 4 KiB random writes with blockcache's writeback paused (the others run the same job again). */
    RANDWRITE4K_WB_PAUSED("randwrite4k-wbpaused", "randwrite", 4 << 10, false, 1, 32, NbdRegion.WRITES),
    /** 1 MiB sequential writes: bandwidth, where copies and checksums per byte dominate. */
    SEQWRITE1M("seqwrite1m", "write", 1 << 20, false, 1, 32, NbdRegion.WRITES),
    /** 4 KiB random writes from 4 connections at iodepth 8 each. */
    RANDWRITE4K_4X8("randwrite4k-4x8", "randwrite", 4 << 10, false, 4, 8, NbdRegion.WRITES);

    private final String label;
    private final String fioRw;
    private final int blockBytes;
    private final boolean reads;
    private final int connections;
    private final int iodepth;
    private final NbdRegion region;

    NbdWorkload(String label, String fioRw, int blockBytes, boolean reads, int connections, int iodepth,
                NbdRegion region) {
        this.label = label;
        this.fioRw = fioRw;
        this.blockBytes = blockBytes;
        this.reads = reads;
        this.connections = connections;
        this.iodepth = iodepth;
        this.region = region;
    }

    /** The name in tables and JSON. */
    public String label() {
        return label;
    }

    /** fio's {@code rw=} value. */
    public String fioRw() {
        return fioRw;
    }

    /** fio's {@code bs=}, in bytes. */
    public int blockBytes() {
        return blockBytes;
    }

    /** Whether fio reports this workload in its {@code read} section (else {@code write}). */
    public boolean reads() {
        return reads;
    }

    /** fio jobs, each with its own NBD connection ({@code numjobs=}). */
    public int connections() {
        return connections;
    }

    /** Requests in flight per connection ({@code iodepth=}). */
    public int iodepth() {
        return iodepth;
    }

    /** Where in the export it runs. */
    NbdRegion region() {
        return region;
    }
}
