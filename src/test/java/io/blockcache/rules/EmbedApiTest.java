package io.blockcache.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The library API is {@code io.blockcache.embed} and nothing else (docs/EMBEDDING.md, its package-info): no public
 * constructor, method or field of a public type there mentions a type of another blockcache package, so an
 * application that compiles against the API cannot reach an internal class through it.
 */
class EmbedApiTest {
    static final String API_PACKAGE = ProductionClasses.ROOT_PACKAGE + ".embed";

    /** One line per public member of a public API type whose signature names an internal type. */
    static List<String> leaks(JavaClasses classes) {
        List<String> leaks = new ArrayList<>();
        for (JavaClass type : classes) {
            if (!type.getPackageName().equals(API_PACKAGE) || !type.getModifiers().contains(JavaModifier.PUBLIC)) {
                continue;
            }
            for (JavaCodeUnit unit : type.getCodeUnits()) {
                if (!unit.getModifiers().contains(JavaModifier.PUBLIC)) {
                    continue;
                }
                List<JavaClass> named = new ArrayList<>(unit.getRawParameterTypes());
                named.add(unit.getRawReturnType());
                named.addAll(unit.getExceptionTypes());
                for (JavaClass mentioned : named) {
                    if (internal(mentioned)) {
                        leaks.add(unit.getFullName() + " names " + mentioned.getName());
                    }
                }
            }
            for (JavaField field : type.getFields()) {
                if (field.getModifiers().contains(JavaModifier.PUBLIC) && internal(field.getRawType())) {
                    leaks.add(field.getFullName() + " is a " + field.getRawType().getName());
                }
            }
            if (type.getRawSuperclass().map(EmbedApiTest::internal).orElse(false)
                    || type.getRawInterfaces().stream().anyMatch(EmbedApiTest::internal)) {
                leaks.add(type.getName() + " extends or implements an internal type");
            }
        }
        return leaks;
    }

    private static boolean internal(JavaClass type) {
        JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
        return base.getPackageName().startsWith(ProductionClasses.ROOT_PACKAGE + ".")
                && !base.getPackageName().equals(API_PACKAGE);
    }

    @Test
    void theApiNamesNoInternalType() {
        // Proves the public surface of io.blockcache.embed mentions only its own types and the JDK's.
        assertThat(leaks(ProductionClasses.get())).isEmpty();
        assertThat(ProductionClasses.get().stream().filter(c -> c.getPackageName().equals(API_PACKAGE)))
                .as("the API package exists").isNotEmpty();
    }

    @Test
    void theRuleCatchesALeak() throws ClassNotFoundException {
        // Proves the rule can fail: a fixture in the API package that returns, takes and holds internal types.
        JavaClasses fixture = new ClassFileImporter()
                .importClasses(Class.forName("io.blockcache.embed.LeakyApiFixture"));
        assertThat(leaks(fixture)).hasSize(3).anyMatch(line -> line.contains("io.blockcache.volume.Volume"))
                .anyMatch(line -> line.contains("io.blockcache.engine.CacheSetOptions"))
                .anyMatch(line -> line.contains("io.blockcache.loop.RealLoop"));
    }
}
