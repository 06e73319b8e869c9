/**
 * One cached backing device as clients see it: the front-end read, write, flush, trim and
 * write-zeroes paths, cache modes and bypass decisions.
 *
 * <p>Thread rule: requests enter through the loop; completions leave through callbacks on the loop.
 */
package io.blockcache.volume;
