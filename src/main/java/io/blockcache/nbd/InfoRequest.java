package io.blockcache.nbd;

import java.util.List;

/**
 * The data of NBD_OPT_INFO / NBD_OPT_GO: the export asked for and the NBD_INFO_* items the client wants.
 *
 * @param exportName the export name; empty means the default export
 * @param infoTypes requested item types, in the client's order
 */
public record InfoRequest(String exportName, List<Integer> infoTypes) {
}
