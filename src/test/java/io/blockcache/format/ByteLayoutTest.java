package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Messages about bytes found where a structure was expected: what an operator reads after a failed open. */
class ByteLayoutTest {
    @Test
    void printableShowsAsciiAndEscapesTheRestInLowerCaseHex() {
        assertThat(ByteLayout.printable(new byte[] {'B', 'C', 0, 0x0a, (byte) 0xff, 0x7f, '~'}))
                .isEqualTo("\"BC\\x00\\x0a\\xff\\x7f~\"");
    }

    @Test
    void aWrongMagicNamesWhatWasExpectedAndWhatWasFound() {
        byte[] magic = {'B', 'C', 'J', 'O', 'U', 'R', 'N', 'L'};
        byte[] bytes = new byte[64];
        System.arraycopy(new byte[] {'B', 'C', 'J', 'O', 'U', 'R', 'N', 0}, 0, bytes, 16, 8);
        DecodeError error = ByteLayout.checkMagicAndVersion(bytes, 16, magic, "journal entry");
        assertThat(error).isNotNull();
        assertThat(error.kind()).isEqualTo(DecodeError.Kind.BAD_MAGIC);
        assertThat(error.message()).isEqualTo(
                "journal entry: expected magic \"BCJOURNL\", found \"BCJOURN\\x00\"");
    }
}
