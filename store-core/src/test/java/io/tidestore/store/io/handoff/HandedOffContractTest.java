package io.tidestore.store.io.handoff;

import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoQueue;
import io.tidestore.store.io.IoQueueConfig;
import io.tidestore.store.io.IoQueueContractTest;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The {@link IoQueueContractTest} against an {@link IoThreadQueue}: the test thread owns the queue,
 * one I/O thread per test class owns the rings (one per test) and reaps them. A subclass picks the
 * ring's backend.
 */
abstract class HandedOffContractTest extends IoQueueContractTest {
  private static TestIoThread ioThread;

  HandedOffContractTest(IoBackend ringBackend, boolean registersBuffers) {
    super(ringBackend, registersBuffers);
  }

  @BeforeAll
  static void startIoThread() {
    ioThread = new TestIoThread("io-contract");
  }

  /** After every test's tear-down has closed its queue (and so its ring, on this thread). */
  @AfterAll
  static void stopIoThread() {
    ioThread.close();
  }

  /** The config of the ring behind the queue. */
  protected abstract IoQueueConfig ringConfig(IoQueueConfig config);

  @Override
  protected IoQueue newQueue(IoQueueConfig config) throws IOException {
    return IoThreadQueue.open(ioThread, ringConfig(config));
  }
}
