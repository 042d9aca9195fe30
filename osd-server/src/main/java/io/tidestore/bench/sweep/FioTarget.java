package io.tidestore.bench.sweep;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where fio sends I/O, as fio options with an {@code {image}} placeholder for the image index, e.g.
 * {@code ioengine=nbd,uri=nbd://127.0.0.1:10809/bench{image}} (a Tidestore daemon), {@code
 * ioengine=rbd,pool=rbd,rbdname=fio_test_{image}} (a Ceph cluster) or {@code
 * ioengine=io_uring,direct=1,filename=/var/tmp/f{image},size=2g} (a file), so one tool measures
 * them all side by side.
 */
public record FioTarget(Map<String, String> options) {

  /** The NBD export of a Tidestore daemon on this machine. */
  public static FioTarget nbd(String host, int port, String imagePrefix) {
    return parse("ioengine=nbd,uri=nbd://" + host + ":" + port + "/" + imagePrefix + "{image}");
  }

  public FioTarget {
    options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
  }

  /** Parses {@code key=value[,key=value...]}; throws naming the bad part. */
  public static FioTarget parse(String text) {
    Map<String, String> options = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String p = part.strip();
      if (p.isEmpty()) {
        continue;
      }
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "fio target part '" + p + "' is not key=value (e.g. ioengine=nbd,uri=nbd://...)");
      }
      options.put(p.substring(0, eq).strip(), p.substring(eq + 1).strip());
    }
    if (!options.containsKey("ioengine")) {
      throw new IllegalArgumentException("fio target needs an ioengine (e.g. ioengine=nbd)");
    }
    return new FioTarget(options);
  }

  /** The options for image {@code index}, placeholders filled in, in a stable order. */
  public Map<String, String> forImage(int index) {
    Map<String, String> resolved = new LinkedHashMap<>();
    options.forEach((k, v) -> resolved.put(k, v.replace("{image}", Integer.toString(index))));
    return resolved;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    options.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append('=').append(v));
    return sb.toString();
  }
}
