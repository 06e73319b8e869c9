package io.blockcache.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.FileSpace;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class FileSpacesTest {
    @Test
    void warnsOnlyForFilesWhoseHolesExceedTheFreeSpace() {
        // Proves serve's start warning: the 128 MiB cache with 112 MiB of holes on a 64 MiB tmpfs is named with
        // its numbers; a backing whose holes fit, and one whose allocation is unknown, are not.
        long mib = 1L << 20;
        List<String> warnings = FileSpaces.warnings(List.of(
                new FileSpace("cache", Path.of("/mnt/small/cache.img"), 128 * mib, 16 * mib, 64 * mib),
                new FileSpace("backing default", Path.of("/big/backing.img"), 256 * mib, 0, 1024 * mib),
                new FileSpace("backing other", Path.of("/x/other.img"), 256 * mib, FileSpace.UNKNOWN, 0)));
        assertThat(warnings).singleElement().asString()
                .contains("the cache file /mnt/small/cache.img is sparse: 112 MiB of its 128 MiB are not allocated")
                .contains("64 MiB free").contains("ENOSPC").contains("Disk full");
    }
}
