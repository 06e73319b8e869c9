package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InFlightWritesTest {
    private final InFlightWrites tracker = new InFlightWrites();

    private static List<String> visible(InFlightWrites.Entry entry) {
        List<String> out = new ArrayList<>();
        entry.forEachVisible((start, length) -> out.add(start + "+" + length));
        return out;
    }

    @Test
    void anOlderWriteCompletingLastInstallsOnlyWhatNoNewerWriteCovers() {
        // Proves newest-submission-wins when completions arrive out of order.
        InFlightWrites.Entry older = tracker.beginWrite(0, 100, false);
        InFlightWrites.Entry newer = tracker.beginWrite(20, 10, false);
        assertThat(visible(newer)).containsExactly("20+10");
        tracker.installed(newer);
        tracker.end(newer);
        assertThat(visible(older)).containsExactly("0+20", "30+70");
    }

    @Test
    void aNewerWriteCompletingLastIsNotHiddenByAnOlderOne() {
        // Proves the hiding only flows from newer to older.
        InFlightWrites.Entry older = tracker.beginWrite(0, 100, false);
        InFlightWrites.Entry newer = tracker.beginWrite(20, 10, false);
        tracker.installed(older);
        tracker.end(older);
        assertThat(visible(newer)).containsExactly("20+10");
    }

    @Test
    void aWriteAroundTheCacheHidesOlderCachedWritesFromItsSubmission() {
        // Proves a bypassing write wins over an older cached write that completes after it was submitted.
        InFlightWrites.Entry cached = tracker.beginWrite(0, 8, false);
        InFlightWrites.Entry bypass = tracker.beginWrite(4, 8, true);
        assertThat(visible(cached)).containsExactly("0+4");
        tracker.end(bypass);
        tracker.end(cached);
        assertThat(tracker.size()).isZero();
    }

    @Test
    void aFillThatRacedAWriteInstallsNothing() {
        // Proves miss collisions: a fill overlapping an in-flight write, before or during the fill, is dropped.
        InFlightWrites.Entry fillFirst = tracker.beginFill(0, 8);
        assertThat(fillFirst.fillRaced()).isFalse();
        InFlightWrites.Entry write = tracker.beginWrite(6, 4, false);
        assertThat(fillFirst.fillRaced()).isTrue();
        assertThat(visible(fillFirst)).isEmpty();
        InFlightWrites.Entry fillDuring = tracker.beginFill(9, 8);
        assertThat(fillDuring.fillRaced()).isTrue();
        InFlightWrites.Entry fillElsewhere = tracker.beginFill(100, 8);
        assertThat(fillElsewhere.fillRaced()).isFalse();
        assertThat(visible(fillElsewhere)).containsExactly("100+8");
        assertThat(tracker.writeInFlight(9, 1)).isTrue();
        tracker.end(write);
        assertThat(tracker.writeInFlight(9, 1)).isFalse();
    }
}
