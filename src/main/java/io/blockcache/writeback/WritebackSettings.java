package io.blockcache.writeback;

import static io.blockcache.loop.Checks.require;

import java.util.Objects;

/**
 * The settings of one volume's writeback, validated here once; live knobs replace the whole record.
 * Defaults and their sources are in {@link #defaults()} and docs/WRITEBACK.md.
 *
 * @param running whether writeback runs at all (bcache {@code writeback_running})
 * @param policy modern or classic
 * @param order key order of modern passes
 * @param percent dirty target as a percentage of the volume's share of the cache (bcache {@code writeback_percent})
 * @param rateMaxSectorsPerSecond ceiling on the writeback rate at any time, idle included; 0 = none
 * @param rateMinSectorsPerSecond floor of the PI controller's rate (bcache {@code writeback_rate_minimum})
 * @param proportionalInverse P = error / this (bcache {@code writeback_rate_p_term_inverse})
 * @param integralInverse I = integral / this (bcache {@code writeback_rate_i_term_inverse})
 * @param rateUpdateNs period of the PI update (bcache {@code writeback_rate_update_seconds})
 * @param keysPerPassBusy keys per pass while the front end is busy (bcache WRITEBACKS_IN_PASS)
 * @param sectorsPerPassBusy sectors per pass while busy (bcache WRITESIZE_IN_PASS)
 * @param keysPerPassIdle keys per pass while idle or draining (bcache MAX_WRITEBACKS_IN_PASS)
 * @param sectorsPerPassIdle sectors per pass while idle or draining (bcache MAX_WRITESIZE_IN_PASS)
 * @param ioInFlightMax keys between cache read and backing-write completion (bcache {@code dc->in_flight}); a
 *     pass larger than what is free of it is cut to fit (bcache blocks on the semaphore mid-pass instead)
 * @param backingIoSectorsMax largest merged backing write
 * @param idleSampleNs period of the front-end sampling (the early-flush RFC, linux-kernel 2001: 100 ms)
 * @param classicIdleNs front-end quiet time before classic runs at full speed (bcache: ~30 s)
 * @param dirtyExpireNs age after which dirty data is written back even under load (the early-flush RFC, linux-kernel
 *     2001: bdflush's age_buffer)
 * @param fragmentBoost whether bcache's fragmentation term may raise P ({@code writeback_consider_fragment})
 * @param bufferKeysMax bound of the dirty-key buffer (bcache keybuf: 500)
 * @param autoLargeKeySectors mean key size from which {@link WritebackOrder#AUTO} issues in FIFO order
 * @param ordering whether writeback keeps the order of the client's FLUSHes (docs/WRITEBACK.md, "Epoch ordering")
 * @param chunksInFlightMax on a backing device whose write unit is larger than its logical block (an object store's
 *     chunk): chunks between cache read and backing-write completion; their buffers are bounded in bytes besides
 *     ({@code Writeback.CHUNK_BUFFER_BYTES_MAX}), so whole chunks stop at 32 and partial ones go deeper
 *     (docs/WRITEBACK.md, "Object stores")
 * @param rescanDelayNs while the front end is busy, how long a scan that went through the whole index rests before
 *     it sweeps again (bcache {@code writeback_delay}, 30 s); 0 = sweep again at once
 */
public record WritebackSettings(boolean running, WritebackPolicy policy, WritebackOrder order, int percent,
                                long rateMaxSectorsPerSecond, long rateMinSectorsPerSecond, int proportionalInverse,
                                int integralInverse, long rateUpdateNs, int keysPerPassBusy, int sectorsPerPassBusy,
                                int keysPerPassIdle, int sectorsPerPassIdle, int ioInFlightMax,
                                int backingIoSectorsMax, long idleSampleNs, long classicIdleNs, long dirtyExpireNs,
                                boolean fragmentBoost, int bufferKeysMax, int autoLargeKeySectors,
                                WritebackOrdering ordering, int chunksInFlightMax, long rescanDelayNs) {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    public WritebackSettings {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(order, "order");
        Objects.requireNonNull(ordering, "ordering");
        require(percent >= 0 && percent <= 100, "percent must be in [0, 100]: %s", percent);
        require(rateMaxSectorsPerSecond >= 0, "rate_max must be >= 0 (0 = no ceiling): %s", rateMaxSectorsPerSecond);
        require(rateMinSectorsPerSecond >= 1 && rateMinSectorsPerSecond <= 1_000_000_000L,
                "rate_min must be in [1, 10^9] sectors/s: %s", rateMinSectorsPerSecond);
        require(rateMaxSectorsPerSecond == 0 || rateMaxSectorsPerSecond >= rateMinSectorsPerSecond,
                "rate_max %s is below rate_min %s", rateMaxSectorsPerSecond, rateMinSectorsPerSecond);
        require(proportionalInverse >= 1, "p_term_inverse must be >= 1: %s", proportionalInverse);
        require(integralInverse >= 1, "i_term_inverse must be >= 1: %s", integralInverse);
        require(rateUpdateNs >= 100 * MS && rateUpdateNs <= 60 * SECOND, "rate update must be in [0.1, 60] s: %s ns",
                rateUpdateNs);
        require(keysPerPassBusy >= 1 && keysPerPassBusy <= keysPerPassIdle,
                "need 1 <= keys_per_pass_busy <= keys_per_pass_idle: %s, %s", keysPerPassBusy, keysPerPassIdle);
        require(sectorsPerPassBusy >= 1 && sectorsPerPassBusy <= sectorsPerPassIdle,
                "need 1 <= sectors_per_pass_busy <= sectors_per_pass_idle: %s, %s", sectorsPerPassBusy,
                sectorsPerPassIdle);
        require(ioInFlightMax >= 1 && ioInFlightMax <= 4096, "io_in_flight_max must be in [1, 4096]: %s",
                ioInFlightMax);
        require(backingIoSectorsMax >= 8 && backingIoSectorsMax <= 65536,
                "backing_io_sectors_max must be in [8, 65536]: %s", backingIoSectorsMax);
        require(idleSampleNs >= 10 * MS && idleSampleNs <= 10 * SECOND, "idle sample must be in [10 ms, 10 s]: %s ns",
                idleSampleNs);
        require(classicIdleNs >= idleSampleNs, "classic idle time %s ns is shorter than a sample", classicIdleNs);
        require(dirtyExpireNs >= SECOND && dirtyExpireNs <= 86_400 * SECOND,
                "dirty_expire must be in [1 s, 1 day]: %s ns", dirtyExpireNs);
        require(bufferKeysMax >= keysPerPassIdle && bufferKeysMax <= 100_000,
                "buffer_keys_max must be in [keys_per_pass_idle, 100000]: %s", bufferKeysMax);
        require(autoLargeKeySectors >= 8, "auto_large_key_sectors must be >= 8: %s", autoLargeKeySectors);
        require(chunksInFlightMax >= 1 && chunksInFlightMax <= 1024, "chunks_in_flight_max must be in [1, 1024]: %s",
                chunksInFlightMax);
        require(rescanDelayNs >= 0 && rescanDelayNs <= 60 * SECOND, "rescan_delay must be in [0, 60] s: %s ns",
                rescanDelayNs);
    }

    /**
     * The defaults: bcache's constants where bcache has one (writeback.h, writeback.c, the 2025 patch), the early-flush
     * RFC's 100 ms sampling (linux-kernel, 2001), bdflush's 30 s age, and a 1 MiB merge limit (a disk streams at that
     * size; larger writes only delay reads queued behind them); 128 chunks in flight on an object store, within
     * writeback's 128 MiB byte bound (32 whole 4 MiB chunks: the simulated S3 model's 1.25 GB/s link times its
     * ~0.1 s per chunk PUT is ~30; partial chunks, each a GET then a PUT of ~0.2 s and a few KiB of buffer, need ~4
     * times as many to fill the link: measured in docs/BENCHMARKS.md "Writeback: object store").
     */
    /** Chunks in flight on an object store by default, within writeback's byte bound (see {@link #defaults}). */
    public static final int CHUNKS_IN_FLIGHT_MAX_DEFAULT = 128;
    /**
     * Rest after a sweep of the whole index while busy, by default (docs/WRITEBACK.md, "The scan"): bcache rests
     * 30 s ({@code writeback_delay}); a second bounds the scan to one pass over the index per second when writeback
     * keeps up with the writes, and lets a block overwritten within it be written back once.
     */
    public static final long RESCAN_DELAY_NS_DEFAULT = SECOND;

    public static WritebackSettings defaults() {
        return new WritebackSettings(true, WritebackPolicy.MODERN, WritebackOrder.LBA, 10, 0, 8, 40, 10_000,
                5 * SECOND, 5, 5000, 80, 80_000, 64, 2048, 100 * MS, 30 * SECOND, 30 * SECOND, true, 500, 1024,
                WritebackOrdering.NONE, CHUNKS_IN_FLIGHT_MAX_DEFAULT, RESCAN_DELAY_NS_DEFAULT);
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Changes some fields of a settings record; {@link #build} validates the result. */
    public static final class Builder {
        private boolean running;
        private WritebackPolicy policy;
        private WritebackOrder order;
        private int percent;
        private long rateMaxSectorsPerSecond;
        private long rateMinSectorsPerSecond;
        private int proportionalInverse;
        private int integralInverse;
        private long rateUpdateNs;
        private int keysPerPassBusy;
        private int sectorsPerPassBusy;
        private int keysPerPassIdle;
        private int sectorsPerPassIdle;
        private int ioInFlightMax;
        private int backingIoSectorsMax;
        private long idleSampleNs;
        private long classicIdleNs;
        private long dirtyExpireNs;
        private boolean fragmentBoost;
        private int bufferKeysMax;
        private int autoLargeKeySectors;
        private WritebackOrdering ordering;
        private int chunksInFlightMax;
        private long rescanDelayNs;

        private Builder(WritebackSettings s) {
            running = s.running;
            policy = s.policy;
            order = s.order;
            percent = s.percent;
            rateMaxSectorsPerSecond = s.rateMaxSectorsPerSecond;
            rateMinSectorsPerSecond = s.rateMinSectorsPerSecond;
            proportionalInverse = s.proportionalInverse;
            integralInverse = s.integralInverse;
            rateUpdateNs = s.rateUpdateNs;
            keysPerPassBusy = s.keysPerPassBusy;
            sectorsPerPassBusy = s.sectorsPerPassBusy;
            keysPerPassIdle = s.keysPerPassIdle;
            sectorsPerPassIdle = s.sectorsPerPassIdle;
            ioInFlightMax = s.ioInFlightMax;
            backingIoSectorsMax = s.backingIoSectorsMax;
            idleSampleNs = s.idleSampleNs;
            classicIdleNs = s.classicIdleNs;
            dirtyExpireNs = s.dirtyExpireNs;
            fragmentBoost = s.fragmentBoost;
            bufferKeysMax = s.bufferKeysMax;
            autoLargeKeySectors = s.autoLargeKeySectors;
            ordering = s.ordering;
            chunksInFlightMax = s.chunksInFlightMax;
            rescanDelayNs = s.rescanDelayNs;
        }

        public Builder running(boolean v) { running = v; return this; }
        public Builder policy(WritebackPolicy v) { policy = v; return this; }
        public Builder order(WritebackOrder v) { order = v; return this; }
        public Builder percent(int v) { percent = v; return this; }
        public Builder rateMaxSectorsPerSecond(long v) { rateMaxSectorsPerSecond = v; return this; }
        public Builder rateMinSectorsPerSecond(long v) { rateMinSectorsPerSecond = v; return this; }
        public Builder proportionalInverse(int v) { proportionalInverse = v; return this; }
        public Builder integralInverse(int v) { integralInverse = v; return this; }
        public Builder rateUpdateNs(long v) { rateUpdateNs = v; return this; }
        public Builder keysPerPassBusy(int v) { keysPerPassBusy = v; return this; }
        public Builder sectorsPerPassBusy(int v) { sectorsPerPassBusy = v; return this; }
        public Builder keysPerPassIdle(int v) { keysPerPassIdle = v; return this; }
        public Builder sectorsPerPassIdle(int v) { sectorsPerPassIdle = v; return this; }
        public Builder ioInFlightMax(int v) { ioInFlightMax = v; return this; }
        public Builder backingIoSectorsMax(int v) { backingIoSectorsMax = v; return this; }
        public Builder idleSampleNs(long v) { idleSampleNs = v; return this; }
        public Builder classicIdleNs(long v) { classicIdleNs = v; return this; }
        public Builder dirtyExpireNs(long v) { dirtyExpireNs = v; return this; }
        public Builder fragmentBoost(boolean v) { fragmentBoost = v; return this; }
        public Builder bufferKeysMax(int v) { bufferKeysMax = v; return this; }
        public Builder autoLargeKeySectors(int v) { autoLargeKeySectors = v; return this; }
        public Builder ordering(WritebackOrdering v) { ordering = v; return this; }
        public Builder chunksInFlightMax(int v) { chunksInFlightMax = v; return this; }
        public Builder rescanDelayNs(long v) { rescanDelayNs = v; return this; }

        /** Validates and returns the settings. */
        public WritebackSettings build() {
            return new WritebackSettings(running, policy, order, percent, rateMaxSectorsPerSecond,
                    rateMinSectorsPerSecond, proportionalInverse, integralInverse, rateUpdateNs, keysPerPassBusy,
                    sectorsPerPassBusy, keysPerPassIdle, sectorsPerPassIdle, ioInFlightMax, backingIoSectorsMax,
                    idleSampleNs, classicIdleNs, dirtyExpireNs, fragmentBoost, bufferKeysMax, autoLargeKeySectors,
                    ordering, chunksInFlightMax, rescanDelayNs);
        }
    }
}
