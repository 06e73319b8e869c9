/**
 * The command line: the only package that parses arguments or configuration files. Each subcommand
 * is one class; {@link io.blockcache.cli.Main} wires them together.
 */
package io.blockcache.cli;
