package io.tidestore.osd.classic;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The classic engine's {@code finisher} thread, as Ceph's {@code Finisher}: runs the
 * acknowledgements of the ops whose I/O the commit thread completed (they complete the op's result,
 * which hands the reply to the connection's messenger thread), so that neither the commit thread
 * nor an I/O thread spends its time on them. Tasks run one at a time, in the order they were given.
 * No allocation per task: two deques swap between the producers and the thread.
 */
public final class Finisher implements Executor, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Finisher.class.getName());

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition nonEmpty = lock.newCondition();
  private ArrayDeque<Runnable> queued = new ArrayDeque<>(); // guarded by lock
  private ArrayDeque<Runnable> running = new ArrayDeque<>(); // the thread's own
  private boolean waiting; // guarded by lock
  private boolean stopped; // guarded by lock
  private final Thread thread;

  private Finisher() {
    this.thread = Thread.ofPlatform().name("finisher").unstarted(this::run);
  }

  /** Starts the thread named {@code finisher}. */
  public static Finisher start() {
    Finisher finisher = new Finisher();
    finisher.thread.start();
    return finisher;
  }

  /** The thread's name, for the startup log. */
  public String describe() {
    return thread.getName();
  }

  /** Queues {@code task}; once the finisher stopped, runs it on the calling thread. */
  @Override
  public void execute(Runnable task) {
    lock.lock();
    try {
      if (!stopped) {
        queued.addLast(task);
        if (waiting) {
          nonEmpty.signal();
        }
        return;
      }
    } finally {
      lock.unlock();
    }
    task.run(); // nobody else will: the reply still reaches its connection or fails there
  }

  private void run() {
    while (true) {
      lock.lock();
      try {
        while (queued.isEmpty()) {
          if (stopped) {
            return;
          }
          waiting = true;
          try {
            nonEmpty.awaitUninterruptibly();
          } finally {
            waiting = false;
          }
        }
        ArrayDeque<Runnable> taken = queued;
        queued = running;
        running = taken;
      } finally {
        lock.unlock();
      }
      for (Runnable task = running.pollFirst(); task != null; task = running.pollFirst()) {
        try {
          task.run();
        } catch (RuntimeException | Error e) {
          LOG.log(Level.SEVERE, "finisher task failed", e);
        }
      }
    }
  }

  /** Runs what is queued, then stops the thread; later tasks run on their caller. */
  @Override
  public void close() {
    lock.lock();
    try {
      stopped = true;
      nonEmpty.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
