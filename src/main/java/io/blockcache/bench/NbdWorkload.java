package io.blockcache.bench;

/**
 * The three fio workloads of {@code bench nbd} (issue 4 item 6), all at iodepth 32 on one connection.
 */
public enum NbdWorkload {
    /** 4 KiB random reads: request rate and per-request overhead on the read path. */
    RANDREAD4K("randread4k", "randread", 4 << 10, true),
    /** 4 KiB random writes: per-request overhead on the write path (for us: journal, CRC32C, index). */
    RANDWRITE4K("randwrite4k", "randwrite", 4 << 10, false),
    /** 1 MiB sequential writes: bandwidth, where copies and checksums per byte dominate. */
    SEQWRITE1M("seqwrite1m", "write", 1 << 20, false);

    /** Requests in flight per job: the iodepth, deep enough that a server must pipeline. */
    public static final int IODEPTH = 32;

    private final String label;
    private final String fioRw;
    private final int blockBytes;
    private final boolean reads;

    NbdWorkload(String label, String fioRw, int blockBytes, boolean reads) {
        this.label = label;
        this.fioRw = fioRw;
        this.blockBytes = blockBytes;
        this.reads = reads;
    }

    /** The name in tables and JSON ({@code randread4k}, {@code randwrite4k}, {@code seqwrite1m}). */
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
}
