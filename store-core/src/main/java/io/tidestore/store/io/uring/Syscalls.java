package io.tidestore.store.io.uring;

import io.tidestore.store.nativeio.Libc;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The system calls io_uring needs, bound once through {@link Libc#downcall} with errno captured by
 * the linker. io_uring has no glibc wrappers, so they go through the variadic {@code syscall(2)}:
 * every argument is passed as a 64-bit {@code long} (what glibc's {@code syscall} reads with
 * va_arg; the kernel truncates the 32-bit ones). Each call takes the caller's call-state segment
 * (one per ring, owner thread only), so a call allocates nothing. Failures come back as {@code
 * -errno}, the kernel's convention, so hot paths need no exceptions.
 */
final class Syscalls {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /** mmap(2) constants from {@code <sys/mman.h>} (asm-generic/mman-common.h). */
  static final int PROT_READ = 1;

  static final int PROT_WRITE = 2;
  static final int MAP_SHARED = 1;
  static final int MAP_POPULATE = 0x8000;

  /** eventfd(2) flags from {@code <sys/eventfd.h>}. */
  static final int EFD_CLOEXEC = 02000000;

  static final int EFD_NONBLOCK = 04000;

  /** lseek(2) whence, from {@code <unistd.h>}. */
  static final int SEEK_END = 2;

  private final MethodHandle syscall;
  private final MethodHandle mmap;
  private final MethodHandle munmap;
  private final MethodHandle eventfd;
  private final MethodHandle lseek;

  Syscalls(Libc libc) {
    this.syscall =
        libc.downcall(
            "syscall",
            FunctionDescriptor.of(LONG, LONG, LONG, LONG, LONG, LONG, LONG, LONG),
            true,
            Linker.Option.firstVariadicArg(1));
    this.mmap =
        libc.downcall(
            "mmap",
            FunctionDescriptor.of(
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, LONG, INT, INT, INT, LONG),
            true);
    this.munmap =
        libc.downcall("munmap", FunctionDescriptor.of(INT, ValueLayout.ADDRESS, LONG), true);
    this.eventfd = libc.downcall("eventfd", FunctionDescriptor.of(INT, INT, INT), true);
    this.lseek = libc.downcall("lseek", FunctionDescriptor.of(LONG, INT, LONG, INT), true);
  }

  /** A raw system call with up to six arguments; returns the result or -errno. */
  long syscall(
      MemorySegment state, long number, long a1, long a2, long a3, long a4, long a5, long a6) {
    long rc;
    try {
      rc = (long) syscall.invokeExact(state, number, a1, a2, a3, a4, a5, a6);
    } catch (Throwable t) {
      throw new IllegalStateException("syscall downcall failed", t);
    }
    return rc == -1 ? -Libc.errno(state) : rc;
  }

  /** io_uring_setup(2): the ring fd or -errno. */
  int ioUringSetup(MemorySegment state, int entries, MemorySegment params) {
    return (int)
        syscall(state, IoUringAbi.SYS_IO_URING_SETUP, entries, params.address(), 0, 0, 0, 0);
  }

  /** io_uring_enter(2): SQEs consumed, or -errno. */
  int ioUringEnter(
      MemorySegment state,
      int ringFd,
      int toSubmit,
      int minComplete,
      int flags,
      long arg,
      long argSize) {
    return (int)
        syscall(
            state,
            IoUringAbi.SYS_IO_URING_ENTER,
            ringFd,
            toSubmit,
            minComplete,
            flags,
            arg,
            argSize);
  }

  /** io_uring_register(2): a non-negative result or -errno. */
  int ioUringRegister(MemorySegment state, int ringFd, int opcode, long arg, int nrArgs) {
    return (int)
        syscall(state, IoUringAbi.SYS_IO_URING_REGISTER, ringFd, opcode, arg, nrArgs, 0, 0);
  }

  /** mmap(2) of a ring region, shared with the kernel; returns its address or -errno. */
  long mmap(MemorySegment state, long length, int fd, long offset) {
    try {
      MemorySegment at =
          (MemorySegment)
              mmap.invokeExact(
                  state,
                  MemorySegment.NULL,
                  length,
                  PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_POPULATE,
                  fd,
                  offset);
      // MAP_FAILED is (void *) -1.
      return at.address() == -1L ? -Libc.errno(state) : at.address();
    } catch (Throwable t) {
      throw new IllegalStateException("mmap downcall failed", t);
    }
  }

  int munmap(MemorySegment state, long address, long length) {
    try {
      int rc = (int) munmap.invokeExact(state, MemorySegment.ofAddress(address), length);
      return rc == -1 ? -Libc.errno(state) : rc;
    } catch (Throwable t) {
      throw new IllegalStateException("munmap downcall failed", t);
    }
  }

  /** eventfd(2), non-blocking and close-on-exec: the fd or -errno. */
  int eventfd(MemorySegment state) {
    try {
      int rc = (int) eventfd.invokeExact(state, 0, EFD_CLOEXEC | EFD_NONBLOCK);
      return rc == -1 ? -Libc.errno(state) : rc;
    } catch (Throwable t) {
      throw new IllegalStateException("eventfd downcall failed", t);
    }
  }

  /** lseek(fd, 0, SEEK_END): the size of a file or of a block device, or -errno. */
  long size(MemorySegment state, int fd) {
    try {
      long rc = (long) lseek.invokeExact(state, fd, 0L, SEEK_END);
      return rc == -1 ? -Libc.errno(state) : rc;
    } catch (Throwable t) {
      throw new IllegalStateException("lseek downcall failed", t);
    }
  }
}
