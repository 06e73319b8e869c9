package io.blockcache.nbd;

import java.util.List;

/**
 * What a finished handshake agreed on for one connection. Immutable: any thread.
 *
 * @param export the export being served
 * @param structuredReplies whether replies with data must be structured
 * @param contexts metadata contexts selected for BLOCK_STATUS, in id order (empty: BLOCK_STATUS is refused)
 * @param transmissionFlags the flags sent to the client
 */
record Session(Export export, boolean structuredReplies, List<MetaContext> contexts, int transmissionFlags) {
    Session {
        contexts = List.copyOf(contexts);
    }
}
