package io.tidestore.it;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A bare object-protocol v1 client over a blocking socket (docs/protocol.md), so a test controls
 * which requests go out in one TCP write and sees the replies in the order the server sent them.
 */
final class ObjectWire implements AutoCloseable {
  static final int HELLO = 0x01;
  static final int WRITE = 0x10;
  static final int READ = 0x11;

  /** One reply frame. */
  record Reply(int op, int status, long id, byte[] body) {}

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  private ObjectWire(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects and says HELLO. */
  static ObjectWire connect(int port) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(30_000);
    ObjectWire wire = new ObjectWire(socket);
    ByteBuffer hello = ByteBuffer.allocate(24);
    frame(hello, HELLO, 0, 8);
    hello.putInt(0x54494445).putShort((short) 1).putShort((short) 1).flip();
    wire.send(hello);
    Reply r = wire.reply();
    if (r.op() != HELLO || r.status() != 0) {
      throw new IOException("HELLO refused: status " + r.status());
    }
    return wire;
  }

  private static void frame(ByteBuffer batch, int op, long id, int bodyLength) {
    batch.putInt(12 + bodyLength).put((byte) op).put((byte) 0).putShort((short) 0).putLong(id);
  }

  /** Encodes a READ into {@code batch}; nothing is sent until {@link #send}. */
  static void read(ByteBuffer batch, long id, String name, long offset, int length) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    frame(batch, READ, id, 2 + n.length + 12);
    batch.putShort((short) n.length).put(n).putLong(offset).putInt(length);
  }

  /** Sends {@code batch} (flipped) in one write. */
  void send(ByteBuffer batch) throws IOException {
    out.write(batch.array(), 0, batch.limit());
    out.flush();
  }

  Reply reply() throws IOException {
    int length = in.readInt();
    int op = in.readUnsignedByte();
    in.readUnsignedByte(); // flags
    int status = in.readUnsignedShort();
    long id = in.readLong();
    byte[] body = new byte[length - 12];
    in.readFully(body);
    return new Reply(op, status, id, body);
  }

  /** WRITE and wait until it is acknowledged (durable). */
  void write(String name, long offset, byte[] data) throws IOException {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    ByteBuffer batch = ByteBuffer.allocate(16 + 2 + n.length + 8 + data.length);
    frame(batch, WRITE, 1, 2 + n.length + 8 + data.length);
    batch.putShort((short) n.length).put(n).putLong(offset).put(data).flip();
    send(batch);
    Reply r = reply();
    if (r.status() != 0) {
      throw new IOException("write " + name + " failed: status " + r.status());
    }
  }

  /** READ and wait. */
  byte[] read(String name, long offset, int length) throws IOException {
    ByteBuffer batch = ByteBuffer.allocate(64 + name.length() * 4);
    read(batch, 2, name, offset, length);
    batch.flip();
    send(batch);
    Reply r = reply();
    if (r.status() != 0) {
      throw new IOException("read " + name + " failed: status " + r.status());
    }
    return r.body();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
