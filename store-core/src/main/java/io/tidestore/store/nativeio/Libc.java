package io.tidestore.store.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * The few libc calls Tidestore makes through java.lang.foreign, with errno captured by the linker
 * ({@link Linker.Option#captureCallState}) rather than read afterwards, when the JVM may already
 * have clobbered it.
 *
 * <p>Use {@link #get()}: it is empty when native access is denied (no {@code
 * --enable-native-access}) or the platform has no libc, and callers then fall back to pure JDK
 * code. Calls report failure as {@link NativeException} carrying errno.
 */
public final class Libc {
  /** From {@code <fcntl.h>} on Linux x86-64/aarch64. */
  public static final int O_RDONLY = 0;

  public static final int O_RDWR = 2;
  public static final int O_CREAT = 0100;
  public static final int O_EXCL = 0200;
  public static final int O_CLOEXEC = 02000000;
  public static final int O_DIRECT = 040000;

  /** From {@code <sys/file.h>}. */
  public static final int LOCK_EX = 2;

  public static final int LOCK_NB = 4;
  public static final int LOCK_UN = 8;

  /** errno values used by callers, from {@code <asm-generic/errno-base.h>}. */
  public static final int EPERM = 1;

  public static final int ENOENT = 2;
  public static final int EINTR = 4;
  public static final int EBADF = 9;
  public static final int EAGAIN = 11;
  public static final int ENOMEM = 12;
  public static final int EINVAL = 22;
  public static final int ENOSPC = 28;
  public static final int ENOSYS = 38;
  public static final int EWOULDBLOCK = EAGAIN;

  private static final Linker LINKER = Linker.nativeLinker();
  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO =
      CALL_STATE.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
  private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

  private static final Optional<Libc> INSTANCE = load();

  private final SymbolLookup lookup;
  private final MethodHandle open;
  private final MethodHandle close;
  private final MethodHandle flock;
  private final MethodHandle ioctl;
  private final MethodHandle getpid;
  private final MethodHandle gettid;
  private final MethodHandle strerror;

  private Libc(SymbolLookup lookup) {
    this.lookup = lookup;
    this.open =
        downcall(
            "open",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT),
            true,
            Linker.Option.firstVariadicArg(2));
    this.close =
        downcall("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), true);
    this.flock =
        downcall(
            "flock",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            true);
    this.ioctl =
        downcall(
            "ioctl",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS),
            true,
            Linker.Option.firstVariadicArg(2));
    this.getpid = downcall("getpid", FunctionDescriptor.of(ValueLayout.JAVA_INT), false);
    this.gettid = downcall("gettid", FunctionDescriptor.of(ValueLayout.JAVA_INT), false);
    this.strerror =
        downcall(
            "strerror", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT), false);
  }

  /** The libc bindings, or empty when native access is unavailable (the caller falls back). */
  public static Optional<Libc> get() {
    return INSTANCE;
  }

  /** Why {@link #get()} is empty, for the log line that names the fallback; empty when loaded. */
  public static Optional<String> unavailableReason() {
    return INSTANCE.isPresent() ? Optional.empty() : Optional.of(LoadFailure.reason);
  }

  private static Optional<Libc> load() {
    try {
      if (!Libc.class.getModule().isNativeAccessEnabled()) {
        LoadFailure.reason =
            "native access is not enabled; run with --enable-native-access=ALL-UNNAMED"
                + " (bin/tidestore does)";
        return Optional.empty();
      }
      return Optional.of(new Libc(LINKER.defaultLookup()));
    } catch (RuntimeException | LinkageError e) {
      LoadFailure.reason = "libc is not reachable through java.lang.foreign: " + e;
      return Optional.empty();
    }
  }

  /** Holder so the reason is written once during class init and read after. */
  private static final class LoadFailure {
    static String reason = "";
  }

  /**
   * Binds a libc function. Functions that can fail take a leading segment into which the linker
   * stores errno right after the call.
   */
  public MethodHandle downcall(
      String name, FunctionDescriptor descriptor, boolean captureErrno, Linker.Option... options) {
    MemorySegment symbol =
        lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    Linker.Option[] all = options;
    if (captureErrno) {
      all = java.util.Arrays.copyOf(options, options.length + 1);
      all[options.length] = CAPTURE_ERRNO;
    }
    return LINKER.downcallHandle(symbol, descriptor, all);
  }

  /** A segment the linker writes errno into; allocate one per thread or per call site. */
  public static MemorySegment allocateCallState(Arena arena) {
    return arena.allocate(CALL_STATE);
  }

  /** Reads the errno the linker captured into {@code callState}. */
  public static int errno(MemorySegment callState) {
    return (int) ERRNO.get(callState, 0L);
  }

  /** {@code open(2)}; returns the fd or throws with errno. */
  public int open(String path, int flags, int mode) throws NativeException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = allocateCallState(arena);
      int fd = (int) open.invokeExact(state, arena.allocateFrom(path), flags, mode);
      if (fd < 0) {
        throw new NativeException("open " + path, errno(state));
      }
      return fd;
    } catch (NativeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("open downcall failed", t);
    }
  }

  /** {@code close(2)}; errors are reported, the fd is gone either way (Linux semantics). */
  public void close(int fd) throws NativeException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = allocateCallState(arena);
      int rc = (int) close.invokeExact(state, fd);
      if (rc < 0) {
        throw new NativeException("close fd " + fd, errno(state));
      }
    } catch (NativeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("close downcall failed", t);
    }
  }

  /**
   * {@code flock(2)}; returns false when {@code LOCK_NB} was given and another open file
   * description holds a conflicting lock, throws on any other failure.
   */
  public boolean flock(int fd, int operation) throws NativeException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = allocateCallState(arena);
      while (true) {
        int rc = (int) flock.invokeExact(state, fd, operation);
        if (rc == 0) {
          return true;
        }
        int errno = errno(state);
        if (errno == EINTR) {
          continue;
        }
        if (errno == EWOULDBLOCK) {
          return false;
        }
        throw new NativeException("flock fd " + fd, errno);
      }
    } catch (NativeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("flock downcall failed", t);
    }
  }

  /** BLKDISCARD, _IO(0x12, 119), from {@code <linux/fs.h>}. */
  public static final long BLKDISCARD = 0x1277;

  /**
   * {@code ioctl(fd, BLKDISCARD, {start, length})}: tells a block device the range holds nothing
   * (TRIM). Returns 0, or the errno when it fails (EOPNOTSUPP on devices that cannot discard).
   */
  public int discard(int fd, long start, long length) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = allocateCallState(arena);
      MemorySegment range = arena.allocate(ValueLayout.JAVA_LONG, 2);
      range.setAtIndex(ValueLayout.JAVA_LONG, 0, start);
      range.setAtIndex(ValueLayout.JAVA_LONG, 1, length);
      int rc = (int) ioctl.invokeExact(state, fd, BLKDISCARD, range);
      return rc == 0 ? 0 : errno(state);
    } catch (Throwable t) {
      throw new IllegalStateException("ioctl downcall failed", t);
    }
  }

  /** The calling thread's kernel thread id, as /proc/PID/task/TID names it. */
  public int gettid() {
    try {
      return (int) gettid.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException("gettid downcall failed", t);
    }
  }

  /** The process id as the kernel knows it. */
  public int getpid() {
    try {
      return (int) getpid.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException("getpid downcall failed", t);
    }
  }

  /** The C library's text for an errno value. */
  public String strerror(int errno) {
    try {
      MemorySegment text = (MemorySegment) strerror.invokeExact(errno);
      return text.reinterpret(Integer.MAX_VALUE).getString(0);
    } catch (Throwable t) {
      return "errno " + errno;
    }
  }
}
