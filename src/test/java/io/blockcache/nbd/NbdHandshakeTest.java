package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.NbdTestClient.OptionReply;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NbdHandshakeTest {
    private static NbdFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new NbdFixture();
    }

    @AfterAll
    static void stop() throws Exception {
        fixture.close();
    }

    private static ByteBuffer info(List<OptionReply> replies, int infoType) {
        for (OptionReply reply : replies) {
            ByteBuffer data = ByteBuffer.wrap(reply.data());
            if (reply.type() == REP_INFO && data.getShort() == infoType) {
                return data;
            }
        }
        return null;
    }

    @Test
    void goAnswersExportSizeFlagsBlockSizesNameAndDescription() throws Exception {
        // Proves NBD_OPT_GO: INFO_EXPORT with size and flags, BLOCK_SIZE 1/4096/32M, NAME, DESCRIPTION, ACK.
        try (NbdTestClient client = fixture.client().hello()) {
            List<OptionReply> replies = client.option(OPT_GO, NbdTestClient.infoData("second", INFO_NAME,
                    INFO_DESCRIPTION, INFO_BLOCK_SIZE));
            assertThat(replies.get(replies.size() - 1).type()).isEqualTo(REP_ACK);
            ByteBuffer export = info(replies, INFO_EXPORT);
            assertThat(export.getLong()).isEqualTo(NbdFixture.VOLUME_BYTES);
            int flags = export.getShort() & 0xFFFF;
            assertThat(flags).isEqualTo(FLAG_HAS_FLAGS | FLAG_SEND_FLUSH | FLAG_SEND_FUA | FLAG_SEND_TRIM
                    | FLAG_SEND_WRITE_ZEROES | FLAG_SEND_FAST_ZERO | FLAG_CAN_MULTI_CONN | FLAG_SEND_CACHE);
            ByteBuffer sizes = info(replies, INFO_BLOCK_SIZE);
            assertThat(new int[] {sizes.getInt(), sizes.getInt(), sizes.getInt()}).containsExactly(1, 4096, 32 << 20);
            ByteBuffer name = info(replies, INFO_NAME);
            assertThat(new String(name.array(), 2, name.remaining())).isEqualTo("second");
            assertThat(info(replies, INFO_DESCRIPTION)).isNotNull();
            // GO moved to transmission: a read works.
            assertThat(client.read(0, 512)).hasSize(512);
        }
    }

    @Test
    void infoDoesNotEndNegotiationAndUnknownExportsAreRefused() throws Exception {
        // Proves NBD_OPT_INFO keeps negotiating, unknown names get ERR_UNKNOWN, the empty name is the default.
        try (NbdTestClient client = fixture.client().hello()) {
            List<OptionReply> replies = client.option(OPT_INFO, NbdTestClient.infoData(""));
            assertThat(replies.get(replies.size() - 1).type()).isEqualTo(REP_ACK);
            assertThat(client.option(OPT_GO, NbdTestClient.infoData("nope")).get(0).type()).isEqualTo(REP_ERR_UNKNOWN);
            assertThat(client.option(OPT_GO, new byte[] {0, 0}).get(0).type()).isEqualTo(REP_ERR_INVALID);
            client.go("", true);
            assertThat(client.transmissionFlags & FLAG_SEND_DF).isEqualTo(FLAG_SEND_DF);
        }
    }

    @Test
    void exportNameGetsTheOldStyleAnswerWithOrWithoutZeroes() throws Exception {
        // Proves NBD_OPT_EXPORT_NAME: size, flags, and 124 zero bytes only when NO_ZEROES was not agreed.
        try (NbdTestClient client = fixture.client().hello(CLIENT_FLAG_FIXED_NEWSTYLE)) {
            client.sendOption(OPT_EXPORT_NAME, "default".getBytes());
            assertThat(client.in.readLong()).isEqualTo(NbdFixture.VOLUME_BYTES);
            assertThat(client.in.readShort() & FLAG_HAS_FLAGS).isEqualTo(FLAG_HAS_FLAGS);
            client.in.readFully(new byte[124]);
            client.structured = false;
            assertThat(client.read(512, 16)).hasSize(16); // the stream is in sync after the padding
        }
        try (NbdTestClient client = fixture.client().hello()) {
            client.sendOption(OPT_EXPORT_NAME, new byte[0]);
            assertThat(client.in.readLong()).isEqualTo(NbdFixture.VOLUME_BYTES);
            client.in.readShort();
            assertThat(client.read(0, 16)).hasSize(16);
        }
        try (NbdTestClient client = fixture.client().hello()) {
            client.sendOption(OPT_EXPORT_NAME, "missing".getBytes());
            assertThat(client.serverClosed()).isTrue(); // EXPORT_NAME cannot carry an error
        }
    }

    @Test
    void listAbortStartTlsExtendedHeadersAndUnknownOptions() throws Exception {
        // Proves LIST names every export, STARTTLS -> POLICY, EXTENDED_HEADERS and unknown -> UNSUP with
        // their data consumed (the stream stays in sync), and ABORT is acknowledged and ends the session.
        try (NbdTestClient client = fixture.client().hello()) {
            List<OptionReply> list = client.option(OPT_LIST, new byte[0]);
            assertThat(list).hasSize(3);
            assertThat(list.get(0).type()).isEqualTo(REP_SERVER);
            assertThat(new String(list.get(0).data(), 4, list.get(0).data().length - 4)).isEqualTo("default");
            assertThat(new String(list.get(1).data(), 4, list.get(1).data().length - 4)).isEqualTo("second");
            assertThat(client.option(OPT_LIST, new byte[1]).get(0).type()).isEqualTo(REP_ERR_INVALID);
            assertThat(client.option(OPT_STARTTLS, new byte[0]).get(0).type()).isEqualTo(REP_ERR_POLICY);
            assertThat(client.option(OPT_EXTENDED_HEADERS, new byte[0]).get(0).type()).isEqualTo(REP_ERR_UNSUP);
            List<OptionReply> unknown = client.option(77, new byte[5000]);
            assertThat(unknown.get(0).type()).isEqualTo(REP_ERR_UNSUP);
            assertThat(unknown.get(0).option()).isEqualTo(77);
            assertThat(client.option(OPT_STRUCTURED_REPLY, new byte[0]).get(0).type()).isEqualTo(REP_ACK);
            assertThat(client.option(OPT_ABORT, new byte[0]).get(0).type()).isEqualTo(REP_ACK);
            assertThat(client.serverClosed()).isTrue();
        }
    }

    @Test
    void metaContextsNeedStructuredRepliesAndAreListedAndSet() throws Exception {
        // Proves LIST/SET_META_CONTEXT: refused before structured replies; LIST shows both; SET returns ids.
        try (NbdTestClient client = fixture.client().hello()) {
            byte[] query = NbdTestClient.metaData("default", "base:allocation");
            assertThat(client.option(OPT_SET_META_CONTEXT, query).get(0).type()).isEqualTo(REP_ERR_INVALID);
            client.option(OPT_STRUCTURED_REPLY, new byte[0]);
            List<OptionReply> listed = client.option(OPT_LIST_META_CONTEXT, NbdTestClient.metaData("default"));
            assertThat(listed).extracting(r -> r.type()).containsExactly(REP_META_CONTEXT, REP_META_CONTEXT, REP_ACK);
            assertThat(new String(listed.get(1).data(), 4, listed.get(1).data().length - 4))
                    .isEqualTo("blockcache:state");
            List<OptionReply> set = client.option(OPT_SET_META_CONTEXT,
                    NbdTestClient.metaData("default", "blockcache:state", "base:allocation", "other:x"));
            assertThat(set).hasSize(3);
            assertThat(ByteBuffer.wrap(set.get(0).data()).getInt()).isEqualTo(MetaContext.BASE_ALLOCATION.id());
            assertThat(ByteBuffer.wrap(set.get(1).data()).getInt()).isEqualTo(MetaContext.BLOCKCACHE_STATE.id());
            assertThat(client.option(OPT_SET_META_CONTEXT, NbdTestClient.metaData("zzz", "base:allocation"))
                    .get(0).type()).isEqualTo(REP_ERR_UNKNOWN);
            assertThat(client.option(OPT_SET_META_CONTEXT, new byte[3]).get(0).type()).isEqualTo(REP_ERR_INVALID);
        }
    }

    @Test
    void malformedHandshakesCloseOnlyThatConnection() throws Exception {
        // Proves bad client flags, a wrong option magic and oversized option data end the connection, and the
        // server keeps serving others.
        long errorsBefore = fixture.server.protocolErrorsTotal();
        try (NbdTestClient client = fixture.client().hello(0x10)) {
            assertThat(client.serverClosed()).isTrue();
        }
        try (NbdTestClient client = fixture.client().hello()) {
            client.out.writeLong(0xdeadbeefL);
            client.out.writeLong(0);
            client.out.flush();
            assertThat(client.serverClosed()).isTrue();
        }
        try (NbdTestClient client = fixture.client().hello()) {
            client.out.writeLong(OPTION_MAGIC);
            client.out.writeInt(OPT_GO);
            client.out.writeInt(1 << 30); // claims a GiB of option data
            client.out.flush();
            assertThat(client.serverClosed()).isTrue();
        }
        try (NbdTestClient client = fixture.client()) {
            client.in.readFully(new byte[18]);
            client.out.write(new byte[] {0, 0}); // half the client flags, then gone
        }
        assertThat(fixture.server.protocolErrorsTotal()).isEqualTo(errorsBefore + 3);
        try (NbdTestClient client = fixture.client().go("default", true)) {
            assertThat(client.read(0, 4096)).hasSize(4096);
        }
    }
}
