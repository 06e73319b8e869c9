/**
 * The admin HTTP API on localhost: stats as JSON, Prometheus metrics, live knobs, the dashboard.
 *
 * <p>Talks to volumes only through their public API.
 */
package io.blockcache.admin;
