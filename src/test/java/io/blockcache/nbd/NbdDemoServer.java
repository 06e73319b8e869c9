package io.blockcache.nbd;

/**
 * A hand-run interop aid, not a test: serves the test fixture's two 16 MiB volumes on 127.0.0.1 at an
 * ephemeral port, prints the port, and runs until stdin closes. Try {@code nbdinfo --list nbd://127.0.0.1:PORT},
 * {@code nbdinfo --map=blockcache:state nbd://127.0.0.1:PORT/default}, {@code qemu-img info nbd://...}.
 */
public final class NbdDemoServer {
    private NbdDemoServer() {
    }

    public static void main(String[] args) throws Exception {
        try (NbdFixture fixture = new NbdFixture()) {
            System.out.println("port " + fixture.server.address().getPort());
            System.out.flush();
            while (System.in.read() >= 0) {
                // keep serving until stdin closes
            }
        }
    }
}
