package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Proves the holders of a file's locks are read from /proc/locks' lines, and a second open in one JVM is refused. */
class ProcLocksTest {
    @TempDir
    Path dir;

    @Test
    void holdersAreTheProcessesOfTheMatchingInodeSkippingWaitersAndOpenFileDescriptionLocks() {
        // Proves the parser takes the pid of each lock on the inode, ignores "->" waiters, OFD locks (pid -1) and
        // locks on other inodes.
        List<String> lines = List.of(
                "1: POSIX  ADVISORY  WRITE 4242 fe:00:2146607 0 EOF",
                "1: -> POSIX  ADVISORY  WRITE 5151 fe:00:2146607 0 EOF",
                "2: OFDLCK ADVISORY  WRITE -1 fe:00:2146607 0 EOF",
                "3: FLOCK  ADVISORY  WRITE 777 fe:00:99 0 EOF",
                "4: POSIX  ADVISORY  READ 888 fe:00:2146607 0 EOF");
        assertThat(ProcLocks.holdersOf(lines, "fe:00:2146607")).containsExactly(4242L, 888L);
        assertThat(ProcLocks.holdersOf(lines, "fe:00:1")).isEmpty();
    }

    @Test
    void aLockedFileShowsThisProcessAsHolderAndRefusesASecondLockInTheSameProcess() throws Exception {
        // Proves lockExclusive's lock is visible in /proc/locks as ours, and a second open for writing in this JVM
        // gets a FileInUseException naming the file (the JDK's OverlappingFileLockException made plain).
        Path file = dir.resolve("cache.img");
        Files.write(file, new byte[4096]);
        try (FileChannel first = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileChannel second = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLocks.lockExclusive(first, file);
            assertThat(FileLocks.heldByThisProcess(file)).isTrue();
            assertThat(FileLocks.holder(file)).as("this process is not 'another holder'").isEmpty();
            assertThatThrownBy(() -> FileLocks.lockExclusive(second, file)).isInstanceOf(FileInUseException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("already open for writing");
        }
        assertThat(FileLocks.heldByThisProcess(file)).as("closing the channel drops the lock").isFalse();
    }

    @Test
    void aLockThatASecondCloseDroppedIsTakenAgain() throws Exception {
        // Proves the POSIX trap and its repair: closing a second descriptor of a locked file drops the lock (as
        // FileSpace's walk of the holes did, letting a second serve open a live cache), relockAfterClose takes it back.
        Path file = dir.resolve("cache.img");
        Files.write(file, new byte[4096]);
        try (FileChannel locked = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLocks.lockExclusive(locked, file);
            FileChannel.open(file, StandardOpenOption.READ).close();
            assertThat(FileLocks.heldByThisProcess(file)).as("the kernel dropped it").isFalse();
            assertThat(FileLocks.relockAfterClose(file)).isNull();
            assertThat(FileLocks.heldByThisProcess(file)).isTrue();
            // The watcher's safety net finds the same loss by itself and says so once.
            FileChannel.open(file, StandardOpenOption.READ).close();
            assertThat(FileLocks.keepHeld(file)).contains("was lost").contains(file.toString());
            assertThat(FileLocks.heldByThisProcess(file)).isTrue();
            assertThat(FileLocks.keepHeld(file)).isNull();
        }
        assertThat(FileLocks.keepHeld(file)).as("a closed channel's lock is not ours to keep").isNull();
    }

    @Test
    void ourOwnCommandLinesAreShownAsBlockcacheCommands() {
        // Proves a holder's JVM flags and class path are left out of the message.
        assertThat(FileLocks.shortCommand("/usr/bin/java -Xmx1g -cp /a:/b io.blockcache.cli.Main serve --data-dir /d"))
                .isEqualTo("blockcache serve --data-dir /d");
        assertThat(FileLocks.shortCommand("java -jar /usr/lib/blockcache/lib/blockcache.jar format --cache c"))
                .isEqualTo("blockcache format --cache c");
        assertThat(FileLocks.shortCommand("qemu-nbd x")).isEqualTo("qemu-nbd x");
    }
}
