package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.log.EventName;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Runs the fixed newstyle handshake of one connection on its reader thread: greeting, client flags, then
 * options until the client picks an export (GO or EXPORT_NAME) or leaves (ABORT).
 *
 * <p>TLS ({@link TlsMode}, doc/proto.md "TLS support"): with TLS off, NBD_OPT_STARTTLS gets NBD_REP_ERR_POLICY.
 * Otherwise it is acknowledged and the connection upgraded ({@link Upgrade}); what was negotiated in plain text
 * before (structured replies, metadata contexts) is forgotten, since a man in the middle could have sent it. With
 * {@link TlsMode#REQUIRE}, before the upgrade every option but STARTTLS and ABORT gets NBD_REP_ERR_TLS_REQD, and
 * NBD_OPT_EXPORT_NAME, which cannot carry an error, ends the connection, as the spec's FORCEDTLS mode says.
 *
 * <p>Access ({@link ExportAccess}): an export the client may not use (its address is outside the export's
 * ranges, or its PSK identity is not allowed) is left out of NBD_OPT_LIST and answered NBD_REP_ERR_POLICY to
 * NBD_OPT_INFO, NBD_OPT_GO and the metadata-context options; NBD_OPT_EXPORT_NAME, which cannot carry an error, ends
 * the connection. Each export refused is counted and logged once per connection. The PSK identity is the one the
 * TLS session authenticated, so a client is judged by it only after STARTTLS.
 *
 * <p>Limits: option data over {@link #OPTION_DATA_BYTES_MAX} or more than {@link #OPTIONS_MAX} options are
 * treated as denial of service (hard disconnect, as the spec allows); anything else malformed gets an error
 * reply and negotiation continues. Unknown options get NBD_REP_ERR_UNSUP with their data consumed.
 *
 * <p>Thread rule: the connection's reader thread.
 */
final class Negotiation {
    /** Largest option data accepted: names and queries are at most 4 KiB each; 64 KiB is ample. */
    static final int OPTION_DATA_BYTES_MAX = 64 << 10;
    /** Options per handshake; real clients send fewer than 10. */
    static final int OPTIONS_MAX = 1024;
    /** Block sizes advertised: any alignment works (read-modify-write), 4 KiB is best, 32 MiB the most. */
    static final int BLOCK_MINIMUM_BYTES = 1;
    static final int BLOCK_PREFERRED_BYTES = 4096;
    static final int BLOCK_MAXIMUM_BYTES = 32 << 20;

    /** Upgrades the connection to TLS once NBD_OPT_STARTTLS has been acknowledged. */
    interface Upgrade {
        /**
         * Runs the TLS handshake and switches the connection's reader to the TLS session.
         *
         * @return the channel to write to from now on
         * @throws IOException if the handshake failed or the client went away (the connection then ends)
         */
        WritableByteChannel startTls() throws IOException;
    }

    private final Exports exports;
    private final FrameReader reader;
    private WritableByteChannel out;
    private final TlsMode tlsMode;
    private final Upgrade upgrade;
    private final NbdCounters counters;
    /** Takes one line for the operator (the connection adds the peer). */
    private final BiConsumer<EventName, String> log;
    /** Who the client is, for the exports' allow-lists. */
    private final ExportGate gate;
    private boolean tlsActive;
    /** True once this connection was refused for want of TLS (counted and logged once per connection). */
    private boolean tlsRefusalCounted;
    private boolean noZeroes;
    private boolean structuredReplies;
    private Export contextsExport;
    private List<MetaContext> contexts = List.of();

    /** A negotiation without TLS (STARTTLS is refused with NBD_REP_ERR_POLICY). */
    Negotiation(Exports exports, FrameReader reader, WritableByteChannel out) {
        this(exports, reader, out, TlsMode.OFF, null, new NbdCounters(), (name, line) -> { },
                InetAddress.getLoopbackAddress());
    }

    /**
     * @param upgrade runs the TLS handshake; unused (may be null) when {@code tlsMode} is off
     * @param log takes one line for the operator per refusal for want of TLS, STARTTLS on a server without TLS or
     *     export the client may not use
     * @param peerAddress the client's address, which the exports' allow-lists are checked against
     */
    Negotiation(Exports exports, FrameReader reader, WritableByteChannel out, TlsMode tlsMode, Upgrade upgrade,
                NbdCounters counters, BiConsumer<EventName, String> log, InetAddress peerAddress) {
        this.exports = exports;
        this.reader = reader;
        this.out = out;
        this.tlsMode = tlsMode;
        this.upgrade = upgrade;
        this.counters = counters;
        this.log = log;
        this.gate = new ExportGate(peerAddress, counters, log);
    }

    /** True once the connection runs over TLS. */
    boolean tlsActive() {
        return tlsActive;
    }

    /** The flags sent for an export: what this server supports; DF only with structured replies. */
    static int transmissionFlags(boolean structuredReplies) {
        int flags = FLAG_HAS_FLAGS | FLAG_SEND_FLUSH | FLAG_SEND_FUA | FLAG_SEND_TRIM | FLAG_SEND_WRITE_ZEROES
                | FLAG_SEND_FAST_ZERO | FLAG_CAN_MULTI_CONN | FLAG_SEND_CACHE;
        return structuredReplies ? flags | FLAG_SEND_DF : flags;
    }

    /**
     * Runs the handshake.
     *
     * @return the agreed session, or null if the client aborted
     * @throws ProtocolException on a violation that ends the connection
     * @throws IOException if the client went away
     */
    Session run() throws IOException, ProtocolException {
        write(HandshakeCodec.greeting());
        ByteBuffer flags = ByteBuffer.allocate(4);
        reader.readFully(flags);
        noZeroes = (HandshakeCodec.decodeClientFlags(flags.flip()) & CLIENT_FLAG_NO_ZEROES) != 0;
        for (int i = 0; i < OPTIONS_MAX; i++) {
            ByteBuffer headerFrame = ByteBuffer.allocate(OPTION_HEADER_BYTES);
            reader.readFully(headerFrame);
            OptionHeader header = HandshakeCodec.decodeOptionHeader(headerFrame.flip());
            if (header.dataBytes() > OPTION_DATA_BYTES_MAX) {
                throw new ProtocolException("option " + header.option() + " carries " + header.dataBytes()
                        + " bytes, more than the maximum of " + OPTION_DATA_BYTES_MAX);
            }
            ByteBuffer data = ByteBuffer.allocate((int) header.dataBytes());
            reader.readFully(data);
            data.flip();
            if (tlsMode == TlsMode.REQUIRE && !tlsActive && header.option() == OPT_EXPORT_NAME) {
                refusedForTls(OPT_EXPORT_NAME);
                return null; // EXPORT_NAME cannot carry an error: the spec says terminate the session
            }
            if (header.option() == OPT_EXPORT_NAME && refusedExportName(data.duplicate())) {
                return null; // as above: no error can be sent, so the session ends
            }
            Session session = option(header.option(), data);
            if (session != null || header.option() == OPT_ABORT) {
                return session;
            }
        }
        throw new ProtocolException("more than " + OPTIONS_MAX + " options in one handshake");
    }

    /** Answers one option; returns the session if it ends negotiation. */
    private Session option(int option, ByteBuffer data) throws IOException, ProtocolException {
        if (tlsMode == TlsMode.REQUIRE && !tlsActive && option != OPT_STARTTLS && option != OPT_ABORT) {
            refusedForTls(option);
            error(option, REP_ERR_TLS_REQD, "this server requires TLS: send NBD_OPT_STARTTLS first");
            return null;
        }
        switch (option) {
            case OPT_EXPORT_NAME -> {
                return exportName(data);
            }
            case OPT_ABORT -> ack(option);
            case OPT_LIST -> list(data);
            case OPT_STARTTLS -> startTls(data);
            case OPT_INFO, OPT_GO -> {
                return info(option, data);
            }
            case OPT_STRUCTURED_REPLY -> {
                if (data.hasRemaining()) {
                    error(option, REP_ERR_INVALID, "NBD_OPT_STRUCTURED_REPLY takes no data");
                } else {
                    structuredReplies = true;
                    ack(option);
                }
            }
            case OPT_LIST_META_CONTEXT, OPT_SET_META_CONTEXT -> metaContext(option, data);
            default -> error(option, REP_ERR_UNSUP, "option " + option + " is not supported");
        }
        return null;
    }

    private void startTls(ByteBuffer data) throws IOException, ProtocolException {
        if (tlsMode == TlsMode.OFF) {
            if (!tlsRefusalCounted) {
                tlsRefusalCounted = true;
                counters.tlsOffRefusals.incrementAndGet();
                log.accept(EventName.NBD_TLS_REFUSED, "asked for TLS, which this server does not offer (--tls=off);"
                        + " answered NBD_REP_ERR_POLICY");
            }
            error(OPT_STARTTLS, REP_ERR_POLICY, "TLS is not enabled on this server (--tls=off)");
        } else if (data.hasRemaining()) {
            error(OPT_STARTTLS, REP_ERR_INVALID, "NBD_OPT_STARTTLS takes no data");
        } else if (tlsActive) {
            error(OPT_STARTTLS, REP_ERR_INVALID, "TLS is already active on this connection");
        } else if (reader.buffered() > 0) {
            // The client must wait for the reply before its TLS handshake; bytes already here would be lost.
            throw new ProtocolException("sent " + reader.buffered() + " bytes after NBD_OPT_STARTTLS before its"
                    + " reply");
        } else {
            ack(OPT_STARTTLS);
            out = upgrade.startTls();
            tlsActive = true;
            gate.tlsStarted(out instanceof TlsChannel session ? session.pskIdentity() : null);
            // Nothing negotiated in plain text is trusted once encrypted: a man in the middle could have sent it.
            structuredReplies = false;
            contexts = List.of();
            contextsExport = null;
        }
    }

    /** Counts and logs, once per connection, a client refused because it did not start TLS first. */
    private void refusedForTls(int option) {
        if (!tlsRefusalCounted) {
            tlsRefusalCounted = true;
            counters.tlsRequiredRefusals.incrementAndGet();
            log.accept(EventName.NBD_TLS_REQUIRED, "option " + option + " before TLS refused (--tls=require)"
                    + (option == OPT_EXPORT_NAME ? "; connection closed" : " with NBD_REP_ERR_TLS_REQD"));
        }
    }

    /**
     * Answers NBD_REP_ERR_POLICY if the client may not use {@code export} (counted and logged once per export and
     * connection).
     *
     * @return true if refused
     */
    private boolean refused(int option, Export export) throws IOException {
        if (!gate.allowed(export, option)) {
            error(option, REP_ERR_POLICY, "export '" + export.name() + "' is not open to this client");
            return true;
        }
        return false;
    }

    /** True if NBD_OPT_EXPORT_NAME asks for a known export the client may not use (counted and logged). */
    private boolean refusedExportName(ByteBuffer data) throws ProtocolException {
        Export export = exports.find(HandshakeCodec.string(data, data.remaining(), "export name"));
        return export != null && !gate.allowed(export, OPT_EXPORT_NAME);
    }

    private Session exportName(ByteBuffer data) throws IOException, ProtocolException {
        String name = HandshakeCodec.string(data, data.remaining(), "export name");
        Export export = exports.find(name);
        if (export == null) {
            // EXPORT_NAME cannot carry an error: the spec says the server MUST terminate the session.
            throw new ProtocolException("NBD_OPT_EXPORT_NAME asked for unknown export '" + name + "'");
        }
        int flags = transmissionFlags(structuredReplies);
        write(HandshakeCodec.exportNameReply(export.volume().sizeBytes(), flags, noZeroes));
        return new Session(export, structuredReplies, contextsFor(export), flags);
    }

    private void list(ByteBuffer data) throws IOException {
        if (data.hasRemaining()) {
            error(OPT_LIST, REP_ERR_INVALID, "NBD_OPT_LIST takes no data");
            return;
        }
        for (Export export : exports.all()) {
            if (!gate.visible(export)) {
                continue; // an export the client may not use is not shown to it
            }
            write(HandshakeCodec.optionReply(OPT_LIST, REP_SERVER, HandshakeCodec.serverEntry(export.name())));
        }
        ack(OPT_LIST);
    }

    private Session info(int option, ByteBuffer data) throws IOException {
        InfoRequest request;
        try {
            request = HandshakeCodec.decodeInfoRequest(data);
        } catch (ProtocolException e) {
            error(option, REP_ERR_INVALID, e.getMessage());
            return null;
        }
        Export export = exports.find(request.exportName());
        if (export == null) {
            error(option, REP_ERR_UNKNOWN, "no export named '" + request.exportName() + "'");
            return null;
        }
        if (refused(option, export)) {
            return null;
        }
        int flags = transmissionFlags(structuredReplies);
        write(HandshakeCodec.optionReply(option, REP_INFO,
                HandshakeCodec.infoExport(export.volume().sizeBytes(), flags)));
        // Block sizes are sent even unasked: the minimum of 1 promises nothing a client could trip over.
        write(HandshakeCodec.optionReply(option, REP_INFO,
                HandshakeCodec.infoBlockSize(BLOCK_MINIMUM_BYTES, BLOCK_PREFERRED_BYTES, BLOCK_MAXIMUM_BYTES)));
        if (request.infoTypes().contains(INFO_NAME)) {
            write(HandshakeCodec.optionReply(option, REP_INFO, HandshakeCodec.infoString(INFO_NAME, export.name())));
        }
        if (request.infoTypes().contains(INFO_DESCRIPTION)) {
            write(HandshakeCodec.optionReply(option, REP_INFO,
                    HandshakeCodec.infoString(INFO_DESCRIPTION, export.description())));
        }
        ack(option);
        return option == OPT_GO ? new Session(export, structuredReplies, contextsFor(export), flags) : null;
    }

    private void metaContext(int option, ByteBuffer data) throws IOException {
        if (!structuredReplies) {
            error(option, REP_ERR_INVALID, "metadata contexts need structured replies first");
            return;
        }
        MetaContextRequest request;
        try {
            request = HandshakeCodec.decodeMetaContextRequest(data);
        } catch (ProtocolException e) {
            error(option, REP_ERR_INVALID, e.getMessage());
            return;
        }
        Export export = exports.find(request.exportName());
        if (export == null) {
            error(option, REP_ERR_UNKNOWN, "no export named '" + request.exportName() + "'");
            return;
        }
        if (refused(option, export)) {
            return;
        }
        boolean listing = option == OPT_LIST_META_CONTEXT;
        List<MetaContext> selected = MetaContext.select(request.queries(), listing);
        for (MetaContext context : selected) {
            // Ids in LIST replies are reserved; the spec says send 0.
            int id = listing ? 0 : context.id();
            write(HandshakeCodec.optionReply(option, REP_META_CONTEXT,
                    HandshakeCodec.metaContext(id, context.contextName())));
        }
        if (!listing) {
            contexts = selected;
            contextsExport = export;
        }
        ack(option);
    }

    /** Contexts apply only to the export they were set for (the spec: a different export resets them). */
    private List<MetaContext> contextsFor(Export export) {
        return export == contextsExport && structuredReplies ? contexts : List.of();
    }

    private void ack(int option) throws IOException {
        write(HandshakeCodec.optionReply(option, REP_ACK, new byte[0]));
    }

    private void error(int option, int replyType, String message) throws IOException {
        write(HandshakeCodec.errorReply(option, replyType, message));
    }

    private void write(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
    }
}
