package io.blockcache.nbd;

import java.util.ArrayList;
import java.util.List;

/**
 * The metadata contexts this server offers for NBD_CMD_BLOCK_STATUS, with their fixed ids.
 *
 * <ul>
 *   <li>{@code base:allocation} (id 1): the spec's context. Every range is reported as allocated data
 *       (status 0): a cache cannot tell whether the backing store's blocks are holes or zeroes without
 *       reading them, and status 0 is always a truthful answer.</li>
 *   <li>{@code blockcache:state} (id 2): what the cache holds. Status bits: bit 0 ({@link #STATE_CACHED})
 *       = the range is in the cache; bit 1 ({@link #STATE_DIRTY}) = the cached copy is newer than the
 *       backing store (always with bit 0). So 0 = not cached, 1 = cached clean, 3 = cached dirty.</li>
 * </ul>
 *
 * <p>Query syntax: an exact context name selects it; for LIST only, a namespace alone ({@code base:} or
 * {@code blockcache:}) or no query at all lists every context in it. Pure: any thread.
 */
public enum MetaContext {
    BASE_ALLOCATION(1, "base:allocation"),
    BLOCKCACHE_STATE(2, "blockcache:state");

    /** blockcache:state bit 0: the range has a current copy in the cache. */
    public static final int STATE_CACHED = 1;
    /** blockcache:state bit 1: the cached copy is dirty (not yet written back). */
    public static final int STATE_DIRTY = 2;

    private final int id;
    private final String contextName;

    MetaContext(int id, String contextName) {
        this.id = id;
        this.contextName = contextName;
    }

    /** The context id used in NBD_REP_META_CONTEXT and BLOCK_STATUS chunks. */
    public int id() {
        return id;
    }

    /** The context's name as clients ask for it. */
    public String contextName() {
        return contextName;
    }

    /**
     * The contexts {@code queries} select, each once, in id order.
     *
     * @param listing true for LIST_META_CONTEXT (namespace queries and an empty list match more)
     */
    public static List<MetaContext> select(List<String> queries, boolean listing) {
        List<MetaContext> selected = new ArrayList<>();
        for (MetaContext context : values()) {
            if (listing && queries.isEmpty()) {
                selected.add(context);
                continue;
            }
            for (String query : queries) {
                if (query.equals(context.contextName) || (listing && query.equals(context.namespace()))) {
                    selected.add(context);
                    break;
                }
            }
        }
        return selected;
    }

    private String namespace() {
        return contextName.substring(0, contextName.indexOf(':') + 1);
    }
}
