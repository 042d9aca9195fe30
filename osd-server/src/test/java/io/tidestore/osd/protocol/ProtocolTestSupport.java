package io.tidestore.osd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.ops.ObjectOpsException.Code;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Frame builders, a server context, and ObjectOps whose completions the test controls. */
final class ProtocolTestSupport {
  private ProtocolTestSupport() {}

  static ByteBuf frame(int op, long id, ByteBuf body) {
    ByteBuf frame = Unpooled.buffer();
    frame.writeInt(FrameDescriptor.MIN_LENGTH + body.readableBytes());
    frame.writeByte(op).writeByte(0).writeShort(0).writeLong(id);
    frame.writeBytes(body);
    body.release();
    return frame;
  }

  static ByteBuf hello(long id, int min, int max) {
    return frame(
        Op.HELLO,
        id,
        Unpooled.buffer().writeInt(FrameDescriptor.MAGIC).writeShort(min).writeShort(max));
  }

  static ByteBuf nameBody(String name) {
    ByteBuf body = Unpooled.buffer();
    Wire.writeString(body, name);
    return body;
  }

  /** A decoded reply: header fields and body bytes (the frame is released). */
  @SuppressWarnings("ArrayRecordComponent") // test value, compared field by field
  record Reply(int op, int status, long id, byte[] body) {
    String message() {
      ByteBuf buf = Unpooled.wrappedBuffer(body);
      return Wire.readString(buf, 0xffff, "message");
    }
  }

  /** Reads every complete reply frame in the outbound buffers (which may be split). */
  static Reply parse(ByteBuf all) {
    int length = all.readInt();
    int op = all.readUnsignedByte();
    all.readUnsignedByte();
    int status = all.readUnsignedShort();
    long id = all.readLong();
    byte[] body = new byte[length - FrameDescriptor.MIN_LENGTH];
    all.readBytes(body);
    return new Reply(op, status, id, body);
  }

  static final class Context implements ServerContext {
    final ObjectOps ops;
    final ShardMap map;

    Context(ObjectOps ops, ShardMap map) {
      this.ops = ops;
      this.map = map;
    }

    @Override
    public ShardMap shardMap() {
      return map;
    }

    @Override
    public ObjectOps ops() {
      return ops;
    }

    @Override
    public io.tidestore.osd.ops.ClusterOps clusterOps() {
      return null;
    }

    @Override
    public int reactorOf(EventLoop loop) {
      return 0;
    }

    @Override
    public int reactorCount() {
      return map.reactors();
    }

    @Override
    public io.tidestore.osd.security.ServerSecurity security() {
      return io.tidestore.osd.security.ServerSecurity.plaintext();
    }
  }

  /**
   * ObjectOps that answer STAT with futures the test completes (to drive ordering and in-flight
   * counts) and refuse every other op with the status a store reports for a missing object.
   */
  static final class ControlledOps implements ObjectOps {
    final Deque<CompletableFuture<ObjectInfo>> stats = new ArrayDeque<>();
    final Deque<String> statNames = new ArrayDeque<>();

    @Override
    public int[] shardOwners() {
      return new int[] {0, 0};
    }

    @Override
    public CompletionStage<ObjectInfo> stat(String name) {
      CompletableFuture<ObjectInfo> f = new CompletableFuture<>();
      stats.add(f);
      statNames.add(name);
      return f;
    }

    private static <T> CompletionStage<T> missing(String name) {
      return CompletableFuture.failedFuture(new ObjectOpsException(Code.NOT_FOUND, name));
    }

    @Override
    public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
      data.release();
      return missing(name);
    }

    @Override
    public CompletionStage<ByteBuf> read(String name, long offset, int length) {
      return missing(name);
    }

    @Override
    public CompletionStage<Void> truncate(String name, long size) {
      return missing(name);
    }

    @Override
    public CompletionStage<Void> remove(String name) {
      return missing(name);
    }

    @Override
    public CompletionStage<NamePage> list(int shard, String after, int max) {
      return CompletableFuture.completedFuture(new NamePage(java.util.List.of(), false));
    }

    @Override
    public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
      value.release();
      return missing(name);
    }

    @Override
    public CompletionStage<ByteBuf> getXattr(String name, String key) {
      return missing(name);
    }

    @Override
    public CompletionStage<Void> removeXattr(String name, String key) {
      return missing(name);
    }
  }
}
