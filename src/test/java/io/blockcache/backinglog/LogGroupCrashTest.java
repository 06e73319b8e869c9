package io.blockcache.backinglog;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.BackingHeader;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.loop.EventLoop;
import io.blockcache.sim.SimDevice;
import io.blockcache.sim.SmallDevices;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The backing log's promise, adversarially: a disk with a volatile write cache, or an object store model, runs the
 * whole protocol of one group (log the records, commit, write them in place, flush, retire) and loses power at a
 * random instant, with every write not yet durable surviving, vanishing or tearing at random; then the log is
 * replayed, maybe cut by a second power loss and replayed again. Whatever the instants, the volume must hold either
 * none of the group or all of it (all of it if the commit was reported durable before the cut), and the rest of the
 * volume as it was.
 */
class LogGroupCrashTest {
    private static final long LOG_BYTES = 2L << 20;
    private static final long VOLUME_BYTES = 1L << 20;
    private static final UUID BACKING = new UUID(7, 9);
    private static final BackingHeader HEADER = new BackingHeader(BACKING, new UUID(1, 2),
            BackingHeader.LOG_OFFSET_BYTES + LOG_BYTES, VOLUME_BYTES, LOG_BYTES);
    private static final BackingLogRegion REGION = BackingLogRegion.of(HEADER);

    private SimLoop loop = new SimLoop();
    /** Makes the backing device of one run: a disk or an object store model. */
    private BiFunction<EventLoop, Prng, SimDevice> devices;

    @Test
    void aGroupIsInPlaceWhollyOrNotAtAllWhereverThePowerFails() {
        devices = (simLoop, latency) -> SmallDevices.hdd(simLoop, HEADER.deviceSizeBytes());
        everyCut();
    }

    @Test
    void aGroupOnAnObjectStoreIsInPlaceWhollyOrNotAtAllWhereverThePowerFails() {
        // The same promise over an s3:// backing's model: 64 KiB chunk objects, each PUT whole or not at all, a write
        // staged in memory until a flush or FUA puts its chunk, so the commit block's PUT carries log body beside it.
        devices = (simLoop, latency) -> SmallDevices.objectStore(simLoop, HEADER.deviceSizeBytes(), latency);
        everyCut();
    }

    /** 150 seeds, each cut at a random instant of its protocol; both halves of the promise must be exercised. */
    private void everyCut() {
        int committedCuts = 0;
        int uncommittedCuts = 0;
        for (long seed = 1; seed <= 150; seed++) {
            long events = runOne(seed, Long.MAX_VALUE); // the whole protocol, uncut: how long it runs
            boolean committedBeforeCut = runOne(seed, new Prng(-seed).nextLong(events + 1)) < 0;
            if (committedBeforeCut) {
                committedCuts++;
            } else {
                uncommittedCuts++;
            }
        }
        // Both halves of the promise were exercised, not just one.
        assertThat(committedCuts).isGreaterThan(15);
        assertThat(uncommittedCuts).isGreaterThan(15);
    }

    /**
     * One seed, the power cut after {@code cutAfterEvents} loop events; returns the events run before the cut,
     * negated (and minus one) if the commit had been reported durable by then.
     */
    private long runOne(long seed, long cutAfterEvents) {
        Prng prng = new Prng(seed);
        loop = new SimLoop();
        SimDevice device = devices.apply(loop, new Prng(seed * 0x9E3779B97F4A7C15L + 3)); // its latencies
        byte[] before = randomBytes(prng);
        writeDurably(device, REGION.volumeBytes(0), before);
        List<long[]> ranges = ranges(prng);
        byte[] after = before.clone();
        byte[] groupData = randomBytes(prng);
        for (long[] r : ranges) {
            int from = (int) (r[0] * BlockDevice.SECTOR_BYTES);
            System.arraycopy(groupData, from, after, from, (int) (r[1] * BlockDevice.SECTOR_BYTES));
        }

        boolean[] committed = {false};
        boolean[] retired = {false};
        LogGroupWriter writer = new LogGroupWriter(device, REGION, new ChunkBuffers(), seed, 5);
        List<Runnable> fills = new ArrayList<>();
        for (long[] r : ranges) {
            LogGroupWriter.Slot slot = writer.reserve(r[0], (int) r[1]);
            assertThat(slot).isNotNull();
            fills.add(() -> {
                slot.buffer().put(0, groupData, (int) (r[0] * BlockDevice.SECTOR_BYTES), slot.buffer().remaining());
                writer.filled(slot);
            });
        }
        shuffle(fills, prng);
        for (Runnable fill : fills) {
            loop.schedule(prng.nextLong(2_000_000), fill); // fills complete out of order, as cache reads do
        }
        writer.commit(9, failure -> {
            assertThat(failure).isNull();
            committed[0] = true;
            inPlace(device, ranges, groupData, prng, () -> retired[0] = true);
        });
        long eventsRun = 0;
        while (eventsRun < cutAfterEvents && loop.step()) {
            eventsRun++;
        }
        boolean committedBeforeCut = committed[0];
        if (cutAfterEvents == Long.MAX_VALUE) {
            assertThat(retired[0]).as("seed %d: the uncut protocol ends retired", seed).isTrue();
            return eventsRun;
        }
        cut(device, prng);

        // Replay, perhaps cut by a second power loss, then replayed to the end.
        if (prng.chance(0.5)) {
            LogReplay.run(device, REGION, r -> { });
            long again = prng.nextLong(200);
            for (long i = 0; i < again && loop.step(); i++) {
                // replay up to the second cut
            }
            cut(device, prng);
        }
        byte[] log = new byte[(int) LOG_BYTES];
        device.peek(REGION.logBytes(0), ByteBuffer.wrap(log));
        byte[] inThought = new byte[(int) VOLUME_BYTES];
        device.peek(REGION.volumeBytes(0), ByteBuffer.wrap(inThought));
        BackingLogImage.Result image = BackingLogImage.apply(log, BACKING, ByteBuffer.wrap(inThought));
        assertThat(image.failure()).isNull();
        LogReplay.Result[] result = {null};
        LogReplay.run(device, REGION, r -> result[0] = r);
        loop.runUntilIdle();
        assertThat(result[0]).as("seed %d", seed).isNotNull();
        assertThat(result[0].failure()).as("seed %d", seed).isNull();

        byte[] volume = new byte[(int) VOLUME_BYTES];
        device.peek(REGION.volumeBytes(0), ByteBuffer.wrap(volume));
        assertThat(volume).as("seed %d: the replay in memory agrees with the device's", seed).isEqualTo(inThought);
        assertThat(image.commit() == null).isEqualTo(result[0].commit() == null);
        boolean none = Arrays.equals(volume, before);
        boolean all = Arrays.equals(volume, after);
        assertThat(none || all).as("seed %d: the volume holds part of the group (cut after %d events, committed %s)",
                seed, cutAfterEvents, committedBeforeCut).isTrue();
        if (committedBeforeCut) {
            assertThat(all).as("seed %d: a group reported durable was lost", seed).isTrue();
        }
        LogReplay.Result[] peek = {null};
        LogReplay.peek(device, REGION, r -> peek[0] = r);
        loop.runUntilIdle();
        assertThat(peek[0].commit()).as("seed %d: the log is retired after a replay", seed).isNull();
        return committedBeforeCut ? -1 - eventsRun : eventsRun;
    }

    /** 1 to 40 non-overlapping ranges of 1 to 300 sectors, in random order. */
    private static List<long[]> ranges(Prng prng) {
        long sectors = VOLUME_BYTES / BlockDevice.SECTOR_BYTES;
        List<long[]> out = new ArrayList<>();
        long at = prng.nextLong(64);
        int count = 1 + prng.nextInt(40);
        while (out.size() < count && at < sectors) {
            long length = Math.min(1 + prng.nextLong(300), sectors - at);
            out.add(new long[] {at, length});
            at += length + prng.nextLong(sectors / count);
        }
        List<long[]> shuffled = new ArrayList<>(out);
        shuffle(shuffled, prng);
        return shuffled;
    }

    /** What the engine does after a commit: the records in place (any order), one flush, the retire. */
    private static void inPlace(BlockDevice device, List<long[]> ranges, byte[] data, Prng prng, Runnable done) {
        int[] left = {ranges.size()};
        for (long[] r : ranges) {
            int from = (int) (r[0] * BlockDevice.SECTOR_BYTES);
            ByteBuffer src = ByteBuffer.wrap(data, from, (int) (r[1] * BlockDevice.SECTOR_BYTES));
            device.write(REGION.volumeBytes(r[0]), src.slice(), false, w -> {
                assertThat(w.ok()).isTrue();
                if (--left[0] == 0) {
                    device.flush(f -> LogGroupWriter.retire(device, REGION, failure -> done.run()));
                }
            });
        }
    }

    private void cut(SimDevice device, Prng prng) {
        loop.discardPending();
        device.crash(prng);
        loop = new SimLoop();
        device.powerOn(loop);
    }

    private void writeDurably(BlockDevice device, long offsetBytes, byte[] bytes) {
        boolean[] done = {false};
        device.write(offsetBytes, ByteBuffer.wrap(bytes), true, r -> done[0] = r.ok());
        loop.runUntilIdle();
        assertThat(done[0]).isTrue();
    }

    /** A volume's worth of random bytes, a long at a time. */
    private static byte[] randomBytes(Prng prng) {
        ByteBuffer bytes = ByteBuffer.allocate((int) VOLUME_BYTES);
        while (bytes.hasRemaining()) {
            bytes.putLong(prng.nextLong());
        }
        return bytes.array();
    }

    private static <T> void shuffle(List<T> list, Prng prng) {
        for (int i = list.size() - 1; i > 0; i--) {
            int j = prng.nextInt(i + 1);
            T t = list.get(i);
            list.set(i, list.get(j));
            list.set(j, t);
        }
    }
}
