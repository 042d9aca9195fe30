package io.tidestore.osd.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.store.nativeio.Libc;
import io.tidestore.store.nativeio.NativeException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class NotifiersTest {
  /** Loggers are weakly held; these keep the test's handlers attached. */
  private static final List<Logger> HELD = new ArrayList<>();

  @Test
  void withoutNotifySocketNothingIsSent() {
    assertSame(Notifiers.NONE, Notifiers.forSocket(null, Libc.get(), ""));
    assertSame(Notifiers.NONE, Notifiers.forSocket("", Libc.get(), ""));
  }

  @Test
  void withNativeAccessTheSocketIsUsed() {
    assertTrue(Libc.get().isPresent(), "the tests run with --enable-native-access");
    assertInstanceOf(SystemdNotifier.class, Notifiers.forSocket("@x", Libc.get(), ""));
  }

  @Test
  void withoutNativeAccessOrWithABadAddressTheFallbackLogsWhyOnce() {
    List<String> warnings = capture(UnavailableNotifier.class);
    ServiceNotifier n = Notifiers.forSocket("@x", Optional.empty(), "no native access");
    n.ready("serving");
    n.stopping();
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("READY=1") && warnings.get(0).contains("no native access"));

    warnings.clear();
    Notifiers.forSocket("relative", Libc.get(), "").ready("serving");
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("NOTIFY_SOCKET=relative"), warnings.get(0));
  }

  @Test
  void theMessagesAreSdNotifysAndAFailedSendIsLoggedNotThrown() {
    List<String> sent = new ArrayList<>();
    SystemdNotifier ok = new SystemdNotifier(sender(sent::add));
    ok.ready("tidestore osd ready: a\nb");
    ok.stopping();
    assertEquals(List.of("READY=1\nSTATUS=tidestore osd ready: a b", "STOPPING=1"), sent);

    List<String> warnings = capture(SystemdNotifier.class);
    new SystemdNotifier(
            sender(
                m -> {
                  throw new IOException("refused");
                }))
        .ready("x");
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("READY=1") && warnings.get(0).contains("refused"));
  }

  @Test
  void theNativeSocketReallySendsAndReportsTheKernelsRefusal() {
    // Nobody bound this abstract name: sendto(2) answers ECONNREFUSED, which only a datagram that
    // really went to that AF_UNIX address gets. Delivery itself: ServiceNotifyIT.
    NativeNotifySocket socket =
        new NativeNotifySocket(
            Libc.get().orElseThrow(),
            NotifyAddress.parse("@tidestore-nobody-" + System.nanoTime()));
    NativeException e = assertThrows(NativeException.class, () -> socket.send("READY=1"));
    assertEquals(111, e.errno(), e.getMessage()); // ECONNREFUSED
  }

  private interface Send {
    void send(String message) throws IOException;
  }

  private static NotifySender sender(Send send) {
    return new NotifySender() {
      @Override
      public void send(String message) throws IOException {
        send.send(message);
      }

      @Override
      public String target() {
        return "@test";
      }
    };
  }

  private static List<String> capture(Class<?> source) {
    List<String> messages = new ArrayList<>();
    Logger logger = Logger.getLogger(source.getName());
    HELD.add(logger);
    logger.addHandler(
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            messages.add(record.getMessage());
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        });
    return messages;
  }
}
