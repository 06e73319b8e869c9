package io.blockcache.device;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads Linux's {@code /proc/locks}: one lock a line, {@code "ID: CLASS MODE TYPE PID MAJ:MIN:INODE START END"}, e.g.
 * {@code "1: POSIX  ADVISORY  WRITE 4242 fe:00:2146607 0 EOF"}; a waiter's line has {@code "->"} after the id and is
 * not a holder. Open file description locks ({@code OFDLCK}) show pid -1 and are skipped: they name no process.
 *
 * <p>Thread rule: any thread (pure).
 */
final class ProcLocks {
    private ProcLocks() {
    }

    /** The process ids of the holders of locks on {@code inodeKey} ({@code MAJ:MIN:INODE}), in the file's order. */
    static List<Long> holdersOf(List<String> lines, String inodeKey) {
        List<Long> holders = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length < 6 || fields[1].equals("->")) {
                continue;
            }
            if (!fields[5].equals(inodeKey)) {
                continue;
            }
            try {
                long pid = Long.parseLong(fields[4]);
                if (pid > 0 && !holders.contains(pid)) {
                    holders.add(pid);
                }
            } catch (NumberFormatException notALock) {
                // an unexpected line: not ours to judge
            }
        }
        return holders;
    }
}
