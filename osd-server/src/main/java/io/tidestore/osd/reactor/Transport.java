package io.tidestore.osd.reactor;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;

/** The Netty native transport the reactors run on. */
public enum Transport {
  EPOLL,
  IO_URING;

  /** Parses {@code epoll|io_uring} (also {@code io-uring}), case-insensitive. */
  public static Transport parse(String text) {
    return switch (text.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "epoll" -> EPOLL;
      case "io_uring", "io-uring", "iouring" -> IO_URING;
      default ->
          throw new IllegalArgumentException("unknown transport '" + text + "' (epoll|io_uring)");
    };
  }

  /** The name used in flags and logs. */
  public String label() {
    return this == EPOLL ? "epoll" : "io_uring";
  }

  /** Null when usable here, else why not (kernel, seccomp, missing native library). */
  public Throwable unavailabilityCause() {
    return this == EPOLL ? Epoll.unavailabilityCause() : IoUring.unavailabilityCause();
  }

  IoHandlerFactory handlerFactory() {
    return this == EPOLL ? EpollIoHandler.newFactory() : IoUringIoHandler.newFactory();
  }

  /** The listening channel class of this transport. */
  public Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : IoUringServerSocketChannel.class;
  }

  /** The client channel class of this transport. */
  public Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : IoUringSocketChannel.class;
  }
}
