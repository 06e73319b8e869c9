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
        // Proves unknown schemes, a missing host, a query and an empty path are refused with a message naming the
        // text.
        assertThatThrownBy(() -> BackingUris.parse("gs://bucket/prefix"))
                .hasMessage("backing \"gs://bucket/prefix\": unknown scheme \"gs:\"; known: file, nbd, s3 "
                        + "(or a plain path)");
        assertThatThrownBy(() -> BackingUris.parse("nbd:///x")).hasMessageContaining("expected nbd://host");
        assertThatThrownBy(() -> BackingUris.parse("nbd://h/x?tls=on")).hasMessageContaining("query");
        assertThatThrownBy(() -> BackingUris.parse("file:")).hasMessageContaining("empty path");
    }

    @Test
    void s3UrisNameBucketAndPrefix() {
        // Proves the S3 form: bucket and prefix (a trailing slash dropped, an empty prefix the bucket's root), the
        // object keys under it, and one-line refusals of a bad bucket name, a double slash and a query.
        assertThat(BackingUris.parse("s3://my-bucket/vols/a/"))
                .isEqualTo(new BackingLocation.S3(new S3Uri("my-bucket", "vols/a"), S3Options.DEFAULTS));
        assertThat(S3Uri.parse("s3://my-bucket/vols/a").key(S3Volume.chunkName(255)))
                .isEqualTo("vols/a/chunk-00000000000000ff");
        assertThat(S3Uri.parse("s3://my-bucket").key("volume")).isEqualTo("volume");
        assertThatThrownBy(() -> BackingUris.parse("s3://My_Bucket/x")).hasMessageContaining("not a valid S3 bucket");
        assertThatThrownBy(() -> BackingUris.parse("s3://b1b/x//y")).hasMessageContaining("//");
        assertThatThrownBy(() -> BackingUris.parse("s3://b1b/x?endpoint=y")).hasMessageContaining("--s3-endpoint");
        assertThatThrownBy(() -> S3Options.endpoint("ftp://h")).hasMessageContaining("http:// or https://");
    }
}
