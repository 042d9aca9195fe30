/**
 * The daemon: {@link io.tidestore.osd.OsdDaemon} starts the store, the engine, the gateways and the
 * admin endpoint in order and stops them in reverse; settings, engine setup and the build's version
 * live here too. It wires every {@code osd.*} package together and may depend on all of them and on
 * store-core; it must not depend on {@code cli} or {@code bench.*}.
 */
package io.tidestore.osd;
