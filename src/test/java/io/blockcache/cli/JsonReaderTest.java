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
        assertThat(value).isEqualTo(Map.of("a", java.util.Arrays.asList(1, -2500.0, true, null),
                "b", Map.of("c", "x\"\nA"), "d", Map.of()));
        assertThat(JsonReader.parse("[]")).isEqualTo(List.of());
        assertThat(((Number) ((Map<?, ?>) JsonReader.parse("{\"n\":5000000000}")).get("n")).longValue())
                .isEqualTo(5_000_000_000L);
    }

    @Test
    void refusesMalformedAndTooDeepInput() {
        // Proves bad input is an error saying where, trailing text is refused, and nesting is bounded.
        assertThatThrownBy(() -> JsonReader.parse("{\"a\":}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not valid JSON at character 5");
        assertThatThrownBy(() -> JsonReader.parse("[1] x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> JsonReader.parse("[".repeat(40) + "]".repeat(40)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nesting depth");
    }
}
