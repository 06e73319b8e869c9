package io.blockcache.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JsonWriterTest {
    @Test
    void writesNestedDocumentsWithCommasAndEscapes() {
        // Proves the hand-written JSON: commas between members only, escapes for quotes, backslashes, controls.
        String json = new JsonWriter().beginObject()
                .field("a", "say \"hi\"\\\n\u0001")
                .name("list").beginArray().value(1).value(2.5).value(Double.NaN).value(true).endArray()
                .name("empty").beginObject().endObject()
                .endObject().toString();
        assertThat(json).isEqualTo("{\"a\":\"say \\\"hi\\\"\\\\\\n\\u0001\",\"list\":[1,2.5,null,true],\"empty\":{}}");
    }

    @Test
    void refusesAnUnbalancedDocument() {
        // Proves misuse is caught: an unclosed object is not silently returned as JSON.
        assertThatThrownBy(() -> new JsonWriter().beginObject().toString()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new JsonWriter().endArray()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void writesAPreformattedNumberAsGivenAndRefusesText() {
        // Proves number(): the caller's fixed decimals reach the document unchanged; text that is no number is refused.
        assertThat(new JsonWriter().beginObject().name("x").number("1.500").name("y").number("-2").endObject()
                .toString()).isEqualTo("{\"x\":1.500,\"y\":-2}");
        assertThatThrownBy(() -> new JsonWriter().beginArray().number("NaN"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
