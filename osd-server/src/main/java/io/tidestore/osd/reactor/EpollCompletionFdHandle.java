package io.tidestore.osd.reactor;

import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;

/** The completion eventfd in an epoll loop: registered level-triggered for EPOLLIN. */
final class EpollCompletionFdHandle extends CompletionFdHandle implements EpollIoHandle {
  EpollCompletionFdHandle(int fd, Runnable onReadable) {
    super(fd, onReadable);
  }

  @Override
  public FileDescriptor fd() {
    return fd;
  }

  @Override
  void start(IoRegistration registration) {
    this.registration = registration;
    registration.submit(EpollIoOps.EPOLLIN);
  }

  @Override
  void stop() {
    if (registration != null) {
      registration.cancel();
      registration = null;
    }
  }

  @Override
  public void handle(IoRegistration registration, IoEvent event) {
    readable();
  }
}
