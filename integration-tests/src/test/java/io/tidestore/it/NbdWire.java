package io.tidestore.it;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A bare NBD client over a blocking socket (fixed newstyle, NBD_OPT_EXPORT_NAME, simple replies),
 * so a test controls exactly which requests go out in one TCP write and sees the replies in the
 * order the server sent them; or only as far as an acknowledged NBD_OPT_STARTTLS, for a test that
 * then sends its own bytes in place of TLS. Spec: doc/proto.md of the NBD project.
 */
final class NbdWire implements AutoCloseable {
  static final int READ = 0;
  static final int WRITE = 1;
  static final int TRIM = 4;
  static final int EIO = 5;
  static final int ENOSPC = 28;
  private static final long NBDMAGIC = 0x4e42444d41474943L;
  private static final long IHAVEOPT = 0x49484156454f5054L;
  private static final long OPTION_REPLY_MAGIC = 0x3e889045565a9L;
  private static final int OPT_STARTTLS = 5;
  private static final int REP_ACK = 1;
  private static final int REQUEST_MAGIC = 0x25609513;
  private static final int SIMPLE_REPLY_MAGIC = 0x67446698;

  /** One simple reply; {@code data} is the READ payload (empty otherwise). */
  record Reply(long cookie, int error, byte[] data) {}

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  private NbdWire(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects and negotiates {@code export}. */
  static NbdWire connect(int port, String export) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(30_000);
    DataInputStream in = new DataInputStream(socket.getInputStream());
    if (in.readLong() != NBDMAGIC || in.readLong() != IHAVEOPT) {
      throw new IOException("not an NBD newstyle server");
    }
    in.readUnsignedShort(); // handshake flags
    byte[] option = exportName(export);
    ByteBuffer hello = ByteBuffer.allocate(4 + option.length);
    hello.putInt(3).put(option); // FIXED_NEWSTYLE | NO_ZEROES
    socket.getOutputStream().write(hello.array());
    in.readLong(); // export size
    in.readUnsignedShort(); // transmission flags
    return new NbdWire(socket);
  }

  /**
   * Connects, asks for TLS with NBD_OPT_STARTTLS and reads its reply, which must be an ACK; the
   * socket's next bytes are the client's TLS handshake (a test sends what it likes instead).
   */
  static Socket startTls(int port) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    try {
      socket.setSoTimeout(30_000);
      DataInputStream in = new DataInputStream(socket.getInputStream());
      if (in.readLong() != NBDMAGIC || in.readLong() != IHAVEOPT) {
        throw new IOException("not an NBD newstyle server");
      }
      in.readUnsignedShort(); // handshake flags
      ByteBuffer ask = ByteBuffer.allocate(4 + 16);
      ask.putInt(3); // FIXED_NEWSTYLE | NO_ZEROES
      ask.putLong(IHAVEOPT).putInt(OPT_STARTTLS).putInt(0);
      socket.getOutputStream().write(ask.array());
      long magic = in.readLong();
      int option = in.readInt();
      int type = in.readInt();
      byte[] data = new byte[in.readInt()];
      in.readFully(data);
      if (magic != OPTION_REPLY_MAGIC || option != OPT_STARTTLS || type != REP_ACK) {
        throw new IOException("STARTTLS not acknowledged: reply type " + type);
      }
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** An NBD_OPT_EXPORT_NAME option naming {@code export}, as {@link #connect} sends it. */
  static byte[] exportName(String export) {
    byte[] name = export.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(16 + name.length)
        .putLong(IHAVEOPT)
        .putInt(1)
        .putInt(name.length)
        .put(name)
        .array();
  }

  /** Encodes one request into {@code batch}; nothing is sent until {@link #send}. */
  static void request(ByteBuffer batch, int type, long cookie, long offset, int length) {
    batch.putInt(REQUEST_MAGIC).putShort((short) 0).putShort((short) type);
    batch.putLong(cookie).putLong(offset).putInt(length);
  }

  /** Sends {@code batch} (flipped) in one write. */
  void send(ByteBuffer batch) throws IOException {
    out.write(batch.array(), 0, batch.limit());
    out.flush();
  }

  /** Reads the next reply; {@code readLength} is the payload a READ reply carries. */
  Reply reply(java.util.function.LongToIntFunction readLength) throws IOException {
    if (in.readInt() != SIMPLE_REPLY_MAGIC) {
      throw new IOException("bad reply magic");
    }
    int error = in.readInt();
    long cookie = in.readLong();
    byte[] data = new byte[error == 0 ? readLength.applyAsInt(cookie) : 0];
    in.readFully(data);
    return new Reply(cookie, error, data);
  }

  /** WRITE {@code data} at {@code offset} and wait for its reply. */
  void write(long offset, byte[] data) throws IOException {
    ByteBuffer batch = ByteBuffer.allocate(28 + data.length);
    request(batch, WRITE, 1, offset, data.length);
    batch.put(data).flip();
    send(batch);
    Reply r = reply(cookie -> 0);
    if (r.error() != 0) {
      throw new IOException("NBD write failed: errno " + r.error());
    }
  }

  /**
   * Sends one command (WRITE carries {@code payload}) and waits for its reply: the NBD error (0 on
   * success) and, for a successful READ, {@code length} bytes.
   */
  Reply command(int type, long offset, int length, byte[] payload) throws IOException {
    ByteBuffer batch = ByteBuffer.allocate(28 + (payload == null ? 0 : payload.length));
    request(batch, type, 3, offset, length);
    if (payload != null) {
      batch.put(payload);
    }
    batch.flip();
    send(batch);
    return reply(cookie -> type == READ ? length : 0);
  }

  /** READ and wait. */
  byte[] read(long offset, int length) throws IOException {
    ByteBuffer batch = ByteBuffer.allocate(28);
    request(batch, READ, 2, offset, length);
    batch.flip();
    send(batch);
    Reply r = reply(cookie -> length);
    if (r.error() != 0) {
      throw new IOException("NBD read failed: errno " + r.error());
    }
    return r.data();
  }

  @Override
  public void close() throws IOException {
    ByteBuffer disc = ByteBuffer.allocate(28);
    request(disc, 2, 0, 0, 0); // NBD_CMD_DISC
    disc.flip();
    try {
      send(disc);
    } finally {
      socket.close();
    }
  }
}
