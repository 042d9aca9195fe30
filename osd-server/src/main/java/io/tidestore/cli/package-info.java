/**
 * The {@code tidestore} command line (picocli): parses arguments, calls the daemon, the tools and
 * the client, and prints. It owns no rules of its own beyond argument syntax: image rules live in
 * {@code osd.image}, daemon behaviour in {@code osd}, benchmark logic in {@code bench.*}. It is the
 * top of osd-server and may depend on every other package; nothing depends on it.
 */
package io.tidestore.cli;
