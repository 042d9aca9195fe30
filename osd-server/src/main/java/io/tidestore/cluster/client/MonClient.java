package io.tidestore.cluster.client;

import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.MapCodec;
import io.tidestore.cluster.map.MapCommand;
import io.tidestore.cluster.pghistory.PgActivation;
import io.tidestore.cluster.pghistory.PgActivations;
import io.tidestore.cluster.pgstats.PgSummary;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.wire.LinkSecurity;
import io.tidestore.cluster.wire.MonFrame;
import io.tidestore.cluster.wire.MonMessages;
import io.tidestore.cluster.wire.PgHistoryMessages;
import io.tidestore.cluster.wire.WireException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A client of the monitors. Requests go to one monitor and move to the next when it is down or has
 * no quorum, until a deadline; heartbeats go to every monitor (each records them, the leader acts
 * on them); a subscription is kept on one live monitor and moved when that one dies. Every message
 * carries the newest epoch this client has; every reply's epoch tells it when its map is old
 * ({@link #newerEpochKnown()}).
 */
public final class MonClient implements AutoCloseable {
  private static final int CONNECT_TIMEOUT_MILLIS = 1000;

  private final List<InetSocketAddress> monitors;
  private final LinkSecurity links;
  private final Duration timeout;
  private final MonLink[] open;
  private final AtomicReference<ClusterMap> map = new AtomicReference<>(ClusterMap.EMPTY);
  private final AtomicLong monitorEpoch = new AtomicLong();
  private volatile Consumer<ClusterMap> subscriber;
  private int preferred; // guarded by this

  /**
   * @param monitors the monitors' addresses ({@code --mon})
   * @param timeout how long one request may take over all monitors before it fails
   */
  public MonClient(List<InetSocketAddress> monitors, LinkSecurity links, Duration timeout) {
    if (monitors.isEmpty()) {
      throw new IllegalArgumentException("no monitor address");
    }
    this.monitors = List.copyOf(monitors);
    this.links = links;
    this.timeout = timeout;
    this.open = new MonLink[monitors.size()];
  }

  /** The newest map this client has received (epoch 0 before any). */
  public ClusterMap map() {
    return map.get();
  }

  /** Whether some monitor said it has a newer map than {@link #map()}. */
  public boolean newerEpochKnown() {
    return monitorEpoch.get() > map.get().epoch();
  }

  /** The current map, as the monitors' leader has it. */
  public ClusterMap fetchMap() throws IOException, InterruptedException {
    MonFrame reply = request(MonFrame.GET_MAP, MonMessages.epoch(map.get().epoch()));
    ClusterMap fetched = MapCodec.decode(reply.payload());
    offer(fetched);
    return fetched;
  }

  public MonMessages.BootReply boot(MonMessages.Boot boot)
      throws IOException, InterruptedException {
    return MonMessages.bootReply(request(MonFrame.BOOT, MonMessages.boot(boot)).payload());
  }

  /** Creates a pool (a null failure domain is the cluster's default); returns the new epoch. */
  public long poolCreate(MapCommand.PoolCreate create) throws IOException, InterruptedException {
    return request(MonFrame.POOL_CREATE, MonMessages.command(create)).epoch();
  }

  public long poolRemove(String name) throws IOException, InterruptedException {
    return request(MonFrame.POOL_REMOVE, MonMessages.command(new MapCommand.PoolRemove(name)))
        .epoch();
  }

  /**
   * Records that the primaries of {@code batch} are about to activate those PGs with those write
   * sets (docs/cluster.md "PG history"); returns the PGs whose record was refused (a later
   * activation is recorded: that primary's interval is over).
   */
  public List<PgId> pgActivated(SortedMap<PgId, PgActivation> batch)
      throws IOException, InterruptedException {
    return PgHistoryMessages.pgIds(
        request(MonFrame.PG_ACTIVATED, PgActivations.encodeCommand(batch)).payload());
  }

  /** The newest recorded activation of each of {@code pgs}, null where none is. */
  public List<PgActivation> pgHistory(List<PgId> pgs) throws IOException, InterruptedException {
    return PgHistoryMessages.activations(
        request(MonFrame.PG_HISTORY, PgHistoryMessages.pgIds(pgs)).payload());
  }

  /**
   * The state of every PG, as a monitor resolved it from the OSDs' reports (every monitor receives
   * them; one that started a moment ago knows them after the next heartbeat).
   */
  public PgSummary pgStats() throws IOException, InterruptedException {
    return MonMessages.pgSummary(request(MonFrame.PG_STATS, new byte[0]).payload());
  }

  /**
   * Asks for the PG states until {@code until} holds or {@code timeout} passed; the last answer. PG
   * states are not pushed (they change with every OSD's report), so this asks twice a second.
   */
  public PgSummary awaitPgs(java.util.function.Predicate<PgSummary> until, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    PgSummary pgs = pgStats();
    while (!until.test(pgs) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(500);
      pgs = pgStats();
    }
    return pgs;
  }

  /** One monitor's own status (role, leader, term); IOException when it does not answer. */
  public MonMessages.MonStatus monStatus(InetSocketAddress monitor)
      throws IOException, InterruptedException {
    for (int i = 0; i < monitors.size(); i++) {
      if (monitors.get(i).equals(monitor)) {
        return MonMessages.monStatus(
            await(
                    link(i).send(MonFrame.MON_STATUS, epoch(), new byte[0]),
                    null,
                    Duration.ofSeconds(3))
                .payload());
      }
    }
    try (MonClient one = new MonClient(List.of(monitor), links, Duration.ofSeconds(3))) {
      return one.monStatus(monitor);
    }
  }

  /**
   * Sends a heartbeat to every monitor and waits up to {@code wait} for their answers.
   *
   * @return how many monitors did not acknowledge it (the OSD's heartbeat misses)
   */
  public int heartbeat(MonMessages.Heartbeat heartbeat, Duration wait) throws InterruptedException {
    byte[] payload = MonMessages.heartbeat(heartbeat);
    List<CompletableFuture<MonFrame>> sent = new ArrayList<>();
    int misses = 0;
    for (int i = 0; i < monitors.size(); i++) {
      try {
        sent.add(link(i).send(MonFrame.HEARTBEAT, epoch(), payload));
      } catch (IOException e) {
        misses++;
      }
    }
    long deadline = System.nanoTime() + wait.toNanos();
    for (CompletableFuture<MonFrame> reply : sent) {
      try {
        reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        misses++;
      }
    }
    return misses;
  }

  /**
   * Pushes every new map to {@code listener} from now on (on the connection's thread, in epoch
   * order, never an older map after a newer one). Call {@link #keepSubscribed()} periodically: it
   * moves the subscription when its monitor died.
   */
  public void subscribe(Consumer<ClusterMap> listener) throws InterruptedException {
    subscriber = listener;
    keepSubscribed();
  }

  /** Subscribes again on another monitor when the subscribed one is gone; false if none took it. */
  public boolean keepSubscribed() throws InterruptedException {
    if (subscriber == null) {
      return false;
    }
    synchronized (this) {
      for (MonLink link : open) {
        if (link != null && !link.broken() && link.subscribed) {
          return true;
        }
      }
    }
    for (int tried = 0; tried < monitors.size(); tried++) {
      int i = next(tried);
      try {
        MonLink link = link(i);
        await(
            link.send(MonFrame.SUBSCRIBE, epoch(), MonMessages.epoch(epoch())),
            link,
            Duration.ofSeconds(3));
        link.subscribed = true;
        return true;
      } catch (IOException e) {
        // Try the next monitor.
      }
    }
    return false;
  }

  private long epoch() {
    return map.get().epoch();
  }

  /** Keeps {@code candidate} if it is newer than the map held, and tells the subscriber. */
  private void offer(ClusterMap candidate) {
    synchronized (map) {
      if (candidate.epoch() <= map.get().epoch()) {
        return;
      }
      map.set(candidate);
      Consumer<ClusterMap> listener = subscriber;
      if (listener != null) {
        listener.accept(candidate);
      }
    }
  }

  private MonFrame request(int type, byte[] payload) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    IOException last = null;
    for (int attempt = 0; System.nanoTime() < deadline; attempt++) {
      int i = next(attempt);
      try {
        MonLink link = link(i);
        MonFrame reply =
            await(
                link.send(type, epoch(), payload),
                link,
                Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        synchronized (this) {
          preferred = i;
        }
        return reply;
      } catch (WireException e) {
        if (!e.tryAnotherMonitor()) {
          throw e;
        }
        last = e;
      } catch (IOException e) {
        last = e;
      }
      if ((attempt + 1) % monitors.size() == 0) {
        // Every monitor failed once: they may be electing a leader. Wait a little, then retry.
        TimeUnit.MILLISECONDS.sleep(200);
      }
    }
    throw new IOException(
        "no monitor of "
            + monitors
            + " answered within "
            + timeout.toSeconds()
            + " s"
            + (last == null ? "" : ": " + last.getMessage()),
        last);
  }

  private synchronized int next(int attempt) {
    return (preferred + attempt) % monitors.size();
  }

  private MonFrame await(CompletableFuture<MonFrame> reply, MonLink link, Duration wait)
      throws IOException, InterruptedException {
    try {
      return reply.get(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    } catch (TimeoutException e) {
      if (link != null) {
        link.forget(reply);
      }
      throw new WireException(WireException.NO_QUORUM, "monitor did not answer in time");
    }
  }

  /** The open connection to monitor {@code i}, opened anew when it broke. */
  private MonLink link(int i) throws IOException {
    synchronized (this) {
      if (open[i] != null && !open[i].broken()) {
        return open[i];
      }
    }
    MonLink link =
        MonLink.open(
            monitors.get(i), links, CONNECT_TIMEOUT_MILLIS, this::offer, this::observeEpoch);
    synchronized (this) {
      if (open[i] != null && !open[i].broken()) {
        link.close();
        return open[i];
      }
      open[i] = link;
      return link;
    }
  }

  private void observeEpoch(long epoch) {
    monitorEpoch.accumulateAndGet(epoch, Math::max);
  }

  @Override
  public synchronized void close() {
    for (MonLink link : open) {
      if (link != null) {
        link.close();
      }
    }
  }
}
