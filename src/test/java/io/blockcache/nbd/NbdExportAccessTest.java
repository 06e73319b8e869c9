package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Per-export address allow-lists on the wire: a client outside an export's ranges does not see it
 * in NBD_OPT_LIST, gets NBD_REP_ERR_POLICY for it to INFO, GO and SET_META_CONTEXT, is cut off by EXPORT_NAME, and
 * is counted and logged once per export and connection, while the exports it may use keep serving it and others.
 */
class NbdExportAccessTest {
    /** "default" is open to loopback clients; "second" only to 10.0.0.0/8 and 2001:db8::/32, so not to us. */
    private static Map<String, ExportAccess> access() {
        return Map.of("default", new ExportAccess(List.of(AddressRange.parse("127.0.0.0/8")), null),
                "second", new ExportAccess(List.of(AddressRange.parse("10.0.0.0/8"),
                        AddressRange.parse("2001:db8::/32")), null));
    }

    private static String exportName(NbdTestClient.OptionReply reply) {
        ByteBuffer data = ByteBuffer.wrap(reply.data());
        byte[] name = new byte[data.getInt()];
        data.get(name);
        return new String(name, StandardCharsets.UTF_8);
    }

    @Test
    void aClientOutsideTheRangesIsRefusedThatExportAndServedTheOthers() throws Exception {
        // Proves LIST hides the refused export, INFO/GO/SET_META_CONTEXT get NBD_REP_ERR_POLICY, the refusal is
        // counted and logged once however often it is asked, and the same connection then uses the open export.
        try (NbdFixture fixture = new NbdFixture(access()); NbdTestClient client = fixture.client()) {
            client.hello();
            List<NbdTestClient.OptionReply> list = client.option(OPT_LIST, new byte[0]);
            assertThat(list.stream().filter(r -> r.type() == REP_SERVER).map(NbdExportAccessTest::exportName))
                    .containsExactly("default");
            assertThat(list.get(list.size() - 1).type()).isEqualTo(REP_ACK);
            for (int option : new int[] {OPT_INFO, OPT_GO}) {
                List<NbdTestClient.OptionReply> replies = client.option(option, NbdTestClient.infoData("second"));
                assertThat(replies).hasSize(1);
                assertThat(replies.get(0).type()).as("option " + option).isEqualTo(REP_ERR_POLICY);
                assertThat(replies.get(0).text()).isEqualTo("export 'second' is not open to this client");
            }
            client.option(OPT_STRUCTURED_REPLY, new byte[0]);
            assertThat(client.option(OPT_SET_META_CONTEXT, NbdTestClient.metaData("second", "base:allocation"))
                    .get(0).type()).isEqualTo(REP_ERR_POLICY);
            client.go("default", false);
            byte[] data = new byte[4096];
            Arrays.fill(data, (byte) 0x5a);
            assertThat(client.write(8192, data, 0)).isZero();
            assertThat(client.read(8192, 4096)).isEqualTo(data);

            NbdServerStats stats = fixture.server.stats();
            assertThat(stats.exportRefusalsAddress()).isEqualTo(1);
            assertThat(stats.exportRefusalsPskUser()).isZero();
            assertThat(stats.protocolErrors()).isZero();
            assertThat(fixture.log).filteredOn(line -> line.contains("refused")).containsExactly("nbd: 127.0.0.1:"
                    + " export 'second' refused: address 127.0.0.1 is not in its allow-addresses; answered"
                    + " NBD_REP_ERR_POLICY");
            assertThat(fixture.events(io.blockcache.log.EventName.NBD_EXPORT_REFUSED)).singleElement()
                    .satisfies(event -> assertThat(event.fields()).containsExactly(
                            new io.blockcache.log.LogEvent.Field("peer", "127.0.0.1")));
        }
    }

    @Test
    void anIpv6ClientIsJudgedByIpv6Ranges() throws Exception {
        // Proves the lists over a real IPv6 socket: a client from ::1 may use the export allowed ::1/128 and not the
        // one allowed only 127.0.0.0/8 (an IPv4 range never matches an IPv6 address).
        Map<String, ExportAccess> access = Map.of(
                "default", new ExportAccess(List.of(AddressRange.parse("::1/128")), null),
                "second", new ExportAccess(List.of(AddressRange.parse("127.0.0.0/8")), null));
        try (NbdFixture fixture = new NbdFixture(access, "::1"); NbdTestClient client = fixture.client()) {
            client.hello();
            List<NbdTestClient.OptionReply> list = client.option(OPT_LIST, new byte[0]);
            assertThat(list.stream().filter(r -> r.type() == REP_SERVER).map(NbdExportAccessTest::exportName))
                    .containsExactly("default");
            assertThat(client.option(OPT_GO, NbdTestClient.infoData("second")).get(0).type())
                    .isEqualTo(REP_ERR_POLICY);
            client.go("default", false);
            assertThat(client.read(0, 512)).hasSize(512);
            assertThat(fixture.server.stats().exportRefusalsAddress()).isEqualTo(1);
            assertThat(fixture.log).anyMatch(line -> line.contains("export 'second' refused: address")
                    && line.contains(":1 is not in its allow-addresses"));
        }
    }

    @Test
    void exportNameForARefusedExportEndsTheConnectionAndWritesNothing() throws Exception {
        // Proves NBD_OPT_EXPORT_NAME, which cannot carry an error, closes the connection (counted, logged, not a
        // protocol error), that "second" was never written, and that another client is served meanwhile.
        try (NbdFixture fixture = new NbdFixture(access()); NbdTestClient refused = fixture.client();
             NbdTestClient other = fixture.client()) {
            other.go("default", true);
            refused.hello();
            refused.sendOption(OPT_EXPORT_NAME, "second".getBytes(StandardCharsets.UTF_8));
            refused.awaitServerClose();
            assertThat(fixture.server.stats().exportRefusalsAddress()).isEqualTo(1);
            assertThat(fixture.server.stats().protocolErrors()).isZero();
            assertThat(fixture.log).anyMatch(line -> line.contains("export 'second' refused")
                    && line.contains("NBD_OPT_EXPORT_NAME cannot carry an error, connection closed"));
            byte[] data = new byte[512];
            Arrays.fill(data, (byte) 7);
            assertThat(other.write(0, data, CMD_FLAG_FUA)).isZero();
            assertThat(other.read(0, 512)).isEqualTo(data);
            long dirtySecond = fixture.onLoop(done -> done.accept(fixture.cacheSet.writeback("second").dirtyBytes()));
            assertThat(dirtySecond).as("nothing written to the refused export").isZero();
        }
    }
}
