package io.blockcache.interop;

import static io.blockcache.interop.ReplicaBlocks.connect;
import static io.blockcache.interop.ReplicaBlocks.read;
import static io.blockcache.interop.ReplicaBlocks.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A frozen leader (SIGSTOP: a VM pause, a partition that heals) in a replication group (docs/SCALE.md). */
class ReplicationPartitionTest {

    @TempDir
    Path dir;

    @Test
    void aFrozenLeaderThatResumesAcknowledgesNothingAndItsWritesAreNeverServed() throws Exception {
        // Proves: while the leader is frozen the others elect a new one, which serves the writes the old one had
        // acknowledged; when the old leader resumes, a FLUSH on its old connection does not succeed, it stops serving,
        // and neither its new write nor its writeback reaches what the new leader serves.
        try (ReplicaGroup group = ReplicaGroup.start(dir, "16M", "")) {
            ReplicaProcess old = group.awaitLeader(null);
            assertThat(old).as("a first leader" + group.logs()).isNotNull();
            assertThat(group.awaitAllFollow(old)).as("all members follow" + group.logs()).isNull();
            try (NbdTestClient toOld = connect(old)) {
                write(toOld, 0, (byte) 0xA1);
                assertThat(toOld.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();

                old.freeze();
                ReplicaProcess next = group.awaitLeader(old);
                assertThat(next).as("a new leader while the old one is frozen" + group.logs()).isNotNull();
                assertThat(next).isNotSameAs(old);
                try (NbdTestClient toNext = connect(next)) {
                    assertThat(read(toNext, 0)).as("acknowledged before the freeze").containsOnly((byte) 0xA1);
                    write(toNext, 1, (byte) 0xB2);
                    assertThat(toNext.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
                }

                old.resume();
                boolean flushSucceeded;
                try {
                    write(toOld, 2, (byte) 0xC3);
                    flushSucceeded = toOld.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error() == 0;
                } catch (IOException | AssertionError closed) {
                    flushSucceeded = false; // the old leader stopped serving and closed the connection
                }
                assertThat(flushSucceeded).as("a FLUSH on the resumed old leader" + group.logs()).isFalse();
                awaitLog(old, "stops serving", group);

                try (NbdTestClient toNext = connect(next)) {
                    assertThat(read(toNext, 0)).containsOnly((byte) 0xA1);
                    assertThat(read(toNext, 1)).containsOnly((byte) 0xB2);
                    assertThat(read(toNext, 2)).as("the old leader's write after it lost the lead" + group.logs())
                            .containsOnly((byte) 0);
                }
            }
        }
    }

    @Test
    void aLeaderCutOffFromItsQuorumStopsAcknowledgingAndServing() throws Exception {
        // Proves: when both followers freeze (the leader is a minority of one), a FLUSH on the leader does not
        // succeed, the leader says its lease lapsed and stops serving; when they come back a member serves again and
        // every write acknowledged before the cut reads back.
        try (ReplicaGroup group = ReplicaGroup.start(dir, "16M", "")) {
            ReplicaProcess leader = group.awaitLeader(null);
            assertThat(leader).as("a first leader" + group.logs()).isNotNull();
            assertThat(group.awaitAllFollow(leader)).as("all members follow" + group.logs()).isNull();
            try (NbdTestClient client = connect(leader)) {
                write(client, 0, (byte) 0xA1);
                assertThat(client.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
                for (ReplicaProcess member : group.members) {
                    if (member != leader) {
                        member.freeze();
                    }
                }
                boolean flushSucceeded;
                try {
                    write(client, 1, (byte) 0xB2);
                    flushSucceeded = client.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error() == 0;
                } catch (IOException | AssertionError closed) {
                    flushSucceeded = false;
                }
                assertThat(flushSucceeded).as("a FLUSH on a leader without its quorum" + group.logs()).isFalse();
                awaitLog(leader, "lapsed", group);
                awaitLog(leader, "stops serving", group);
            }
            int servedBefore = 0;
            for (ReplicaProcess member : group.members) {
                servedBefore += member.servingCount();
                member.resume();
            }
            ReplicaProcess next = awaitServing(group, servedBefore);
            try (NbdTestClient client = connect(next)) {
                assertThat(read(client, 0)).as("acknowledged before the cut").containsOnly((byte) 0xA1);
            }
        }
    }

    /** Waits until the members together said "serving" more than {@code before} times; the one that said it last. */
    private static ReplicaProcess awaitServing(ReplicaGroup group, int before) throws Exception {
        long deadlineNs = System.nanoTime() + ReplicaGroup.LEADER_TIMEOUT_MS * 1_000_000;
        while (true) {
            int now = 0;
            ReplicaProcess latest = null;
            for (ReplicaProcess member : group.members) {
                now += member.servingCount();
                if (member.alive() && member.serves()) {
                    latest = member;
                }
            }
            if (now > before && latest != null) {
                return latest;
            }
            assertThat(System.nanoTime()).as("a member serves again" + group.logs()).isLessThan(deadlineNs);
            Thread.sleep(50); // polling child processes' logs, bounded by the deadline
        }
    }

    private static void awaitLog(ReplicaProcess member, String text, ReplicaGroup group) throws Exception {
        long deadlineNs = System.nanoTime() + ReplicaGroup.LEADER_TIMEOUT_MS * 1_000_000;
        while (!member.log().contains(text)) {
            assertThat(System.nanoTime()).as("member " + member.id + " says \"" + text + "\"" + group.logs())
                    .isLessThan(deadlineNs);
            Thread.sleep(50); // polling a child process's log, bounded by the deadline
        }
    }
}
