package io.blockcache.embed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The complete example of docs/EMBEDDING.md compiles as written, against the API package only, and runs: a child
 * JVM formats a cache, writes, flushes, reads back, sees a bad request refused, trims and closes; a second run
 * recovers the same files.
 */
class EmbeddingExampleTest {
    private static final Path DOC = Path.of("docs/EMBEDDING.md");
    private static final Pattern EXAMPLE =
            Pattern.compile("## A complete example.*?```java\\n(.*?)```", Pattern.DOTALL);
    private static final long RUN_SECONDS_MAX = 120;

    @TempDir
    Path dir;

    @Test
    void theDocumentedExampleCompilesAndRuns() throws Exception {
        // Proves the example is real: javac accepts it, it imports only io.blockcache.embed, and it prints success.
        Matcher example = EXAMPLE.matcher(Files.readString(DOC));
        assertThat(example.find()).as("docs/EMBEDDING.md has a java block under 'A complete example'").isTrue();
        String source = example.group(1);
        assertThat(source.lines().filter(line -> line.startsWith("import io.blockcache.")))
                .isNotEmpty().allMatch(line -> line.startsWith("import io.blockcache.embed."));
        Path file = dir.resolve("EmbedExample.java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String classPath = System.getProperty("java.class.path");
        assertThat(javac.run(null, null, null, "-d", dir.toString(), "-cp", classPath, file.toString()))
                .as("javac exit code").isZero();

        String first = run(classPath);
        assertThat(first).contains("read back what was written")
                .contains("refused: write of disk [100, +4096)");
        assertThat(dir.resolve("data/cache.img")).exists();
        assertThat(run(classPath)).as("second run recovers the cache").contains("read back what was written");
    }

    private String run(String classPath) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path out = dir.resolve("out.txt");
        Process process = new ProcessBuilder(List.of(java, "-cp", dir + File.pathSeparator + classPath,
                "EmbedExample", dir.resolve("data").toString())).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        if (!process.waitFor(RUN_SECONDS_MAX, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the example did not finish in " + RUN_SECONDS_MAX + " s");
        }
        String printed = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(printed).isZero();
        return printed;
    }
}
