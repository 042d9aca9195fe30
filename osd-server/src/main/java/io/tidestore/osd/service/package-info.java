/**
 * Telling a service manager how the daemon is doing: systemd's {@code sd_notify} protocol (READY=1
 * once the daemon serves, STOPPING=1 when it begins to stop), one datagram to the AF_UNIX socket
 * named by {@code $NOTIFY_SOCKET}. The JDK has no AF_UNIX datagram socket, so the sending is a
 * small java.lang.foreign call behind {@link io.tidestore.osd.service.ServiceNotifier}, with a
 * fallback that logs why it cannot notify. It depends only on {@code store.nativeio}; {@code osd}
 * and {@code mon} use it.
 */
package io.tidestore.osd.service;
