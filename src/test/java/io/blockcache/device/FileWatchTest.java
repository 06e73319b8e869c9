package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.RealLoop;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The detector of files that change under an open device ({@link FileWatch}), on real files in a temp dir. */
class FileWatchTest {
    private static final long SIZE_BYTES = 1L << 20;

    @TempDir
    Path dir;

    private FileChannel channel;

    @AfterEach
    void closeChannel() throws Exception {
        if (channel != null) {
            channel.close();
        }
    }

    private FileWatch watch(Path file) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(SIZE_BYTES);
        }
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        return FileWatch.start(file, channel, channel.size());
    }

    @Test
    void anUntouchedFileIsNoChangeAndAGrownOneNeither() throws Exception {
        // Proves the detector stays quiet for the file it opened, also after the file grew (not a truncation).
        Path file = dir.resolve("quiet.img");
        FileWatch watch = watch(file);
        assertThat(watch.check()).isNull();
        channel.write(ByteBuffer.wrap(new byte[512]), SIZE_BYTES);
        assertThat(watch.check()).isNull();
    }

    @Test
    void aDeletedFileIsReportedWithWhereItsContentsStillAre() throws Exception {
        // Proves an unlink while open is found, and that the /proc path the message gives reads the open file.
        Path file = dir.resolve("deleted.img");
        FileWatch watch = watch(file);
        byte[] mark = "written before the delete".getBytes();
        channel.write(ByteBuffer.wrap(mark), 4096);
        Files.delete(file);

        String change = watch.check();
        assertThat(change).startsWith("file " + file + " was deleted while open");
        if (Files.isDirectory(Path.of("/proc/self/fd"))) {
            String proc = change.replaceAll(".*readable at (/proc/\\d+/fd/\\d+) .*", "$1");
            assertThat(proc).startsWith("/proc/" + ProcessHandle.current().pid() + "/fd/");
            byte[] read = Arrays.copyOfRange(Files.readAllBytes(Path.of(proc)), 4096, 4096 + mark.length);
            assertThat(read).isEqualTo(mark);
        }
    }

    @Test
    void aFileReplacedByARenameIsReportedAndStaysReported() throws Exception {
        // Proves a rename over the path (another inode there) is found, and that the finding is sticky.
        Path file = dir.resolve("replaced.img");
        FileWatch watch = watch(file);
        Path other = dir.resolve("other.img");
        Files.write(other, new byte[(int) SIZE_BYTES]);
        Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        String change = watch.check();
        assertThat(change).startsWith("file " + file + " was replaced by another file while open");
        if (Files.isDirectory(Path.of("/proc/self/fd"))) {
            assertThat(change).contains("the open one was deleted");
        }
        Files.delete(file);
        assertThat(watch.check()).isEqualTo(change);
    }

    @Test
    void aFileMovedAwayIsReportedAndIsNotCalledDeleted() throws Exception {
        // Proves a rename away from the path (the file still linked elsewhere) is found, and told apart from a delete.
        Path file = dir.resolve("moved.img");
        FileWatch watch = watch(file);
        Files.move(file, dir.resolve("elsewhere.img"));
        String change = watch.check();
        if (Files.isDirectory(Path.of("/proc/self/fd"))) {
            assertThat(change).isEqualTo("file " + file + " was moved away from its path while open (another link to"
                    + " it remains)");
        } else {
            assertThat(change).startsWith("file " + file + " was deleted while open");
        }
    }

    @Test
    void aTruncatedFileIsReportedWithBothSizes() throws Exception {
        // Proves a truncation below the size at open is found, with the sizes in bytes.
        Path file = dir.resolve("truncated.img");
        FileWatch watch = watch(file);
        try (FileChannel other = FileChannel.open(file, StandardOpenOption.WRITE)) {
            other.truncate(SIZE_BYTES / 2);
        }
        assertThat(watch.check()).isEqualTo("file " + file + " was truncated while open, from " + SIZE_BYTES + " to "
                + SIZE_BYTES / 2 + " bytes");
    }

    @Test
    void aFencedFileDeviceRefusesWritesAndFlushesButStillReads() throws Exception {
        // Proves a backing device told to fence stops writing into its deleted file: writes and flushes fail naming
        // the change, nothing more reaches the unlinked inode, reads still return what it held.
        Path file = dir.resolve("fenced.img");
        RealLoop loop = new RealLoop("file-watch-test");
        CallbackProbe probe = new CallbackProbe(loop);
        FileDevice device = FileDevice.create(loop, file, SIZE_BYTES,
                FileDeviceOptions.DEFAULTS.withQueueDepth(2).withLogicalBlockBytes(512));
        try {
            device.fenceWhenChanged();
            byte[] before = new byte[4096];
            Arrays.fill(before, (byte) 7);
            assertThat(probe.await(probe.submit(cb -> device.write(0, ByteBuffer.wrap(before), false, cb))))
                    .isEqualTo(IoResult.OK);
            assertThat(device.checkPresence()).isNull();
            Files.delete(file);

            String change = device.checkPresence();
            assertThat(change).startsWith("file " + file + " was deleted while open");
            assertThat(device.fenced()).isEqualTo(change);
            assertThat(device.changeFound()).isEqualTo(change);
            byte[] after = new byte[4096];
            Arrays.fill(after, (byte) 9);
            IoResult write = probe.await(probe.submit(cb -> device.write(0, ByteBuffer.wrap(after), false, cb)));
            assertThat(write.status()).isEqualTo(IoStatus.IO_ERROR);
            assertThat(write.message()).contains("refused, the file " + file + " was deleted while open");
            assertThat(probe.await(probe.submit(device::flush)).status()).isEqualTo(IoStatus.IO_ERROR);

            ByteBuffer read = ByteBuffer.allocate(4096);
            assertThat(probe.await(probe.submit(cb -> device.read(0, read, cb)))).isEqualTo(IoResult.OK);
            assertThat(read.array()).isEqualTo(before);
        } finally {
            probe.onLoopAndWait(device::close);
            loop.close();
        }
    }
}
