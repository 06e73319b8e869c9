package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.admin.RunningCacheSet;
import io.blockcache.device.IoResult;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdminCommandsTest {
    private RunningCacheSet cache;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet();
    }

    @AfterEach
    void stop() {
        cache.close();
    }

    @Test
    void statsWatchRefreshesWithTheRatesSinceTheLastRefresh() throws Exception {
        // Proves 'stats --watch S --count N' fetches N times, S apart, and shows per-volume rates from the second
        // refresh on; and that the rates are the counters' growth over the time between two answers.
        CliRun watch = CliRun.of("stats", "--watch", "0.2", "--count", "2", "--admin", cache.adminHostPort());
        assertThat(watch.exitCode()).as(watch.err()).isZero();
        assertThat(watch.out().split("blockcache stats at ", -1)).hasSize(3);
        assertThat(watch.out()).containsOnlyOnce("READS/s").contains("every 0.2 s");

        Map<?, ?> before = (Map<?, ?>) JsonReader.parse(cache.get("/api/stats"));
        for (int i = 0; i < 4; i++) {
            assertThat(cache.write(i * (64L << 10), 64 << 10)).isEqualTo(IoResult.OK);
        }
        assertThat(cache.read(0, 64 << 10)).isEqualTo(IoResult.OK);
        assertThat(cache.read(1 << 20, 64 << 10)).isEqualTo(IoResult.OK);
        Map<?, ?> after = (Map<?, ?>) JsonReader.parse(cache.get("/api/stats"));
        String rates = StatsRates.format(before, after, 2.0);
        // 4 writes and 2 reads in 2 s; 128 KiB read, of which the 64 KiB just written hit; 320 KiB into the cache (the
        // 256 KiB written and the 64 KiB miss filled), none around it; nothing written back (writeback is paused).
        assertThat(rates.lines().toList().get(1).split("  +")).containsExactly("default", "1", "2", "64.0 KiB",
                "50.0 %", "160.0 KiB", "0 B", "0 B", "256.0 KiB");
    }

    @Test
    void statsWatchRefusesBadIntervalsAsUsage() {
        // Proves a nonsense interval or a --count without --watch is bad usage (exit 2) with the reason.
        CliRun fast = CliRun.of("stats", "--watch", "0", "--admin", cache.adminHostPort());
        assertThat(fast.exitCode()).isEqualTo(2);
        assertThat(fast.err()).contains("--watch takes seconds, at least 0.1");
        CliRun count = CliRun.of("stats", "--count", "3", "--admin", cache.adminHostPort());
        assertThat(count.exitCode()).isEqualTo(2);
        assertThat(count.err()).contains("only with --watch");
    }

    @Test
    void statsPrintsTablesAndRawJson() throws Exception {
        // Proves 'stats' reads the running server: the table shows the volume's dirty data, --json is the API's.
        assertThat(cache.write(0, 64 << 10)).isEqualTo(IoResult.OK);
        CliRun table = CliRun.of("stats", "--admin", cache.adminHostPort());
        assertThat(table.exitCode()).as(table.err()).isZero();
        assertThat(table.out()).contains("VOLUME", "default", "writeback", "64.0 KiB", "16.0 MiB",
                "cache: 56 buckets of 128.0 KiB",
                "writeback default: paused, modern/lba, front end ", "dirty 64.0 KiB, written back 0 B in 0 passes",
                "backing queue 0", "errors 0", "  rate ", " sectors/s (", "target ", "fragment boost ",
                "gc: idle, ", " journal; 0 evicted, ", "0 allocation waits");
        assertThat(table.out()).doesNotContain("not yet", "drain #");
        CliRun json = CliRun.of("stats", "--json", "--admin", cache.adminHostPort());
        assertThat(json.exitCode()).isZero();
        assertThat(json.out()).startsWith("{\"volumes\":[").contains("\"dirtyBytes\":65536");
    }

    @Test
    @SuppressWarnings("unchecked") // the API answers objects: parsed as maps of strings to values
    void getSetAndDrainStatusPrintTheApisJsonWithJson() {
        // Proves --json on get, set and drain status prints the admin API's own answer, parseable, for scripts.
        CliRun set = CliRun.of("set", "volume.default.mode", "writethrough", "--json", "--admin",
                cache.adminHostPort());
        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat((Map<Object, Object>) JsonReader.parse(set.out())).containsEntry("name", "volume.default.mode")
                .containsEntry("value", "writethrough");
        CliRun get = CliRun.of("get", "volume.default.mode", "--json", "--admin", cache.adminHostPort());
        assertThat((Map<Object, Object>) JsonReader.parse(get.out())).containsEntry("value", "writethrough");
        CliRun all = CliRun.of("get", "--json", "--admin", cache.adminHostPort());
        assertThat(all.out().strip()).startsWith("{").endsWith("}").contains("\"volume.default.mode\"");
        CliRun status = CliRun.of("drain", "status", "--json", "--admin", cache.adminHostPort());
        assertThat(status.exitCode()).as(status.err()).isZero();
        assertThat((Map<Object, Object>) JsonReader.parse(status.out().strip())).containsEntry("volume", "default");
    }

    @Test
    @SuppressWarnings("unchecked") // the API's stats, parsed as maps of strings to values
    void aDegradedVolumeIsShownInTheTable() {
        // Proves the stats table says DEGRADED with the reason when /api/stats names one for a volume's writeback.
        CliRun json = CliRun.of("stats", "--json", "--admin", cache.adminHostPort());
        Map<Object, Object> stats = (Map<Object, Object>) JsonReader.parse(json.out());
        Map<Object, Object> volume = ((java.util.List<Map<Object, Object>>) stats.get("volumes")).get(0);
        assertThat(StatsTable.format(stats)).doesNotContain("DEGRADED");
        ((Map<Object, Object>) volume.get("writeback")).put("degraded", "backing file /x/b.img was deleted while open");
        assertThat(StatsTable.format(stats)).contains("  DEGRADED: backing file /x/b.img was deleted while open"
                + " (writeback held until a restart");
    }

    @Test
    void drainWritesEverythingBackAndExitsZeroWhenClean() throws Exception {
        // Proves 'drain' end to end: it starts the server's drain (writeback is paused, so only the drain writes),
        // waits until nothing is dirty, says so, exits 0, and 'stats' then shows the drain done.
        assertThat(cache.write(0, 64 << 10)).isEqualTo(IoResult.OK);
        assertThat(cache.write(1 << 20, 32 << 10)).isEqualTo(IoResult.OK);
        CliRun drain = CliRun.of("drain", "--volume", "default", "--admin", cache.adminHostPort());
        assertThat(drain.exitCode()).as(drain.err()).isZero();
        assertThat(drain.out()).isEqualTo("default: clean, 96.0 KiB written back" + System.lineSeparator());
        assertThat(cache.<Long>onLoop(done -> done.accept(cache.set.writeback("default").dirtyBytes()))).isZero();
        CliRun stats = CliRun.of("stats", "--admin", cache.adminHostPort());
        assertThat(stats.out()).contains("dirty 0 B, written back 96.0 KiB",
                "drain #1 done: 0 B left, 96.0 KiB written back");
        // Without --volume every volume is drained; a clean one is done at once.
        CliRun all = CliRun.of("drain", "--admin", cache.adminHostPort());
        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(all.out()).startsWith("default: clean");
    }

    @Test
    void drainFailsWithWhyWhenTheServerRefuses() throws Exception {
        // Proves 'drain' exits 1 with the server's reason when there is no such volume.
        CliRun unknown = CliRun.of("drain", "--volume", "nope", "--admin", cache.adminHostPort());
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("blockcache drain: no volume named \"nope\"");
        assertThat(unknown.out()).isEmpty();
    }

    @Test
    void getAndSetChangeAKnobAndExplainRefusals() throws Exception {
        // Proves 'get'/'set': the value round-trips into the engine; bad values and unknown names fail with why.
        String admin = cache.adminHostPort();
        assertThat(CliRun.of("get", "volume.default.mode", "--admin", admin).out().strip()).isEqualTo("writeback");
        CliRun set = CliRun.of("set", "volume.default.mode", "writearound", "--admin", admin);
        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out().strip()).isEqualTo("volume.default.mode = writearound");
        assertThat(CliRun.of("get", "volume.default.mode", "--admin", admin).out().strip()).isEqualTo("writearound");
        assertThat(CliRun.of("get", "--admin", admin).out()).contains("NAME", "volume.default.mode", "writearound");

        CliRun bad = CliRun.of("set", "volume.default.mode", "turbo", "--admin", admin);
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.err()).contains("blockcache set: volume.default.mode: \"turbo\" is not allowed; allowed: "
                + "writeback, writethrough, writearound, none", "allowed: cache mode");
        CliRun unknown = CliRun.of("get", "no.such", "--admin", admin);
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("no knob named \"no.such\"", "knobs:", "volume.default.mode");
    }

    @Test
    void setTakesUnitsAndAnOldNameWorksWithAWarning() {
        // Proves 'set' over the admin API takes a rate with its unit and prints the knob's base unit, and that a
        // deprecated name still sets the same setting, with a one-line warning on stderr and in the JSON.
        String admin = cache.adminHostPort();
        CliRun rate = CliRun.of("set", "writeback.default.rate_max_bytes_per_second", "50M/s", "--admin", admin);
        assertThat(rate.exitCode()).as(rate.err()).isZero();
        assertThat(rate.out().strip()).isEqualTo("writeback.default.rate_max_bytes_per_second = 52428800");
        assertThat(rate.err()).isEmpty();

        CliRun old = CliRun.of("set", "writeback.default.order", "fifo", "--admin", admin);
        assertThat(old.exitCode()).as(old.err()).isZero();
        assertThat(old.err().strip()).isEqualTo("blockcache set: warning: writeback.default.order is deprecated and"
                + " will go: use writeback.default.pass_order");
        assertThat(CliRun.of("get", "writeback.default.pass_order", "--admin", admin).out().strip()).isEqualTo("fifo");
        CliRun json = CliRun.of("get", "writeback.default.order", "--json", "--admin", admin);
        assertThat(json.out()).contains("\"warning\":\"writeback.default.order is deprecated");
        assertThat(CliRun.of("get", "--admin", admin).out()).contains("writeback.default.pass_order")
                .doesNotContain("writeback.default.order ");
    }

    @Test
    void saysClearlyWhenNoServerIsRunning() throws Exception {
        // Proves the commands fail with a hint, not a stack trace, when nothing listens at the address.
        int freePort;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            freePort = socket.getLocalPort();
        }
        for (String[] args : new String[][] {{"stats"}, {"get", "x"}, {"set", "x", "y"}, {"drain"},
                {"drain", "--volume", "default"}}) {
            String[] withAdmin = java.util.Arrays.copyOf(args, args.length + 2);
            withAdmin[args.length] = "--admin";
            withAdmin[args.length + 1] = "127.0.0.1:" + freePort;
            CliRun run = CliRun.of(withAdmin);
            assertThat(run.exitCode()).isEqualTo(1);
            assertThat(run.err()).contains("no blockcache server answers at 127.0.0.1:" + freePort,
                    "blockcache serve");
        }
    }
}
