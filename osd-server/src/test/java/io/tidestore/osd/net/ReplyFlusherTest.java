package io.tidestore.osd.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplyFlusherTest {
  private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
  private final ChannelHandlerContext ctx = channel.pipeline().firstContext();

  @AfterEach
  void releaseReplies() {
    channel.finishAndReleaseAll();
  }

  private static ByteBuf reply(int bytes) {
    return Unpooled.buffer(bytes).writeZero(bytes);
  }

  /** Replies that reached the socket, releasing them. */
  private int flushed() {
    int count = 0;
    for (Object out; (out = channel.outboundMessages().poll()) != null; ) {
      ((ByteBuf) out).release();
      count++;
    }
    return count;
  }

  @Test
  void repliesOfAReadBatchShareOneFlushAtItsEnd() {
    for (ReplyFlusher.Policy policy : ReplyFlusher.Policy.values()) {
      ReplyFlusher replies = new ReplyFlusher(ctx, policy, Integer.MAX_VALUE);
      replies.readStarted();
      replies.send(reply(16));
      replies.send(reply(16));
      assertEquals(0, flushed(), policy + ": flushed within the batch");
      replies.readComplete();
      assertEquals(2, flushed(), policy.name());
    }
  }

  @Test
  void aBatchFlushesEarlyOnceItsRepliesReachTheThreshold() {
    ReplyFlusher replies = new ReplyFlusher(ctx, ReplyFlusher.Policy.ONCE_PER_PASS, 100);
    replies.readStarted();
    replies.send(reply(60));
    assertEquals(0, flushed());
    replies.send(reply(60));
    assertEquals(2, flushed(), "120 bytes pending");
    replies.send(reply(60));
    assertEquals(0, flushed(), "the count starts again after a flush");
    replies.readComplete();
    assertEquals(1, flushed());
  }

  @Test
  void atOnceFlushesEachReplyCompletedOutsideABatch() {
    ReplyFlusher replies = new ReplyFlusher(ctx, ReplyFlusher.Policy.AT_ONCE, Integer.MAX_VALUE);
    replies.send(reply(16));
    assertEquals(1, flushed());
  }

  @Test
  void flushNowSendsWhatABatchHasPending() {
    ReplyFlusher replies =
        new ReplyFlusher(ctx, ReplyFlusher.Policy.ONCE_PER_PASS, Integer.MAX_VALUE);
    replies.readStarted();
    replies.send(reply(16));
    replies.flushNow();
    assertEquals(1, flushed());
    replies.readComplete();
    assertEquals(0, flushed());
  }
}
