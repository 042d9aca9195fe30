package io.tidestore.osd.cpu;

import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.BitSet;

/**
 * sched_setaffinity(2)/sched_getaffinity(2) through java.lang.foreign. The mask is a {@code
 * cpu_set_t}-style bit array of {@link #MASK_BYTES} bytes: bit n of byte n/8 is CPU n (glibc's
 * CPU_SET on little-endian longs, which is the same bit order).
 */
final class NativeThreadPinner implements ThreadPinner {
  /** 8192 CPUs, Linux's CONFIG_NR_CPUS maximum; a multiple of sizeof(long) as the kernel needs. */
  static final int MASK_BYTES = (CpuList.MAX_CPU + 1) / 8;

  private final Libc libc;
  private final MethodHandle setaffinity;
  private final MethodHandle getaffinity;

  NativeThreadPinner(Libc libc) {
    this.libc = libc;
    FunctionDescriptor signature =
        FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
    this.setaffinity = libc.downcall("sched_setaffinity", signature, true);
    this.getaffinity = libc.downcall("sched_getaffinity", signature, true);
  }

  @Override
  public void pinCurrentThread(int cpu) throws IOException {
    if (cpu < 0 || cpu > CpuList.MAX_CPU) {
      throw new IllegalArgumentException("CPU " + cpu + " out of range");
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment mask = arena.allocate(MASK_BYTES, 8);
      mask.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
      MemorySegment state = Libc.allocateCallState(arena);
      int rc = (int) setaffinity.invokeExact(state, 0, (long) MASK_BYTES, mask);
      if (rc != 0) {
        throw new NativeException("sched_setaffinity cpu " + cpu, Libc.errno(state));
      }
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("sched_setaffinity downcall failed", t);
    }
  }

  @Override
  public BitSet currentThreadCpus() throws IOException {
    return affinity(0);
  }

  @Override
  public BitSet processCpus() throws IOException {
    // The thread group leader's tid is the pid; its mask is the process's unless we pinned main.
    return affinity(libc.getpid());
  }

  @Override
  public int currentThreadId() {
    return libc.gettid();
  }

  private BitSet affinity(int tid) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment mask = arena.allocate(MASK_BYTES, 8);
      MemorySegment state = Libc.allocateCallState(arena);
      int rc = (int) getaffinity.invokeExact(state, tid, (long) MASK_BYTES, mask);
      if (rc != 0) {
        throw new NativeException("sched_getaffinity tid " + tid, Libc.errno(state));
      }
      return BitSet.valueOf(mask.toArray(ValueLayout.JAVA_BYTE));
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("sched_getaffinity downcall failed", t);
    }
  }
}
