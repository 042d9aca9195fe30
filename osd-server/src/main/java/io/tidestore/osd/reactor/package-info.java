/**
 * The reactors: event loops that each own their connections and shards, their transport (epoll or
 * io_uring), the hooks run at the end of every loop pass and the binding of an I/O queue's
 * completions to a loop. It depends on {@code osd.cpu} and the store's I/O queues only.
 */
package io.tidestore.osd.reactor;
