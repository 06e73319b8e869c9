package io.blockcache.host;

/** A cache set could not be hosted: the message says what and where, in one line, for the user. */
public final class HostException extends Exception {
    public HostException(String message) {
        super(message);
    }
}
