package io.blockcache.backing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The backing URI table: which text becomes which location, and the one-line refusals. */
class BackingUrisTest {
    @Test
    void pathsAndFileUrisAreFiles() {
        // Proves plain paths (also with a colon inside), file:PATH and file:///PATH all name files.
        assertThat(BackingUris.parse("/srv/disk.img")).isEqualTo(new BackingLocation.File(Path.of("/srv/disk.img")));
        assertThat(BackingUris.parse("data/a:b.img")).isEqualTo(new BackingLocation.File(Path.of("data/a:b.img")));
        assertThat(BackingUris.parse("file:rel.img")).isEqualTo(new BackingLocation.File(Path.of("rel.img")));
        assertThat(BackingUris.parse("file:///dev/sdb")).isEqualTo(new BackingLocation.File(Path.of("/dev/sdb")));
    }

    @Test
    void nbdUrisNameHostPortAndExport() {
        // Proves the NBD form: the default port is 10809, the export is the path without its slash.
        assertThat(BackingUris.parse("nbd://example.org/vol1"))
                .isEqualTo(new BackingLocation.Nbd(new NbdUri("example.org", 10809, "vol1")));
        assertThat(BackingUris.parse("nbd://127.0.0.1:10900/"))
                .isEqualTo(new BackingLocation.Nbd(new NbdUri("127.0.0.1", 10900, "")));
        assertThat(NbdUri.parse("nbd://[::1]:10900/x").toString()).isEqualTo("nbd://[::1]:10900/x");
    }

    @Test
    void badUrisAreRefusedWithOneLine() {
        // Proves unknown schemes (s3 is not here yet), a missing host, a query and an empty path are refused with
        // a message naming the text.
        assertThatThrownBy(() -> BackingUris.parse("s3://bucket/prefix"))
                .hasMessage("backing \"s3://bucket/prefix\": unknown scheme \"s3:\"; known: file, nbd "
                        + "(or a plain path)");
        assertThatThrownBy(() -> BackingUris.parse("nbd:///x")).hasMessageContaining("expected nbd://host");
        assertThatThrownBy(() -> BackingUris.parse("nbd://h/x?tls=on")).hasMessageContaining("query");
        assertThatThrownBy(() -> BackingUris.parse("file:")).hasMessageContaining("empty path");
    }
}
