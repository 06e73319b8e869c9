package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/blockcache run from an installed layout (ROOT/bin/blockcache + ROOT/lib/blockcache.jar, as under
 * /usr/lib/blockcache): it runs the jar without building, reads the system config file for serve and reload, and
 * sizes serve's JVM from the cache (the "lib/blockcache.jar" here is a manifest-only jar pointing at this build).
 */
class LauncherTest {
    private static final long RUN_SECONDS_MAX = 60;

    @TempDir
    Path dir;
    private Path launcher;
    private Path config;

    @BeforeEach
    void install() throws Exception {
        Path root = dir.resolve("usr/lib/blockcache");
        Files.createDirectories(root.resolve("bin"));
        Files.createDirectories(root.resolve("lib"));
        launcher = Files.copy(Path.of("bin/blockcache"), root.resolve("bin/blockcache"));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "io.blockcache.cli.Main");
        List<String> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            urls.add(Path.of(entry).toUri().toString());
        }
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", urls));
        try (OutputStream out = Files.newOutputStream(root.resolve("lib/blockcache.jar"));
             JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
        config = dir.resolve("etc/blockcache/blockcache.conf");
        Files.createDirectories(config.getParent());
        Files.writeString(config, "data-dir=" + dir.resolve("var/lib/blockcache") + "\ncache-size=2G\n");
    }

    private CliRun launch(Map<String, String> environment, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        Path javaHome = Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent().getParent();
        builder.environment().put("JAVA_HOME", javaHome.toString());
        builder.environment().remove("BLOCKCACHE_JAVA_OPTS");
        builder.environment().put("BLOCKCACHE_CONFIG", config.toString());
        builder.environment().putAll(environment);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(RUN_SECONDS_MAX, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the launcher did not finish in " + RUN_SECONDS_MAX + " s");
        }
        return new CliRun(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void anInstalledLauncherRunsTheJarWithoutBuilding() throws Exception {
        // Proves the installed layout needs no sources or Maven: the command runs from lib/blockcache.jar.
        CliRun run = launch(Map.of(), "--version");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("blockcache 0.1.0");
        assertThat(run.err()).doesNotContain("building");
    }

    @Test
    void serveGetsTheSystemConfigAndAHeapSizedFromTheCache() throws Exception {
        // Proves serve reads the system config file when no --config is given and gets -Xmx from its 2 GiB cache;
        // an explicit --config, and BLOCKCACHE_JAVA_OPTS, win.
        Map<String, String> dryRun = Map.of("BLOCKCACHE_LAUNCHER_DRY_RUN", "1");
        CliRun serve = launch(dryRun, "serve");
        assertThat(serve.exitCode()).as(serve.err()).isZero();
        assertThat(serve.out()).contains("-XX:+UseG1GC", "-Xmx419m", "-XX:MaxDirectMemorySize=")
                .contains("lib/blockcache.jar serve --config " + config);

        Path other = dir.resolve("other.conf");
        Files.writeString(other, "cache-size=64M\n");
        CliRun explicit = launch(dryRun, "serve", "--config", other.toString());
        assertThat(explicit.out()).contains("-Xmx107m").doesNotContain(config.toString());

        CliRun reload = launch(dryRun, "reload");
        // reload only asks the running server: the light client JVM, not serve's sizing.
        assertThat(reload.out()).contains("reload --config " + config).contains("-XX:+UseSerialGC")
                .doesNotContain("-Xmx419m");

        CliRun overridden = launch(Map.of("BLOCKCACHE_LAUNCHER_DRY_RUN", "1", "BLOCKCACHE_JAVA_OPTS", "-Xmx1g"),
                "serve");
        assertThat(overridden.out()).contains(" -Xmx1g -jar ").doesNotContain("-Xmx419m");
    }
}
