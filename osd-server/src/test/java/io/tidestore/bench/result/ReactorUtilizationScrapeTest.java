package io.tidestore.bench.result;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ReactorUtilizationScrapeTest {
  @Test
  void readsEachReactorsUtilizationAsPercentByThread() {
    String metrics =
        """
        # HELP tidestore_reactor_utilization Busy fraction of the reactor's last second
        # TYPE tidestore_reactor_utilization gauge
        tidestore_reactor_utilization{cpu="0",engine="reactor",reactor="0",thread="reactor-0"} 0.25
        tidestore_reactor_utilization{cpu="1",engine="reactor",reactor="1",thread="reactor-1"} 1.0
        tidestore_reactor_utilization_other{thread="reactor-2"} 0.5
        tidestore_reactor_busy_seconds_total{cpu="0",reactor="0",thread="reactor-0"} 12.0
        tidestore_reactor_utilization{cpu="2",reactor="2",thread="reactor-2"} garbage
        """;
    assertEquals(
        Map.of("reactor-0", 25.0, "reactor-1", 100.0), ReactorUtilizationScrape.parse(metrics));
  }

  @Test
  void noReactorsNoValues() {
    assertEquals(Map.of(), ReactorUtilizationScrape.parse("jvm_threads_live_threads 40\n"));
  }
}
