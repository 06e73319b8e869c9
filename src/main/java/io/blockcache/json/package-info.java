/**
 * JSON output for every package that writes it (the admin API, the command line, the fuzz's and the benchmarks'
 * summaries): one small writer on Jackson's streaming generator, so escaping and number formatting live in one
 * place. Depends on no other blockcache package, so the lab packages ({@code fuzz}, {@code bench}), which may not use
 * {@code admin}, can use it too (docs/ARCHITECTURE.md §3).
 *
 * <p>Thread rule: a writer is used by one thread at a time.
 */
package io.blockcache.json;
