package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InlineIoPolicyTest {
    private static final long FAST_NS = 3_000;

    @Test
    void aNewDeviceProvesItselfOnTheIoThreadsBeforeAnythingRunsOnTheLoop() {
        // Proves an unknown device counts as slow, and that about 50 fast threaded calls make it fast.
        InlineIoPolicy policy = new InlineIoPolicy(false);
        assertThat(policy.inline(DeviceOp.READ, 4096, false)).isFalse();
        int calls = 0;
        while (!policy.inline(DeviceOp.READ, 4096, false)) {
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
        assertThat(buffered.inline(DeviceOp.READ, InlineIoPolicy.INLINE_BYTES_MAX, false)).isTrue();
        assertThat(buffered.inline(DeviceOp.WRITE, 4096, false)).isTrue();
        assertThat(buffered.inline(DeviceOp.READ, InlineIoPolicy.INLINE_BYTES_MAX + 512, false)).isFalse();
        assertThat(buffered.inline(DeviceOp.WRITE, 4096, true)).as("FUA forces the file").isFalse();
        assertThat(buffered.inline(DeviceOp.FLUSH, 0, false)).isFalse();
        assertThat(buffered.inline(DeviceOp.DISCARD, 4096, false)).isFalse();
        InlineIoPolicy direct = fastPolicy(true);
        assertThat(direct.inline(DeviceOp.READ, 4096, false)).as("O_DIRECT waits for the device").isFalse();
        assertThat(direct.meanCallNs()).as("an O_DIRECT device does not even measure")
                .isEqualTo(InlineIoPolicy.UNKNOWN_CALL_NS);
    }

    @Test
    void oneCallThatWentToTheDiskSendsTheNextRequestsToTheIoThreadsUntilTheyAreFastAgain() {
        // Proves a 10 ms inline call stops inlining at once, and that threaded fast calls bring it back.
        InlineIoPolicy policy = fastPolicy(false);
        policy.recordInline(10_000_000);
        assertThat(policy.inline(DeviceOp.READ, 4096, false)).isFalse();
        int calls = 0;
        while (!policy.inline(DeviceOp.READ, 4096, false)) {
            policy.recordThreaded(DeviceOp.READ, 4096, false, FAST_NS);
            calls++;
        }
        assertThat(calls).as("fast calls on the I/O threads before inlining again").isBetween(40, 120);
        assertThat(policy.inlineCalls()).isEqualTo(1);
    }

    @Test
    void aMomentaryStallOfTheLoopThreadDoesNotStopInlining() {
        // Proves a 150 us sample (the loop thread preempted) moves the mean by far less than the limit.
        InlineIoPolicy policy = fastPolicy(false);
        policy.recordInline(150_000);
        assertThat(policy.inline(DeviceOp.WRITE, 4096, false)).isTrue();
    }

    @Test
    void aDeviceThatStaysSlowIsNeverInlined() {
        // Proves SSD-like page-cache misses (100 us each) keep every request on the I/O threads.
        InlineIoPolicy policy = new InlineIoPolicy(false);
        for (int i = 0; i < 1_000; i++) {
            assertThat(policy.inline(DeviceOp.READ, 4096, false)).isFalse();
            policy.recordThreaded(DeviceOp.READ, 4096, false, 100_000);
        }
        assertThat(policy.inlineCalls()).isZero();
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
            policy.recordThreaded(DeviceOp.READ, 4096, false, FAST_NS);
        }
        return policy;
    }
}
