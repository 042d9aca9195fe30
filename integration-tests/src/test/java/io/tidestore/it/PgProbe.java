package io.tidestore.it;

import io.netty.buffer.ByteBuf;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.tidestore.client.ClusterClient;
import io.tidestore.client.ClusterLink;
import io.tidestore.cluster.client.MonAddresses;
import io.tidestore.cluster.map.ClusterMap;
import io.tidestore.cluster.map.PoolInfo;
import io.tidestore.cluster.placement.PgId;
import io.tidestore.cluster.placement.PgMapping;
import io.tidestore.cluster.placement.Placement;
import io.tidestore.osd.ops.LogCopy;
import io.tidestore.osd.ops.NamePage;
import io.tidestore.osd.protocol.V2;
import io.tidestore.osd.protocol.V2Recovery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Looks at one OSD's own copy of a PG, as the primaries' recovery does (protocol v2's GET_LOG and
 * LIST_PG sent straight to that OSD, whatever its role): which objects it holds and its PG log. The
 * tests use it to see where data is, and whether every member of a PG has the same log.
 */
final class PgProbe implements AutoCloseable {
  private static final int PAGE = 256;

  private final MultiThreadIoEventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Map<String, ClusterLink> links = new HashMap<>();

  /** The names of the objects of {@code pg} that the OSD at {@code address} holds. */
  List<String> names(String address, PgId pg) throws Exception {
    List<String> names = new ArrayList<>();
    String after = "";
    while (true) {
      String cursor = after;
      NamePage page =
          request(
              address,
              V2Recovery.LIST_PG,
              pg,
              out -> V2Recovery.writeListPg(out, cursor, PAGE),
              V2Recovery::readNamePage);
      names.addAll(page.names());
      if (!page.more() || page.names().isEmpty()) {
        return names;
      }
      after = page.names().get(page.names().size() - 1);
    }
  }

  /** The PG log of {@code pg} on the OSD at {@code address}. */
  LogCopy log(String address, PgId pg) throws Exception {
    return request(address, V2Recovery.GET_LOG, pg, out -> {}, V2Recovery::readLog);
  }

  /**
   * The PGs of {@code pool} in {@code map} whose acting members do not all hold the primary's log
   * (head and entries), each with what differs; empty when every PG is clean by its logs.
   */
  List<String> disagreements(ClusterMap map, String pool) throws Exception {
    PoolInfo info = map.pool(pool).orElseThrow();
    Placement placement = Placement.of(map);
    List<String> differ = new ArrayList<>();
    for (int seed = 0; seed < info.pgNum(); seed++) {
      PgMapping m = placement.pg(new PgId(info.id(), seed));
      if (m.actingPrimary() < 0) {
        differ.add(m.pg() + " has no primary");
        continue;
      }
      LogCopy primary = log(map.osds().get(m.actingPrimary()).address(), m.pg());
      for (int osd : m.acting()) {
        LogCopy member = log(map.osds().get(osd).address(), m.pg());
        if (!member.equals(primary)) {
          differ.add(
              m.pg()
                  + " osd."
                  + osd
                  + " at "
                  + member.head()
                  + " vs primary osd."
                  + m.actingPrimary()
                  + " at "
                  + primary.head());
        }
      }
    }
    return differ;
  }

  /** The PGs of {@code pool} that have {@code osd} acting. */
  static List<PgMapping> pgsOf(ClusterMap map, String pool, int osd) {
    PoolInfo info = map.pool(pool).orElseThrow();
    Placement placement = Placement.of(map);
    List<PgMapping> pgs = new ArrayList<>();
    for (int seed = 0; seed < info.pgNum(); seed++) {
      PgMapping m = placement.pg(new PgId(info.id(), seed));
      if (m.acting().contains(osd)) {
        pgs.add(m);
      }
    }
    return pgs;
  }

  /**
   * The PGs of {@code pool} having {@code osd} acting where it does not hold the same objects as
   * the PG's primary, each with what it lacks or has extra; empty when it holds all.
   */
  List<String> differentObjects(ClusterMap map, String pool, int osd) throws Exception {
    List<String> differ = new ArrayList<>();
    for (PgMapping m : pgsOf(map, pool, osd)) {
      List<String> primary = names(map.osds().get(m.actingPrimary()).address(), m.pg());
      List<String> member = names(map.osds().get(osd).address(), m.pg());
      if (!member.equals(primary)) {
        differ.add(m.pg() + ": osd." + osd + " holds " + member + ", the primary " + primary);
      }
    }
    return differ;
  }

  /**
   * Waits until {@link #disagreements} of {@code pool} is empty under the client's newest map
   * (asking each PG's members loads it there, and a primary that loads a PG peers it); fails with
   * the last disagreements at the deadline.
   */
  void awaitAgreement(ClusterClient client, String pool, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> differ = disagreements(client.map(), pool);
    while (!differ.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("PG logs still differ after " + timeout + ": " + differ);
      }
      TimeUnit.MILLISECONDS.sleep(ClusterProcesses.POLL.toMillis()); // recovery's CPU, not ours
      differ = disagreements(client.map(), pool);
    }
  }

  private <T> T request(
      String address, int op, PgId pg, ClusterLink.Body fields, Function<ByteBuf, T> reader)
      throws Exception {
    ClusterLink link = link(address);
    ByteBuf body =
        link.request(
                op,
                V2.PREFIX + 64,
                out -> {
                  V2Recovery.writeHeader(out, 0, pg);
                  fields.write(out);
                },
                null)
            .get(30, TimeUnit.SECONDS);
    try {
      return reader.apply(body);
    } finally {
      body.release();
    }
  }

  private ClusterLink link(String address) throws Exception {
    ClusterLink link = links.get(address);
    if (link == null || !link.isActive()) {
      link =
          ClusterLink.connect(
                  group, NioSocketChannel.class, MonAddresses.parseOne(address), null, e -> {})
              .get(30, TimeUnit.SECONDS);
      links.put(address, link);
    }
    return link;
  }

  @Override
  public void close() {
    links.values().forEach(ClusterLink::close);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
