package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication group under leader kills in every test run ({@link ReplicationFuzz}; docs/TESTING.md).
 * {@code -Dblockcache.replicationFuzzSeed=S} replays a seed, {@code -Dblockcache.replicationFuzzRounds=N} runs N
 * rounds.
 */
class ReplicationFuzzTest {
    static final int ROUNDS_DEFAULT = 4;

    @TempDir
    Path dir;

    @Test
    void acknowledgedWritesSurviveTheLossOfTheLeaderAndOfItsMachine() throws Exception {
        // Proves, for three real serve members over one NBD backing store, with the leader killed (SIGKILL) at a
        // random point of a random workload and sometimes its whole data directory deleted: a new member serves, every
        // write acknowledged by FLUSH or FUA reads back from it, and no sector holds bytes never written to it.
        long seed = Long.getLong("blockcache.replicationFuzzSeed", System.nanoTime() & 0xFFFF_FFFFL);
        int rounds = Integer.getInteger("blockcache.replicationFuzzRounds", ROUNDS_DEFAULT);
        System.out.println("replication fuzz: seed " + seed + ", " + rounds + " rounds");
        ReplicationFuzz fuzz = new ReplicationFuzz(seed, dir);
        fuzz.run(rounds);
        System.out.println("replication fuzz: seed " + seed + " passed: " + fuzz.counters().summary() + "; "
                + fuzz.failoverSummary() + "; " + fuzz.machinesLost() + " machines lost; " + fuzz.selfStops()
                + " leaders stopped by a lapsed lease; "
                + fuzz.durableWrittenSectorsChecked() + " durable written sectors checked after failovers");

        // Not vacuous: each round was a kill, flushes happened, and the oracle met acknowledged written data.
        assertThat(fuzz.counters().kills()).isEqualTo(rounds);
        assertThat(fuzz.counters().flushes()).isGreaterThan(rounds);
        assertThat(fuzz.durableWrittenSectorsChecked()).isPositive();
    }
}
