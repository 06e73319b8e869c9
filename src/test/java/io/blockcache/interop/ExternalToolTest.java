package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class ExternalToolTest {
    private static final String MISSING = "blockcache-no-such-tool";

    @Test
    void aMissingToolFailsUnderCiAndIsASkipNamingItOtherwise() {
        // Proves the rule for missing clients: CI fails (never a silent skip), a developer machine skips, and
        // both messages name the tool.
        assertThatThrownBy(() -> ExternalTool.require(MISSING, true))
                .isInstanceOf(AssertionError.class).hasMessageContaining(MISSING);
        assertThatThrownBy(() -> ExternalTool.require(MISSING, false))
                .isInstanceOf(TestAbortedException.class).hasMessageContaining(MISSING);
        assertThatCode(() -> ExternalTool.require("sh", true)).doesNotThrowAnyException();
    }
}
