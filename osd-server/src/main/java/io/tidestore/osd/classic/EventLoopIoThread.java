package io.tidestore.osd.classic;

import io.netty.channel.IoEventLoop;
import io.tidestore.osd.reactor.IoQueueLoopBinding;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.handoff.IoThread;
import io.tidestore.store.io.handoff.IoThreadQueue;
import java.io.IOException;

/**
 * A Netty I/O loop (the classic engine's {@code io-N}) as the {@link IoThread} of an op worker's
 * {@link IoThreadQueue}: tasks run on the loop, and the ring's completions are reaped there through
 * {@link IoQueueLoopBinding} (its eventfd watched by the loop's epoll or io_uring).
 */
public final class EventLoopIoThread implements IoThread {
  private final IoEventLoop loop;

  public EventLoopIoThread(IoEventLoop loop) {
    this.loop = loop;
  }

  @Override
  public void execute(Runnable task) {
    loop.execute(task);
  }

  @Override
  public boolean inThread() {
    return loop.inEventLoop();
  }

  @Override
  public Reaping reap(IoQueue ring) throws IOException {
    return IoQueueLoopBinding.bind(loop, ring)::close;
  }
}
