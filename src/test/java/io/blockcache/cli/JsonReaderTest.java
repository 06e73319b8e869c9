package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonReaderTest {
    @Test
    void parsesNestedValuesAndEscapes() {
        // Proves the CLI's JSON reader handles what the admin API writes: nesting, numbers, escapes, literals.
        Object value = JsonReader.parse(" {\"a\":[1,-2.5e3,true,null],\"b\":{\"c\":\"x\\\"\\n\\u0041\"},\"d\":{}} ");
        assertThat(value).isEqualTo(Map.of("a", java.util.Arrays.asList(1.0, -2500.0, true, null),
                "b", Map.of("c", "x\"\nA"), "d", Map.of()));
        assertThat(JsonReader.parse("[]")).isEqualTo(List.of());
    }

    @Test
    void refusesMalformedAndTooDeepInput() {
        // Proves bad input is an error saying where, and nesting is bounded (so the recursion is).
        assertThatThrownBy(() -> JsonReader.parse("{\"a\":}")).hasMessageContaining("not valid JSON at character 5");
        assertThatThrownBy(() -> JsonReader.parse("[1] x")).hasMessageContaining("after the value");
        assertThatThrownBy(() -> JsonReader.parse("[".repeat(40) + "]".repeat(40)))
                .hasMessageContaining("nesting deeper than 32");
    }
}
