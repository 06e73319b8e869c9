package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} under a {@code Type=notify} unit: with {@code NOTIFY_SOCKET} set it sends READY=1 once recovery is
 * done and both listeners are up, and STOPPING=1 when it stops. The socket is a fake the test binds (python3's
 * datagram socket, which also answers systemd-notify's barrier), at a path and in the abstract namespace.
 */
class SystemdNotifyTest {
    /** Messages the fake socket may print before the test gives up on READY=1 (serve sends two or three). */
    private static final int MESSAGES_MAX = 16;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"path", "abstract"})
    void readyOnlyOnceListenersAreUpAndStoppingAtStop(String kind) throws Exception {
        // Proves READY=1 arrives (through systemd-notify) when NBD already accepts connections, and STOPPING=1 at stop.
        ExternalTool.require("systemd-notify");
        ExternalTool.require("python3");
        String socket = kind.equals("path") ? dir.resolve("notify.sock").toString()
                : "@blockcache-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Path script = dir.resolve("fake_notify_socket.py");
        try (var in = SystemdNotifyTest.class.getResourceAsStream("fake_notify_socket.py")) {
            Files.copy(in, script);
        }
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        Process fake = new ProcessBuilder(python, script.toString(), socket)
                .redirectError(dir.resolve("fake.err").toFile()).start();
        try (BufferedReader messages = new BufferedReader(
                new InputStreamReader(fake.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(messages.readLine()).as(Files.readString(dir.resolve("fake.err"))).isEqualTo("bound");
            ServeProcess serve = ServeProcess.start(dir.resolve("data"), "notify", "",
                    Map.of("NOTIFY_SOCKET", socket));
            List<String> seen = new ArrayList<>();
            String ready = null;
            try {
                for (int i = 0; i < MESSAGES_MAX && ready == null; i++) {
                    String line = messages.readLine(); // null once the fake gives up (60 s without a message)
                    if (line == null) {
                        break;
                    }
                    seen.add(line);
                    if (line.contains("READY=1")) {
                        ready = line;
                    }
                }
                assertThat(ready).as("messages " + seen + "; serve log:\n" + serve.log()).isNotNull();
                assertThat(ready).contains("MAINPID=" + serve.pid()).contains("STATUS=serving [default]");
                try (SocketChannel nbd = SocketChannel.open(new InetSocketAddress("127.0.0.1", serve.nbdPort()))) {
                    assertThat(nbd.isConnected()).isTrue();
                }
            } finally {
                serve.close();
            }
            String stopping = null;
            for (int i = 0; i < MESSAGES_MAX && stopping == null; i++) {
                String line = messages.readLine();
                if (line == null) {
                    break;
                }
                seen.add(line);
                stopping = line.contains("STOPPING=1") ? line : null;
            }
            assertThat(stopping).as("messages " + seen).isNotNull();
            assertThat(seen).contains("BARRIER=1"); // systemd-notify waited until the message was read
            assertThat(serve.log()).doesNotContain("telling systemd");
        } finally {
            fake.destroy();
            fake.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void withoutNotifySocketNothingIsSent() throws IOException, InterruptedException {
        // Proves serve outside systemd neither runs systemd-notify nor complains about it.
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "plain")) {
            assertThat(serve.log()).doesNotContain("systemd");
        }
    }
}
