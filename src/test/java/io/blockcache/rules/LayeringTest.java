package io.blockcache.rules;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import io.blockcache.format.LayeringViolationFixture;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The package layering of docs/ARCHITECTURE.md ("Packages and their allowed dependencies") as a rule: each
 * package may use only the packages listed for it, so a lower layer never depends on an upper one.
 */
class LayeringTest {
    /**
     * Allowed dependencies, package by package, bottom to top. The same table is in docs/ARCHITECTURE.md; change
     * both together. Anything not listed (another blockcache package) is forbidden.
     */
    static final Map<String, String[]> ALLOWED = Map.ofEntries(
            Map.entry("loop", new String[] {}),
            Map.entry("json", new String[] {}),
            Map.entry("log", new String[] {}),
            Map.entry("format", new String[] {"loop"}),
            Map.entry("index", new String[] {"loop"}),
            Map.entry("device", new String[] {"loop"}),
            Map.entry("sim", new String[] {"loop", "device"}),
            Map.entry("backinglog", new String[] {"loop", "device", "format"}),
            Map.entry("journal", new String[] {"loop", "device", "format", "index"}),
            Map.entry("cache", new String[] {"loop", "device", "format", "index", "journal"}),
            Map.entry("volume", new String[] {"loop", "device", "format", "index", "journal", "cache"}),
            Map.entry("writeback", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "backinglog"}),
            Map.entry("gc", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume"}),
            Map.entry("engine", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "writeback", "gc", "backinglog"}),
            Map.entry("nbd", new String[] {"loop", "device", "index", "volume", "log"}),
            Map.entry("replication", new String[] {"loop", "device", "index", "volume"}),
            Map.entry("backing", new String[] {"loop", "device", "nbd", "log"}),
            Map.entry("admin", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "writeback", "gc", "engine", "json", "log"}),
            Map.entry("fuzz", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "writeback", "gc", "engine", "sim", "backinglog", "json"}),
            Map.entry("bench", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "writeback", "gc", "engine", "sim", "backinglog", "json"}),
            Map.entry("host", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "writeback", "gc", "engine", "backing", "log"}),
            Map.entry("embed", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "writeback", "gc", "engine", "host", "log"}),
            Map.entry("cli", new String[] {"loop", "device", "format", "index", "journal", "cache", "volume",
                "writeback", "gc", "engine", "sim", "nbd", "backing", "admin", "fuzz", "bench", "host", "embed",
                "backinglog", "json", "replication", "log"}));

    /** The layering rule: every package a layer of its own that may use only its {@link #ALLOWED} packages. */
    static ArchRule layering() {
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (String name : ALLOWED.keySet()) {
            layers = layers.layer(name).definedBy(ProductionClasses.ROOT_PACKAGE + "." + name + "..");
        }
        for (Map.Entry<String, String[]> entry : ALLOWED.entrySet()) {
            layers = entry.getValue().length == 0
                    ? layers.whereLayer(entry.getKey()).mayNotAccessAnyLayer()
                    : layers.whereLayer(entry.getKey()).mayOnlyAccessLayers(entry.getValue());
        }
        return layers.because("a lower layer never depends on an upper one (docs/ARCHITECTURE.md)");
    }

    @Test
    void everyPackageUsesOnlyTheLayersBelowIt() {
        // Proves the production code keeps the documented package graph.
        layering().check(ProductionClasses.get());
    }

    @Test
    void everyProductionPackageHasItsPlaceInTheTable() {
        // Proves a new package cannot slip past the rule: every package with classes is in ALLOWED.
        assertThat(ProductionClasses.get().stream()
                .map(c -> c.getPackageName().substring(ProductionClasses.ROOT_PACKAGE.length() + 1).split("\\.")[0])
                .distinct())
                .allMatch(ALLOWED::containsKey, "is listed in LayeringTest.ALLOWED");
    }

    @Test
    void packagesHaveNoCycles() {
        // Proves no two packages depend on each other, directly or through others.
        slices().matching(ProductionClasses.ROOT_PACKAGE + ".(*)..").should().beFreeOfCycles()
                .check(ProductionClasses.get());
    }

    @Test
    void theRuleCatchesALowerLayerThatUsesAnUpperOne() {
        // Proves the rule can fail: a format class (test fixture) that uses the engine is reported.
        JavaClasses fixture = new ClassFileImporter().importClasses(LayeringViolationFixture.class);
        EvaluationResult result = layering().evaluate(fixture);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .anySatisfy(line -> assertThat(line).contains("LayeringViolationFixture")
                        .contains("io.blockcache.engine.CacheSetOptions"));
    }
}
