package io.tidestore.osd.service;

import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/**
 * socket(2) + sendto(2) + close(2) of an AF_UNIX datagram socket through java.lang.foreign: the JDK
 * only has AF_UNIX stream channels. A socket per message: the daemon sends two in its life.
 */
final class NativeNotifySocket implements NotifySender {
  /** From {@code <sys/socket.h>} on Linux. */
  static final int AF_UNIX = 1;

  static final int SOCK_DGRAM = 2;
  static final int SOCK_CLOEXEC = 02000000;

  /** No SIGPIPE if the manager went away: an error return instead. */
  static final int MSG_NOSIGNAL = 0x4000;

  private final Libc libc;
  private final NotifyAddress address;
  private final MethodHandle socket;
  private final MethodHandle sendto;

  NativeNotifySocket(Libc libc, NotifyAddress address) {
    this.libc = libc;
    this.address = address;
    this.socket =
        libc.downcall(
            "socket",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT),
            true);
    this.sendto =
        libc.downcall(
            "sendto",
            FunctionDescriptor.of(
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT),
            true);
  }

  @Override
  public void send(String message) throws IOException {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = Libc.allocateCallState(arena);
      int fd = (int) socket.invokeExact(state, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        throw new NativeException("socket(AF_UNIX, SOCK_DGRAM)", Libc.errno(state));
      }
      try {
        MemorySegment sockaddr = arena.allocate(2L + NotifyAddress.SUN_PATH_BYTES, 2);
        sockaddr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX); // sa_family_t, host order
        MemorySegment.copy(
            address.sunPath(), 0, sockaddr, ValueLayout.JAVA_BYTE, 2, address.sunPath().length);
        MemorySegment payload = arena.allocate(Math.max(1, bytes.length));
        MemorySegment.copy(bytes, 0, payload, ValueLayout.JAVA_BYTE, 0, bytes.length);
        long sent =
            (long)
                sendto.invokeExact(
                    state,
                    fd,
                    payload,
                    (long) bytes.length,
                    MSG_NOSIGNAL,
                    sockaddr,
                    address.socklen());
        if (sent < 0) {
          throw new NativeException("sendto " + address, Libc.errno(state));
        }
        if (sent != bytes.length) {
          throw new IOException(
              "sendto " + address + ": " + sent + " of " + bytes.length + " bytes");
        }
      } finally {
        libc.close(fd);
      }
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("socket/sendto downcall failed", t);
    }
  }

  @Override
  public String target() {
    return address.toString();
  }
}
