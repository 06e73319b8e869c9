package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodecTest {
    @Test
    void greetingIsFixedNewstyleWithNoZeroes() {
        // Proves the 18 greeting bytes: NBDMAGIC, IHAVEOPT, flags FIXED_NEWSTYLE|NO_ZEROES.
        ByteBuffer greeting = HandshakeCodec.greeting();
        assertThat(greeting.remaining()).isEqualTo(18);
        assertThat(greeting.getLong()).isEqualTo(0x4e42444d41474943L);
        assertThat(greeting.getLong()).isEqualTo(0x49484156454F5054L);
        assertThat(greeting.getShort()).isEqualTo((short) 3);
    }

    @Test
    void clientFlagsAndOptionHeadersAreCheckedStrictly() throws Exception {
        // Proves unknown client flags and a wrong option magic are protocol errors; a good header decodes.
        assertThatThrownBy(() -> HandshakeCodec.decodeClientFlags(ByteBuffer.allocate(4).putInt(4).flip()))
                .isInstanceOf(ProtocolException.class);
        assertThat(HandshakeCodec.decodeClientFlags(ByteBuffer.allocate(4).putInt(3).flip())).isEqualTo(3);
        ByteBuffer bad = ByteBuffer.allocate(16).putLong(0x1234L).putInt(7).putInt(0).flip();
        assertThatThrownBy(() -> HandshakeCodec.decodeOptionHeader(bad)).isInstanceOf(ProtocolException.class);
        ByteBuffer good = ByteBuffer.allocate(16).putLong(OPTION_MAGIC).putInt(7).putInt(-1).flip();
        assertThat(HandshakeCodec.decodeOptionHeader(good)).isEqualTo(new OptionHeader(7, 0xFFFF_FFFFL));
    }

    @Test
    void infoRequestsDecodeAndRejectWrongLengths() throws Exception {
        // Proves INFO/GO data parsing, and that short, long or lying lengths are refused.
        InfoRequest request = HandshakeCodec.decodeInfoRequest(ByteBuffer.wrap(NbdTestClient.infoData("vol", 3, 1)));
        assertThat(request).isEqualTo(new InfoRequest("vol", List.of(3, 1)));
        byte[] data = NbdTestClient.infoData("vol", 3);
        assertThatThrownBy(() -> HandshakeCodec.decodeInfoRequest(ByteBuffer.wrap(data, 0, data.length - 1)))
                .isInstanceOf(ProtocolException.class);
        ByteBuffer trailing = ByteBuffer.allocate(data.length + 1).put(data).put((byte) 0).flip();
        assertThatThrownBy(() -> HandshakeCodec.decodeInfoRequest(trailing)).isInstanceOf(ProtocolException.class);
        ByteBuffer lying = ByteBuffer.allocate(8).putInt(1000).putInt(0).flip();
        assertThatThrownBy(() -> HandshakeCodec.decodeInfoRequest(lying)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void metaContextRequestsDecodeAndSelectContexts() throws Exception {
        // Proves meta context parsing and query matching for SET (exact) and LIST (namespaces, empty = all).
        MetaContextRequest request = HandshakeCodec.decodeMetaContextRequest(
                ByteBuffer.wrap(NbdTestClient.metaData("", "base:allocation", "x-other:thing")));
        assertThat(request).isEqualTo(new MetaContextRequest("", List.of("base:allocation", "x-other:thing")));
        assertThat(MetaContext.select(request.queries(), false)).containsExactly(MetaContext.BASE_ALLOCATION);
        assertThat(MetaContext.select(List.of("blockcache:"), false)).isEmpty();
        assertThat(MetaContext.select(List.of("blockcache:"), true)).containsExactly(MetaContext.BLOCKCACHE_STATE);
        assertThat(MetaContext.select(List.of(), true)).containsExactly(MetaContext.values());
        ByteBuffer tooMany = ByteBuffer.allocate(8).putInt(0).putInt(5000).flip();
        assertThatThrownBy(() -> HandshakeCodec.decodeMetaContextRequest(tooMany))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void requestHeadersDecodeUnsignedFieldsAndRejectBadMagic() throws Exception {
        // Proves request decoding: unsigned length, offsets >= 2^63 stay visible as negative, bad magic fails.
        ByteBuffer frame = ByteBuffer.allocate(28).putInt(REQUEST_MAGIC).putShort((short) 1).putShort((short) 6)
                .putLong(42).putLong(-512).putInt(-1).flip();
        assertThat(TransmissionCodec.decodeRequest(frame)).isEqualTo(new NbdRequest(1, 6, 42, -512, 0xFFFF_FFFFL));
        ByteBuffer bad = ByteBuffer.allocate(28).putInt(0x25609514).flip();
        assertThatThrownBy(() -> TransmissionCodec.decodeRequest(bad)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void repliesHaveTheirExactLayouts() {
        // Proves simple, OFFSET_DATA, ERROR, NONE and BLOCK_STATUS encodings byte by byte.
        ByteBuffer simple = TransmissionCodec.simpleReply(9, EIO);
        assertThat(simple.getInt()).isEqualTo(SIMPLE_REPLY_MAGIC);
        assertThat(simple.getInt()).isEqualTo(EIO);
        assertThat(simple.getLong()).isEqualTo(9);
        ByteBuffer data = TransmissionCodec.offsetDataPrefix(9, 4096, 100, true);
        assertThat(data.getInt()).isEqualTo(STRUCTURED_REPLY_MAGIC);
        assertThat(data.getShort()).isEqualTo((short) REPLY_FLAG_DONE);
        assertThat(data.getShort()).isEqualTo((short) REPLY_TYPE_OFFSET_DATA);
        assertThat(data.getLong()).isEqualTo(9);
        assertThat(data.getInt()).isEqualTo(108);
        assertThat(data.getLong()).isEqualTo(4096);
        ByteBuffer error = TransmissionCodec.errorChunk(9, EINVAL, "bad");
        assertThat(error.remaining()).isEqualTo(20 + 6 + 3);
        assertThat(error.getShort(6)).isEqualTo((short) REPLY_TYPE_ERROR);
        assertThat(error.getInt(20)).isEqualTo(EINVAL);
        assertThat(error.getShort(24)).isEqualTo((short) 3);
        assertThat(TransmissionCodec.noneChunk(9).getShort(4)).isEqualTo((short) REPLY_FLAG_DONE);
        ByteBuffer status = TransmissionCodec.blockStatusChunk(9, false, 2, new long[] {512, 4096},
                new int[] {3, 0}, 2);
        assertThat(status.getShort(4)).isEqualTo((short) 0);
        assertThat(status.getInt(16)).isEqualTo(4 + 16);
        assertThat(status.getInt(20)).isEqualTo(2);
        assertThat(status.getInt(24)).isEqualTo(512);
        assertThat(status.getInt(28)).isEqualTo(3);
    }

    @Test
    void numbersMatchWhatRealClientsSend() {
        // Proves the option, flag and command numbers against libnbd's nbd-protocol.h (interop found 9..11 once).
        assertThat(new int[] {OPT_INFO, OPT_GO, OPT_STRUCTURED_REPLY, OPT_LIST_META_CONTEXT, OPT_SET_META_CONTEXT,
                OPT_EXTENDED_HEADERS}).containsExactly(6, 7, 8, 9, 10, 11);
        assertThat(new int[] {CMD_CACHE, CMD_WRITE_ZEROES, CMD_BLOCK_STATUS}).containsExactly(5, 6, 7);
        assertThat(new int[] {FLAG_CAN_MULTI_CONN, FLAG_SEND_CACHE, FLAG_SEND_FAST_ZERO})
                .containsExactly(0x100, 0x400, 0x800);
        assertThat(new int[] {CMD_FLAG_DF, CMD_FLAG_REQ_ONE, CMD_FLAG_FAST_ZERO}).containsExactly(4, 8, 16);
    }

    @Test
    void exportNameReplyPadsUnlessNoZeroes() {
        // Proves the old-style EXPORT_NAME answer: 10 bytes, or 134 with the 124 zero bytes.
        assertThat(HandshakeCodec.exportNameReply(1 << 20, 1, true).remaining()).isEqualTo(10);
        ByteBuffer padded = HandshakeCodec.exportNameReply(1 << 20, 1, false);
        assertThat(padded.remaining()).isEqualTo(134);
        assertThat(padded.getLong()).isEqualTo(1 << 20);
    }
}
