package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.client.ObjectClient;
import io.tidestore.client.ShardAwareClient;
import io.tidestore.osd.cpu.CpuAllocator;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.ops.ObjectInfo;
import io.tidestore.osd.ops.ObjectNames;
import io.tidestore.osd.ops.ObjectOps;
import io.tidestore.osd.ops.ObjectOpsException;
import io.tidestore.osd.reactor.Reactors;
import io.tidestore.osd.reactor.Transport;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A real server on 127.0.0.1 with real reactors, driven by the client library and raw sockets. */
class ObjectProtocolSocketTest {
  private static final ServerLimits LIMITS =
      new ServerLimits(64, Duration.ofMillis(300), Duration.ofSeconds(5));

  private Reactors reactors;
  private ObjectProtocolServer server;

  @BeforeEach
  void start() throws Exception {
    reactors =
        Reactors.start(
            Transport.EPOLL,
            new int[] {CpuAllocator.UNPINNED, CpuAllocator.UNPINNED},
            Optional.empty());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    reactors.close();
  }

  private void serve(ObjectOps ops) throws Exception {
    server = ObjectProtocolServer.start(reactors, InetAddress.getLoopbackAddress(), 0, ops, LIMITS);
  }

  private ObjectClient client() throws Exception {
    return ObjectClient.connect(reactors.group(), Transport.EPOLL.socketChannel(), server.address())
        .get(10, TimeUnit.SECONDS);
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  @Test
  void pingShardMapAndNoStoreErrorEndToEnd() throws Exception {
    serve(null);
    try (ObjectClient client = client()) {
      assertEquals(2, client.reactorCount());
      assertArrayEquals(
          "hello".getBytes(StandardCharsets.US_ASCII),
          await(client.ping("hello".getBytes(StandardCharsets.US_ASCII))));
      ShardMap map = await(client.shardMap());
      assertEquals(server.shardMap(), map);
      assertEquals(2, map.reactors());
      assertEquals(0, map.shards());
      var e = assertThrows(ExecutionException.class, () -> await(client.stat("obj")));
      OpException op = assertInstanceOf(OpException.class, e.getCause());
      assertEquals(Status.EOPNOTSUPP, op.status());
      var unknown =
          assertThrows(ExecutionException.class, () -> await(client.sendRaw(0x6a, new byte[0])));
      assertEquals(Status.EOPNOTSUPP, ((OpException) unknown.getCause()).status());
      // Still usable after errors.
      assertArrayEquals(new byte[] {1}, await(client.ping(new byte[] {1})));
    }
  }

  @Test
  void thousandsOfPipelinedRequestsAllMatchTheirReplies() throws Exception {
    serve(null);
    try (ObjectClient client = client()) {
      List<CompletableFuture<byte[]>> futures = new ArrayList<>();
      for (int i = 0; i < 5000; i++) {
        futures.add(client.ping(Integer.toString(i).getBytes(StandardCharsets.US_ASCII)));
      }
      for (int i = 0; i < futures.size(); i++) {
        assertEquals(
            Integer.toString(i), new String(await(futures.get(i)), StandardCharsets.US_ASCII));
      }
    }
  }

  @Test
  void perReactorPortsLandOnTheirReactor() throws Exception {
    serve(null);
    ShardMap map = server.shardMap();
    for (int r = 0; r < map.reactors(); r++) {
      InetSocketAddress address =
          new InetSocketAddress(InetAddress.getLoopbackAddress(), map.reactorPort(r));
      try (ObjectClient client =
          await(ObjectClient.connect(reactors.group(), Transport.EPOLL.socketChannel(), address))) {
        assertEquals(r, client.reactor());
      }
    }
  }

  /** Answers STAT with the index of the reactor that served it, to check shard-aware routing. */
  private static final class WhereAmIOps implements ObjectOps {
    @Override
    public int[] shardOwners() {
      return new int[] {0, 1, 1, 0, 1, 0, 0, 1};
    }

    @Override
    public CompletionStage<ObjectInfo> stat(String name) {
      String thread = Thread.currentThread().getName();
      return CompletableFuture.completedFuture(
          new ObjectInfo(Long.parseLong(thread.substring("reactor-".length())), 0));
    }

    private static <T> CompletionStage<T> refuse() {
      return CompletableFuture.failedFuture(
          new ObjectOpsException(ObjectOpsException.Code.UNSUPPORTED, "stat only"));
    }

    @Override
    public CompletionStage<Void> write(String name, long offset, ByteBuf data) {
      data.release();
      return refuse();
    }

    @Override
    public CompletionStage<ByteBuf> read(String name, long offset, int length) {
      return refuse();
    }

    @Override
    public CompletionStage<Void> truncate(String name, long size) {
      return refuse();
    }

    @Override
    public CompletionStage<Void> remove(String name) {
      return refuse();
    }

    @Override
    public CompletionStage<NamePage> list(int shard, String after, int max) {
      return refuse();
    }

    @Override
    public CompletionStage<Void> setXattr(String name, String key, ByteBuf value) {
      value.release();
      return refuse();
    }

    @Override
    public CompletionStage<ByteBuf> getXattr(String name, String key) {
      return refuse();
    }

    @Override
    public CompletionStage<Void> removeXattr(String name, String key) {
      return refuse();
    }
  }

  @Test
  void shardAwareClientReachesTheOwningReactor() throws Exception {
    serve(new WhereAmIOps());
    try (ShardAwareClient client =
        await(
            ShardAwareClient.connect(
                reactors.group(), Transport.EPOLL.socketChannel(), server.address()))) {
      ShardMap map = client.shardMap();
      assertEquals(8, map.shards());
      int[] seen = new int[2];
      for (int i = 0; i < 64; i++) {
        String name = "rbd_data.1." + i;
        long served = await(client.stat(name)).size();
        assertEquals(map.ownerOf(ObjectNames.shardOf(name, 8)), served, name);
        seen[(int) served]++;
      }
      assertTrue(seen[0] > 0 && seen[1] > 0, "placement never used one of the reactors");
      var e =
          assertThrows(
              ExecutionException.class,
              () -> await(client.write("x", 0, Unpooled.wrappedBuffer(new byte[] {1}))));
      assertEquals(Status.EOPNOTSUPP, ((OpException) e.getCause()).status());
    }
  }

  private Socket rawHello() throws Exception {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort());
    socket.setSoTimeout(10_000);
    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
    out.writeInt(FrameDescriptor.MIN_LENGTH + 8);
    out.writeByte(Op.HELLO);
    out.writeByte(0);
    out.writeShort(0);
    out.writeLong(1);
    out.writeInt(FrameDescriptor.MAGIC);
    out.writeShort(1);
    out.writeShort(1);
    out.flush();
    DataInputStream in = new DataInputStream(socket.getInputStream());
    int length = in.readInt();
    in.readFully(new byte[length]);
    return socket;
  }

  private static void sendWriteHeader(DataOutputStream out, long id, int bodyLength)
      throws Exception {
    out.writeInt(FrameDescriptor.MIN_LENGTH + bodyLength);
    out.writeByte(Op.WRITE);
    out.writeByte(0);
    out.writeShort(0);
    out.writeLong(id);
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(5);
    }
  }

  /** Reads one reply frame and returns its request id and status. */
  private static long[] readReply(DataInputStream in) throws Exception {
    int length = in.readInt();
    in.readByte();
    in.readByte();
    int status = in.readUnsignedShort();
    long id = in.readLong();
    in.readFully(new byte[length - FrameDescriptor.MIN_LENGTH]);
    return new long[] {id, status};
  }

  @Test
  void largeFramesBeyondTheSharedBudgetWaitThenCompleteAndDisconnectsGiveItBack() throws Exception {
    int body = 1 << 20;
    long frame = FrameDescriptor.HEADER_LENGTH + body;
    io.tidestore.osd.net.InboundBudget budget = new io.tidestore.osd.net.InboundBudget(2 * frame);
    server =
        ObjectProtocolServer.start(
            reactors,
            InetAddress.getLoopbackAddress(),
            0,
            null,
            new ServerLimits(64, Duration.ofSeconds(20), Duration.ofSeconds(5)),
            io.tidestore.osd.metrics.OpLatencies.NONE,
            budget);
    byte[] half = new byte[body / 2];
    try (ObjectClient bystander = client();
        Socket a = rawHello();
        Socket b = rawHello();
        Socket c = rawHello()) {
      DataOutputStream outA = new DataOutputStream(a.getOutputStream());
      DataOutputStream outB = new DataOutputStream(b.getOutputStream());
      DataOutputStream outC = new DataOutputStream(c.getOutputStream());
      sendWriteHeader(outA, 11, body);
      outA.write(half);
      outA.flush();
      sendWriteHeader(outB, 12, body);
      outB.write(half);
      outB.flush();
      awaitTrue(() -> budget.reservedBytes() == 2 * frame, "a and b hold their reservations");
      sendWriteHeader(outC, 13, body);
      outC.write(half, 0, 1000);
      outC.flush();
      awaitTrue(() -> budget.waitingConnections() == 1, "c waits for the budget");
      // Others are still served while c waits.
      assertArrayEquals(new byte[] {7}, await(bystander.ping(new byte[] {7})));
      assertEquals(2 * frame, budget.reservedBytes());

      outA.write(half);
      outA.flush();
      long[] replyA = readReply(new DataInputStream(a.getInputStream()));
      assertEquals(11, replyA[0]);
      assertEquals(Status.EOPNOTSUPP, replyA[1]); // decoded whole; no store behind this server
      // a's reservation went back before its reply was sent; c takes it on its own loop.
      awaitTrue(() -> budget.reservedBytes() == 2 * frame, "c got its reservation");
      assertEquals(0, budget.waitingConnections());
      outC.write(half, 1000, half.length - 1000);
      outC.write(half);
      outC.flush();
      long[] replyC = readReply(new DataInputStream(c.getInputStream()));
      assertEquals(13, replyC[0]);
      assertEquals(Status.EOPNOTSUPP, replyC[1]);
      awaitTrue(() -> budget.reservedBytes() == frame, "only b's reservation is left");
      b.close(); // mid-frame
      awaitTrue(() -> budget.reservedBytes() == 0, "b's reservation is given back");
    }
  }

  private static void assertClosedByServer(InputStream in) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        if (in.read() < 0) {
          return;
        }
      } catch (SocketTimeoutException e) {
        // read timed out: keep waiting until the deadline
      } catch (java.net.SocketException e) {
        return; // reset
      }
    }
    throw new AssertionError("server did not close the connection");
  }

  @Test
  void hugeLengthPrefixGetsEmsgsizeCloseAndOthersKeepBeingServed() throws Exception {
    serve(null);
    try (ObjectClient bystander = client();
        Socket socket = rawHello()) {
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(0xffffffff);
      out.writeByte(Op.WRITE);
      out.writeByte(0);
      out.writeShort(0);
      out.writeLong(77);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      int length = in.readInt();
      assertEquals(Op.WRITE, in.readUnsignedByte());
      in.readUnsignedByte();
      assertEquals(Status.EMSGSIZE, in.readUnsignedShort());
      assertEquals(77, in.readLong());
      in.readFully(new byte[length - FrameDescriptor.MIN_LENGTH]);
      assertClosedByServer(in);
      assertArrayEquals(new byte[] {9}, await(bystander.ping(new byte[] {9})));
    }
  }

  @Test
  void slowLorisAndTruncatedFramesAreClosed() throws Exception {
    serve(null);
    try (Socket slow = rawHello()) {
      // Half of a PING header, then silence: closed after the partial-frame timeout (300 ms).
      slow.getOutputStream().write(new byte[] {0, 0, 0, 20, Op.PING, 0});
      slow.getOutputStream().flush();
      assertClosedByServer(slow.getInputStream());
    }
    try (Socket truncated = rawHello()) {
      truncated.getOutputStream().write(new byte[] {0, 0, 0, 20, Op.PING, 0, 0, 0, 0});
      truncated.shutdownOutput();
      assertClosedByServer(truncated.getInputStream());
    }
    try (ObjectClient client = client()) {
      assertArrayEquals(new byte[] {3}, await(client.ping(new byte[] {3})));
    }
  }

  @Test
  void garbageInsteadOfHelloIsRefused() throws Exception {
    serve(null);
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      DataInputStream in = new DataInputStream(socket.getInputStream());
      // "GET " as a length is 1195725856 > max: EMSGSIZE, then close.
      in.readInt();
      in.readUnsignedByte();
      in.readUnsignedByte();
      assertEquals(Status.EMSGSIZE, in.readUnsignedShort());
      assertClosedByServer(in);
    } catch (EOFException e) {
      throw new AssertionError("no error reply before the close", e);
    }
  }
}
