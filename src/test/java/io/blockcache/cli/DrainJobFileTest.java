package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.admin.DrainJobRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DrainJobFileTest {
    @TempDir
    Path dir;

    @Test
    void jobsRoundTripThroughTheFileWithAwkwardNamesAndErrors() throws Exception {
        // Proves save then read gives the same records (volume names with separators, errors with line breaks and
        // non-ASCII), the file replaces the old one whole, no temporary file is left, and an absent file is no jobs.
        DrainJobFile file = new DrainJobFile(dir.resolve(DrainJobFile.NAME));
        assertThat(file.read()).isEmpty();
        List<DrainJobRecord> jobs = List.of(
                new DrainJobRecord("default", "running", 1 << 20, 1_900_000_000_000L, null),
                new DrainJobRecord("a b=c:d", "failed", 0, 0, "drain stopped:\nbacking flush failed — EIO \\ x"));
        file.save(jobs);
        assertThat(file.read()).containsExactlyInAnyOrderElementsOf(jobs);
        assertThat(Files.readString(dir.resolve(DrainJobFile.NAME))).contains("version=1\n",
                "drain.default.state=running\n", "drain.default.rateMaxBytesPerSecond=1048576\n");
        file.save(List.of(new DrainJobRecord("default", "paused", 0, 0, null)));
        assertThat(file.read()).containsExactly(new DrainJobRecord("default", "paused", 0, 0, null));
        try (var listing = Files.list(dir)) {
            assertThat(listing.map(p -> p.getFileName().toString())).containsExactly(DrainJobFile.NAME);
        }
    }

    @Test
    void aDamagedFileIsRefusedWithWhere() throws Exception {
        // Proves read refuses an unknown version and an invalid state, naming the file, instead of guessing.
        Path path = dir.resolve(DrainJobFile.NAME);
        Files.writeString(path, "version=2\n");
        assertThatThrownBy(() -> new DrainJobFile(path).read()).isInstanceOf(IOException.class)
                .hasMessageContaining(path + ": version 2, expected 1");
        Files.writeString(path, "version=1\ndrain.default.state=sleeping\n");
        assertThatThrownBy(() -> new DrainJobFile(path).read()).isInstanceOf(IOException.class)
                .hasMessageContaining("must be one of");
    }
}
