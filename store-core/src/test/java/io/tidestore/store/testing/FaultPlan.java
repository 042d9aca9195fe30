package io.tidestore.store.testing;

import io.tidestore.store.io.IoOpException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The faults a {@link FaultInjectingQueue} injects, parsed from a control file a test writes (and
 * may rewrite while the daemon runs: the queue rereads it when its modification time changes). One
 * rule per line, {@code #} starts a comment:
 *
 * <pre>
 *   OPS FILE FAULT
 *   write shard-1 EIO        # every write to a file whose name contains "shard-1" fails, EIO
 *   sync shard-0 EIO         # fdatasync (and the sync half of write+sync) fails
 *   read shard-2 EIO         # reads fail
 *   write ckpt ENOSPC        # checkpoint writes find the file system full
 *   write shard-3 short      # writes transfer half their bytes (a short write)
 * </pre>
 *
 * OPS is {@code read}, {@code write} (plain, durable and write+sync), {@code sync} or {@code all};
 * FILE is a substring of the file's name, or {@code *}; FAULT is {@code EIO}, {@code ENOSPC} or
 * {@code short}. The first matching rule wins.
 */
record FaultPlan(List<Rule> rules) {
  record Rule(String ops, String file, IoFault fault) {
    boolean matches(IoOpException.Op op, String fileName) {
      boolean kind =
          switch (ops) {
            case "all" -> true;
            case "read" -> op == IoOpException.Op.READ;
            case "sync" -> op == IoOpException.Op.SYNC;
            default -> op != IoOpException.Op.READ && op != IoOpException.Op.SYNC;
          };
      return kind && (file.equals("*") || fileName.contains(file));
    }
  }

  static final FaultPlan NONE = new FaultPlan(List.of());

  /** The fault for {@code op} on {@code fileName}, or null. */
  IoFault faultFor(IoOpException.Op op, String fileName) {
    for (Rule r : rules) {
      if (r.matches(op, fileName)) {
        return r.fault();
      }
    }
    return null;
  }

  static FaultPlan read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return NONE;
    }
    return parse(Files.readAllLines(file));
  }

  static FaultPlan parse(List<String> lines) {
    List<Rule> rules = new ArrayList<>();
    for (String raw : lines) {
      String line = raw.replaceAll("#.*", "").trim();
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\\s+");
      if (f.length != 3 || !List.of("read", "write", "sync", "all").contains(f[0])) {
        throw new IllegalArgumentException("bad fault rule: " + raw);
      }
      rules.add(new Rule(f[0], f[1], IoFault.valueOf(f[2].toUpperCase(Locale.ROOT))));
    }
    return new FaultPlan(List.copyOf(rules));
  }
}
