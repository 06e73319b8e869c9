package io.blockcache.format;

/**
 * Internal signal that a field could not be read; decoders catch it at their boundary and turn it into a
 * {@link DecodeResult.Failed}. Checked, so that no decoder can forget to catch it.
 */
final class MalformedException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient DecodeError error;

    MalformedException(DecodeError error) {
        super(error.toString(), null, false, false);
        this.error = error;
    }

    DecodeError error() {
        return error;
    }
}
