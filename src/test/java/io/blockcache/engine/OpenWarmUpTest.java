package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/** The warm-up serve runs before opening an existing cache must itself always succeed: it is on serve's start path. */
class OpenWarmUpTest {
    @Test
    void formatsWritesAndReopensAfterACrashAndAfterACleanStop() {
        // Fails if any step of the sequence (format, writes, flush, the open that replays a journal tail, the clean
        // stop, the open after it) fails: each is checked and throws.
        assertThatCode(OpenWarmUp::run).doesNotThrowAnyException();
        assertThatCode(OpenWarmUp::run).as("a second time in the same process").doesNotThrowAnyException();
    }
}
