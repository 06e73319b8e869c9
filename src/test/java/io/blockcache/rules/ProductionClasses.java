package io.blockcache.rules;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The compiled production classes of blockcache, imported once per JVM (the import is the slow part of an
 * ArchUnit rule: about a second for the whole of {@code target/classes}), shared by every rule test.
 */
final class ProductionClasses {
    static final String ROOT_PACKAGE = "io.blockcache";

    private ProductionClasses() {
    }

    /** The classes under {@code target/classes}, never the test classes. Thread rule: any thread. */
    static JavaClasses get() {
        return Holder.CLASSES;
    }

    /** Initialization-on-demand holder: the JVM imports once, on first use, thread-safely. */
    private static final class Holder {
        static final JavaClasses CLASSES = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT_PACKAGE);
    }
}
