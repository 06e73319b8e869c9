package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.log.LogEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The writeback error watch driven by hand: each new error of a volume is one writeback.error event. */
class WritebackErrorWatchTest {
    @Test
    void eachNewErrorOfAVolumeIsLoggedOnceWithItsCount() throws Exception {
        // Proves: no error, no line; a volume's error gives one writeback.error with the volume and the count; the
        // same count seen again gives nothing, nor does a last error without a counted one (a backing file changed
        // under the volume: device.degraded says that); a count that grew gives another; volumes are apart.
        List<List<WritebackErrorWatch.Errors>> reads = new ArrayList<>(List.of(
                List.of(new WritebackErrorWatch.Errors("a", 0, null)),
                List.of(new WritebackErrorWatch.Errors("a", 1, "backing write failed: EIO"),
                        new WritebackErrorWatch.Errors("b", 0, "backing file changed")),
                List.of(new WritebackErrorWatch.Errors("a", 1, "backing write failed: EIO")),
                List.of(new WritebackErrorWatch.Errors("a", 3, "backing flush failed: EIO"),
                        new WritebackErrorWatch.Errors("b", 2, "cache read failed"))));
        List<LogEvent> events = new ArrayList<>();
        WritebackErrorWatch watch = new WritebackErrorWatch(() -> reads.remove(0), events::add);
        for (int i = 0; i < 4; i++) {
            watch.check();
        }
        assertThat(events).extracting(e -> e.name().id() + " " + e.fields() + " " + e.message()).containsExactly(
                "writeback.error [Field[key=volume, value=a], Field[key=errors, value=1]] writeback of \"a\": backing"
                        + " write failed: EIO",
                "writeback.error [Field[key=volume, value=a], Field[key=errors, value=3]] writeback of \"a\": backing"
                        + " flush failed: EIO",
                "writeback.error [Field[key=volume, value=b], Field[key=errors, value=2]] writeback of \"b\": cache"
                        + " read failed");
    }
}
