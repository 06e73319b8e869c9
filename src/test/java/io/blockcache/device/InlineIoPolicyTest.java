package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InlineIoPolicyTest {
    private static final long FAST_NS = 3_000;

    @Test
    void aNewDeviceProvesItselfOnTheIoThreadsBeforeAnythingRunsOnTheLoop() {
        // Proves an unknown device counts as slow, and that about 50 fast threaded calls make it fast.
        InlineIoPolicy policy = new InlineIoPolicy(false);
        assertThat(policy.inline(DeviceOp.READ, 4096, false, 0)).isFalse();
        int calls = 0;
        while (!policy.inline(DeviceOp.READ, 4096, false, 0)) {
            policy.recordThreaded(DeviceOp.READ, 4096, false, FAST_NS);
            calls++;
            assertThat(calls).as("fast calls needed").isLessThan(200);
        }
        assertThat(calls).isBetween(30, 120);
        assertThat(policy.meanCallNs()).isLessThanOrEqualTo(InlineIoPolicy.FAST_CALL_NS_MAX);
    }

    @Test
    void onlySmallReadsAndPlainWritesOfABufferedDeviceAreInlined() {
        // Proves the eligibility rules: no FUA, no flush, no discard, nothing over 32 KiB, nothing with O_DIRECT.
        InlineIoPolicy buffered = fastPolicy(false);
        assertThat(buffered.inline(DeviceOp.READ, InlineIoPolicy.INLINE_BYTES_MAX, false, 0)).isTrue();
        assertThat(buffered.inline(DeviceOp.WRITE, 4096, false, 0)).isTrue();
        assertThat(buffered.inline(DeviceOp.READ, InlineIoPolicy.INLINE_BYTES_MAX + 512, false, 0)).isFalse();
        assertThat(buffered.inline(DeviceOp.WRITE, 4096, true, 0)).as("FUA forces the file").isFalse();
        assertThat(buffered.inline(DeviceOp.FLUSH, 0, false, 0)).isFalse();
        assertThat(buffered.inline(DeviceOp.DISCARD, 4096, false, 0)).isFalse();
        InlineIoPolicy direct = fastPolicy(true);
        assertThat(direct.inline(DeviceOp.READ, 4096, false, 0)).as("O_DIRECT waits for the device").isFalse();
        assertThat(direct.meanCallNs()).as("an O_DIRECT device does not even measure")
                .isEqualTo(InlineIoPolicy.UNKNOWN_CALL_NS);
    }

    @Test
    void oneCallThatWentToTheDiskSendsTheNextRequestsToTheIoThreadsUntilTheyAreFastAgain() {
        // Proves a 10 ms inline call stops inlining at once, and that threaded fast calls bring it back.
        InlineIoPolicy policy = fastPolicy(false);
        long inlineBefore = policy.inlineCalls();
        policy.recordInline(10_000_000, 0);
        assertThat(policy.inline(DeviceOp.READ, 4096, false, 0)).isFalse();
        int calls = 0;
        while (!policy.inline(DeviceOp.READ, 4096, false, 0)) {
            policy.recordThreaded(DeviceOp.READ, 4096, false, FAST_NS);
            calls++;
        }
        assertThat(calls).as("fast calls on the I/O threads before inlining again").isBetween(40, 120);
        assertThat(policy.inlineCalls() - inlineBefore).as("only the slow call ran on the loop").isEqualTo(1);
    }

    @Test
    void aMomentaryStallOfTheLoopThreadDoesNotStopInlining() {
        // Proves a 150 us sample (the loop thread preempted) moves the mean by far less than the limit.
        InlineIoPolicy policy = fastPolicy(false);
        policy.recordInline(150_000, 0);
        assertThat(policy.inline(DeviceOp.WRITE, 4096, false, 0)).isTrue();
    }

    @Test
    void aDeviceThatStaysSlowIsOnlyProbedAndLessAndLessOften() {
        // Proves SSD-like page-cache misses (100 us each) keep every request on the I/O threads but the probes, and
        // that the probes back off from 100 ms to 10 s apart.
        InlineIoPolicy policy = new InlineIoPolicy(false);
        long ms = 1_000_000;
        for (long now = 0; now < 60_000 * ms; now += ms) {
            if (policy.inline(DeviceOp.READ, 4096, false, now)) {
                policy.recordInline(100_000, now);
            } else {
                policy.recordThreaded(DeviceOp.READ, 4096, false, 100_000);
            }
        }
        // Probes at 0.1, 0.3, 0.7, 1.5, 3.1, 6.3, 12.7 s, then every 10 s: 12 in the first minute.
        assertThat(policy.probes()).isEqualTo(12);
        assertThat(policy.inlineCalls()).as("nothing but the probes ran on the loop").isEqualTo(policy.probes());
        assertThat(policy.probeIntervalNs()).isEqualTo(InlineIoPolicy.PROBE_INTERVAL_MAX_NS);
    }

    @Test
    void writesThatOnlyLookSlowBecauseTheyQueueOnTheThreadsAreProbedAndInlinedAgain() {
        // Proves the 2026-12-02 trap is gone: after one slow moment, threaded calls measured behind each other's
        // inode lock (60 us each) keep a fast file off the loop only until the next probe, and the threaded calls
        // that finish after inlining began do not stop it.
        InlineIoPolicy policy = fastPolicy(false);
        policy.recordInline(10_000_000, 0);
        long ms = 1_000_000;
        long now = ms;
        while (!policy.inline(DeviceOp.WRITE, 4096, false, now)) {
            policy.recordThreaded(DeviceOp.WRITE, 4096, false, 60_000);
            now += ms / 10;
            assertThat(now).as("no probe within a second").isLessThan(1_000 * ms);
        }
        assertThat(now).as("the probe comes one interval after the spell ended")
                .isEqualTo(InlineIoPolicy.PROBE_INTERVAL_MIN_NS);
        assertThat(policy.probes()).isEqualTo(1);
        policy.recordInline(3_000, now);
        for (int i = 0; i < 32; i++) {
            policy.recordThreaded(DeviceOp.WRITE, 4096, false, 60_000);
        }
        assertThat(policy.inline(DeviceOp.WRITE, 4096, false, now)).as("late threaded calls do not count").isTrue();
        assertThat(policy.meanCallNs()).isEqualTo(3_000);
    }

    @Test
    void aProbedSpellThatEndsSoonBacksOffAndALongOneResetsTheInterval() {
        // Proves a page cache that serves a probe and then misses (a bimodal device) is probed less and less often,
        // while a spell of over 1,000 fast calls makes the next slow moment start from the shortest interval.
        InlineIoPolicy policy = fastPolicy(false);
        long now = 0;
        policy.recordInline(10_000_000, now);
        assertThat(policy.probeIntervalNs()).isEqualTo(InlineIoPolicy.PROBE_INTERVAL_MIN_NS);
        for (int round = 1; round <= 3; round++) {
            now += policy.probeIntervalNs();
            assertThat(policy.inline(DeviceOp.READ, 4096, false, now)).as("probe %s", round).isTrue();
            policy.recordInline(2_000, now);
            policy.recordInline(5_000_000, now); // the next call misses: the spell ends at once
            assertThat(policy.probeIntervalNs()).isEqualTo(InlineIoPolicy.PROBE_INTERVAL_MIN_NS << round);
        }
        now += policy.probeIntervalNs();
        assertThat(policy.inline(DeviceOp.READ, 4096, false, now)).isTrue();
        policy.recordInline(2_000, now);
        for (long i = 0; i < InlineIoPolicy.PROBE_TRUSTED_CALLS; i++) {
            assertThat(policy.inline(DeviceOp.READ, 4096, false, now)).isTrue();
            policy.recordInline(2_000, now);
        }
        policy.recordInline(10_000_000, now);
        assertThat(policy.probeIntervalNs()).isEqualTo(InlineIoPolicy.PROBE_INTERVAL_MIN_NS);
    }

    @Test
    void largeFuaAndFlushCallsDoNotCountTowardsTheMean() {
        // Proves only calls that could have been inlined are measured: a slow fsync says nothing of a pread.
        InlineIoPolicy policy = fastPolicy(false);
        long mean = policy.meanCallNs();
        policy.recordThreaded(DeviceOp.FLUSH, 0, false, 50_000_000);
        policy.recordThreaded(DeviceOp.WRITE, 4096, true, 50_000_000);
        policy.recordThreaded(DeviceOp.WRITE, 1 << 20, false, 50_000_000);
        assertThat(policy.meanCallNs()).isEqualTo(mean);
    }

    private static InlineIoPolicy fastPolicy(boolean direct) {
        InlineIoPolicy policy = new InlineIoPolicy(direct);
        for (int i = 0; i < 200; i++) {
            if (policy.inline(DeviceOp.READ, 4096, false, 0)) {
                policy.recordInline(FAST_NS, 0); // once inlining began, the loop's own calls move the mean
            } else {
                policy.recordThreaded(DeviceOp.READ, 4096, false, FAST_NS);
            }
        }
        return policy;
    }
}
