package io.blockcache.backing;

import io.blockcache.device.BlockDevice;
import io.blockcache.nbd.NbdProtocol;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Opening the connections of an {@link NbdDevice}: what an export must offer to back a cache (writable, a block size
 * of at most 4 KiB, a size in whole blocks), and the further connections of a multi-conn export, each of which must
 * see the same size as the first.
 *
 * <p>Blocking; start-up and the reconnect thread only.
 */
final class NbdConnector {
    private NbdConnector() {
    }

    /** Checks what the server offers and returns the logical block size to use. */
    static int checkExport(NbdUri uri, NbdExportInfo info) throws IOException {
        if (info.has(NbdProtocol.FLAG_READ_ONLY)) {
            throw new IOException(uri + ": the export is read-only; a backing store must be writable");
        }
        if (info.blockBytesMin() > 4096) {
            throw new IOException(uri + ": the export's minimum block size " + info.blockBytesMin()
                    + " is larger than 4096 bytes");
        }
        int blockBytes = info.blockBytesMin() > BlockDevice.SECTOR_BYTES ? 4096 : BlockDevice.SECTOR_BYTES;
        if (info.sizeBytes() <= 0 || info.sizeBytes() % blockBytes != 0) {
            throw new IOException(uri + ": the export's size " + info.sizeBytes() + " bytes is not a positive multiple "
                    + "of " + blockBytes);
        }
        return blockBytes;
    }

    /**
     * Opens connections {@code from}..{@code wanted}-1; closes what it opened if one fails.
     *
     * @param sizeBytes the export's size as the first connection saw it; another size is refused (it was resized)
     */
    static List<NbdConnection> openMore(NbdUri uri, long sizeBytes, int from, int wanted,
                                        NbdConnection.BreakListener listener) throws IOException {
        List<NbdConnection> opened = new ArrayList<>();
        try {
            for (int i = from; i < wanted; i++) {
                NbdConnection connection = NbdConnection.open(uri, i, listener);
                opened.add(connection);
                if (connection.info().sizeBytes() != sizeBytes) {
                    throw new IOException(uri + ": the export's size changed from " + sizeBytes + " to "
                            + connection.info().sizeBytes() + " bytes; refusing it");
                }
            }
            return opened;
        } catch (IOException e) {
            opened.forEach(NbdConnection::abort);
            throw e;
        }
    }
}
