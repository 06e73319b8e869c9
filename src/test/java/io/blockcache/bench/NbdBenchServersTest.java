package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bench nbd runs blockcache serve with the JVM flags bin/blockcache would give it, so its RSS is as deployed. */
class NbdBenchServersTest {
    @TempDir
    Path dir;

    @Test
    void serveGetsTheLaunchersSizingAndAnOldBuildKeepsTheBenchFlags() throws Exception {
        // Proves the 2 GiB serve of the bench gets -Xmx419m from serve --print-jvm-options, and that a class path
        // without that option (here: none of blockcache at all) falls back to this JVM's flags.
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> serve = List.of("-cp", System.getProperty("java.class.path"), "io.blockcache.cli.Main", "serve",
                "--cache", dir.resolve("c.img").toString(), "--cache-size", Long.toString(2L << 30));
        assertThat(NbdBenchServers.jvmOptions(java, serve, dir)).contains("-XX:+UseG1GC", "-Xmx419m");
        List<String> old = List.of("-cp", dir.toString(), "io.blockcache.cli.Main", "serve");
        assertThat(NbdBenchServers.jvmOptions(java, old, dir))
                .isEqualTo(ManagementFactory.getRuntimeMXBean().getInputArguments());
    }
}
