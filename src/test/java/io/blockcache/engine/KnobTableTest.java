package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The knob table is the one declaration of every live knob: the registry, the documentation tables, the fuzz's
 * draws and get/set all follow it, so adding a knob is one entry in {@link KnobTable} plus its use.
 */
class KnobTableTest {
    /** Rewrites the documents' tables instead of failing: {@code -Dblockcache.writeKnobDocs=true}. */
    private static final boolean WRITE_DOCS = Boolean.getBoolean("blockcache.writeKnobDocs");

    @Test
    void everyKnobIsRegisteredDocumentedDrawnAndRoundTrips() throws IOException {
        // Proves that each knob of the table exists on a live cache set (and nothing else does), is listed in its
        // document's table, is drawn by the fuzz (or says why not, with every choice a value it accepts), and that
        // get after set gives back what was set, for every draw of the fuzz and for the default.
        SimCacheSet sim = new SimCacheSet();
        sim.format(1);
        CacheSet set = sim.openOk();
        TreeSet<String> expected = new TreeSet<>();
        for (KnobSpec spec : KnobTable.all()) {
            String name = spec.name(SimCacheSet.EXPORT);
            expected.add(name);
            Knob knob = set.knobs().find(name);
            assertThat(knob).as(name).isNotNull();
            assertThat(documentText(spec.group()).contains("| `" + spec.pattern() + "` |"))
                    .as(spec.group().document() + " lists " + spec.pattern()).isTrue();
            assertThat(spec.doc()).as(name + " doc").isNotBlank().doesNotContain("|", "\n");
            if (spec.draw().drawn()) {
                assertThat(spec.replacedBy()).as(name + ": a deprecated name is not drawn").isNull();
            } else {
                assertThat(spec.draw().skipReason()).as(name + ": why it is not drawn").isNotBlank();
            }
            List<String> values = new ArrayList<>(spec.draw().choices());
            values.add(spec.format(spec.defaultValue()));
            for (String value : values) {
                knob.set(value);
                assertThat(knob.get()).as(name + " after set " + value).isEqualTo(knob.normalize(value))
                        .isEqualTo(spec.format(spec.parse(name, value)));
            }
            knob.set(spec.format(spec.defaultValue()));
        }
        List<String> registered = new ArrayList<>();
        for (Knob knob : set.knobs().list()) {
            registered.add(knob.name());
        }
        List<String> current = expected.stream().filter(n -> set.knobs().find(n).deprecation() == null).toList();
        assertThat(registered).as("the registry lists the table's current knobs").containsExactlyElementsOf(current);
    }

    @Test
    void theDocumentsTablesAreTheGeneratedOnes() throws IOException {
        // Proves each document's knob table is exactly what the table generates (so no doc lists a knob that is
        // gone, or a default that changed); -Dblockcache.writeKnobDocs=true rewrites them.
        for (KnobGroup group : KnobGroup.values()) {
            Path path = Path.of(group.document());
            String document = Files.readString(path);
            String generated = KnobDocs.withTable(document, group);
            if (WRITE_DOCS) {
                Files.writeString(path, generated);
                document = generated;
            }
            assertThat(document).as(group.document() + ", table " + group + " (run KnobTableTest with"
                    + " -Dblockcache.writeKnobDocs=true to regenerate):\n" + KnobDocs.table(group))
                    .isEqualTo(generated);
        }
    }

    @Test
    void setTakesUnitsAndOldNamesAndRefusesWithTheKnobTheValueAndTheRange() {
        // Proves sizes, durations and rates are taken with units, the deprecated names still work and say so,
        // and a refusal names the knob, the value and what is allowed.
        SimCacheSet sim = new SimCacheSet();
        sim.format(1);
        CacheSet set = sim.openOk();
        assertThat(setAndGet(set, "volume.default.sequential_cutoff_bytes", "8M")).isEqualTo("8388608");
        assertThat(setAndGet(set, "volume.default.sequential_cutoff_bytes", "512K")).isEqualTo("524288");
        assertThat(setAndGet(set, "writeback.default.dirty_expire_ms", "30s")).isEqualTo("30000");
        assertThat(setAndGet(set, "volume.default.throttle_delay_max_ms", "500ms")).isEqualTo("500");
        assertThat(setAndGet(set, "volume.default.congested_read_threshold_us", "3ms")).isEqualTo("3000");
        assertThat(setAndGet(set, "writeback.default.rate_max_bytes_per_second", "50M/s")).isEqualTo("52428800");
        assertThat(setAndGet(set, "writeback.default.percent", "25%")).isEqualTo("25");

        Knob sectors = set.knobs().find("writeback.default.rate_max_sectors_per_second");
        assertThat(sectors.get()).as("the old name reads the same setting in its unit").isEqualTo("102400");
        sectors.set("2048");
        assertThat(set.knobs().find("writeback.default.rate_max_bytes_per_second").get()).isEqualTo("1048576");
        assertThat(sectors.deprecation()).isEqualTo("writeback.default.rate_max_sectors_per_second is deprecated"
                + " and will go: use writeback.default.rate_max_bytes_per_second");
        Knob order = set.knobs().find("writeback.default.order");
        order.set("fifo");
        assertThat(set.knobs().find("writeback.default.pass_order").get()).isEqualTo("fifo");
        assertThat(order.deprecation()).contains("use writeback.default.pass_order");
        assertThat(set.knobs().find("writeback.default.pass_order").deprecation()).isNull();

        assertThatThrownBy(() -> set.knobs().find("writeback.default.percent").set("101"))
                .hasMessage("writeback.default.percent: \"101\" is out of range; allowed: 0..100 %");
        assertThatThrownBy(() -> set.knobs().find("writeback.default.rate_max_bytes_per_second").set("1000"))
                .hasMessageStartingWith("writeback.default.rate_max_bytes_per_second: \"1000\" is not a multiple of"
                        + " 512 bytes/s; allowed: 0..512000000000 bytes/s, a multiple of 512");
        assertThatThrownBy(() -> set.knobs().find("writeback.default.dirty_expire_ms").set("1500us"))
                .hasMessageStartingWith("writeback.default.dirty_expire_ms: \"1500us\" is not allowed (not a whole"
                        + " number of ms); allowed: 1000..86400000 ms");
        assertThatThrownBy(() -> set.knobs().find("volume.default.sequential_cutoff_bytes").set("lots"))
                .hasMessageContaining("volume.default.sequential_cutoff_bytes: \"lots\" is not allowed (not a size");
        assertThatThrownBy(() -> set.knobs().find("writeback.default.keys_per_pass_busy").set("100"))
                .as("a relation the settings record keeps, with the knob named")
                .hasMessageStartingWith("writeback.default.keys_per_pass_busy: \"100\" refused: need 1 <="
                        + " keys_per_pass_busy <= keys_per_pass_idle");
        assertThat(set.knobs().find("writeback.default.keys_per_pass_busy").get()).isEqualTo("5");
    }

    @Test
    void quantitiesParseSizesRatesAndDurations() {
        // Proves the one parser of sizes, rates and durations, with its refusals.
        assertThat(Quantities.parseBytes("0")).isZero();
        assertThat(Quantities.parseBytes("4096")).isEqualTo(4096);
        assertThat(Quantities.parseBytes("8GiB")).isEqualTo(8L << 30);
        assertThat(Quantities.parseBytes("128k")).isEqualTo(128L << 10);
        assertThat(Quantities.parseBytesPerSecond("50M/s")).isEqualTo(50L << 20);
        assertThat(Quantities.parseBytesPerSecond("4k")).isEqualTo(4096);
        assertThat(Quantities.parseNs("1h30m", Quantities.SECOND)).isEqualTo(5400 * Quantities.SECOND);
        assertThat(Quantities.parseNs("90", Quantities.SECOND)).isEqualTo(90 * Quantities.SECOND);
        assertThat(Quantities.parseNs("90", Quantities.MS)).isEqualTo(90 * Quantities.MS);
        assertThat(Quantities.parseNs("250us", Quantities.MS)).isEqualTo(250 * Quantities.US);
        assertThat(Quantities.parseNs("1s500ms", Quantities.MS)).isEqualTo(1500 * Quantities.MS);
        assertThatThrownBy(() -> Quantities.parseNs("1m1m", Quantities.SECOND)).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Quantities.parseNs("soon", Quantities.SECOND)).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Quantities.parseBytes("9999999999T")).hasMessageContaining("below 2^63");
        assertThatThrownBy(() -> Quantities.parseBytesPerSecond("fast")).hasMessageContaining("not a size");
    }

    private static String setAndGet(CacheSet set, String name, String value) {
        Knob knob = set.knobs().find(name);
        knob.set(value);
        return knob.get();
    }

    private static String documentText(KnobGroup group) throws IOException {
        return Files.readString(Path.of(group.document()));
    }
}
