package io.blockcache.device;

import java.io.IOException;

/** A device file another process (or another open in this one) holds: its message names the holder. */
public final class FileInUseException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message one line: the file, who holds it, what to do */
    public FileInUseException(String message) {
        super(message);
    }
}
