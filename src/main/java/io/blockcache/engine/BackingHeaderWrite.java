package io.blockcache.engine;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.backinglog.LogReplay;
import io.blockcache.device.IoCallback;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.BackingLogCommit;
import io.blockcache.format.DecodeResult;
import java.util.function.Consumer;

/**
 * Writes a backing device's header (docs/FORMAT.md §4), the one way a format and a live add ({@link VolumeAttacher})
 * do it: the device's data must stay where it is, an old backing log's committed group is put in place first, and a
 * new log starts retired. Stateless; the loop thread.
 */
final class BackingHeaderWrite {
    private BackingHeaderWrite() {
    }

    /**
     * Refuses, before anything is written, to move a volume's data: a backing device that already holds a valid
     * backing header keeps its data at that header's offset, and a backing log of another size (or none where it had
     * one, or one where it had none) would put the new header's volume over other bytes — every block of the volume
     * silently shifted (after a cache device was replaced, or a volume added again). {@code done} gets null, or why
     * not, ending with what to do.
     *
     * @param how what the operator does again, with the right {@code --backing-log} ("Format", "Add it")
     */
    static void layoutProblem(BackingSpec spec, String how, Consumer<String> done) {
        if (spec.inPlace()) {
            done.accept(null); // writes nothing on the device, so moves nothing
            return;
        }
        DeviceBytes.read(spec.device(), 0, BackingHeader.BYTES, read -> {
            DecodeResult<BackingHeader> old = read.isOk() ? BackingHeader.decode(read.value(), 0) : null;
            long newOffset = BackingHeader.DEFAULT_DATA_OFFSET_BYTES + spec.logSizeBytes();
            if (old == null || !old.isOk() || old.value().dataOffsetBytes() == newOffset) {
                done.accept(null);
                return;
            }
            long oldLog = old.value().logSizeBytes();
            done.accept("backing device \"" + spec.name() + "\" holds a volume whose data starts "
                    + (old.value().dataOffsetBytes() >> 20) + " MiB in (" + (oldLog == 0 ? "no backing log"
                    : "a " + (oldLog >> 20) + " MiB backing log") + "); "
                    + (spec.logSizeBytes() == 0 ? "no backing log" : "a " + (spec.logSizeBytes() >> 20)
                    + " MiB backing log") + " would move it and every block after it. " + how + " with "
                    + (oldLog == 0 ? "no --backing-log" : "--backing-log " + (oldLog >> 20) + "M")
                    + " to keep the volume's data where it is");
        });
    }

    /**
     * Replays the committed group an old backing log on the device may hold (into the old layout: the device holds the
     * volume as of a FLUSH only once it is replayed, and the new header would retire it unreplayed, FORMAT.md §4.4),
     * retires the new log (a zero block where its commit block goes), then writes {@code headerAndMap} (the header and
     * an empty damage map, {@link CacheFormatter#headerAndEmptyMap}) and flushes. {@code done} gets null, or why not.
     */
    static void write(BackingSpec spec, BackingHeader header, byte[] headerAndMap, Consumer<String> done) {
        replayOldLog(spec, done, () -> {
            Runnable writeIt = () -> DeviceBytes.writeAndFlush(spec.device(), 0, headerAndMap, step(done,
                    "writing the header of backing device \"" + spec.name() + "\"", () -> done.accept(null)));
            if (!header.hasLog()) {
                writeIt.run();
                return;
            }
            DeviceBytes.write(spec.device(), BackingHeader.LOG_OFFSET_BYTES, new byte[BackingLogCommit.BYTES], false,
                    step(done, "retiring the backing log of \"" + spec.name() + "\"", writeIt));
        });
    }

    private static void replayOldLog(BackingSpec spec, Consumer<String> done, Runnable then) {
        DeviceBytes.read(spec.device(), 0, BackingHeader.BYTES, read -> {
            DecodeResult<BackingHeader> old = read.isOk() ? BackingHeader.decode(read.value(), 0) : null;
            BackingLogRegion region = old != null && old.isOk() ? BackingLogRegion.of(old.value()) : null;
            if (region == null) {
                then.run(); // no old header, or no log in it: nothing to replay
                return;
            }
            LogReplay.run(spec.device(), region, replayed -> {
                if (replayed.failure() != null) {
                    done.accept("backing device \"" + spec.name() + "\" holds a backing log that cannot be replayed: "
                            + replayed.failure());
                    return;
                }
                then.run();
            });
        });
    }

    private static IoCallback step(Consumer<String> done, String what, Runnable next) {
        return result -> {
            if (result.ok()) {
                next.run();
            } else {
                done.accept(what + " failed: " + result.message());
            }
        };
    }
}
