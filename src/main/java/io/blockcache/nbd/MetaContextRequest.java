package io.blockcache.nbd;

import java.util.List;

/**
 * The data of NBD_OPT_LIST_META_CONTEXT / NBD_OPT_SET_META_CONTEXT.
 *
 * @param exportName the export the contexts are for; empty means the default export
 * @param queries the context queries, in the client's order
 */
public record MetaContextRequest(String exportName, List<String> queries) {
}
