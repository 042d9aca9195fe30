package io.tidestore.osd.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Who this OSD is, kept in its data directory beside the store (as Ceph's {@code fsid} and {@code
 * whoami} files): {@code osd_uuid}, generated once and durable before the first boot, so that the
 * monitors give the same id back even if {@code whoami} was never written; {@code whoami}, the id
 * the monitors allocated; {@code cluster_fsid}, the cluster it joined (another cluster's monitors
 * are refused).
 */
public record OsdIdentity(Path dataDir, UUID uuid, int id, UUID clusterFsid) {
  static final String UUID_FILE = "osd_uuid";
  static final String WHOAMI_FILE = "whoami";
  static final String FSID_FILE = "cluster_fsid";
  static final UUID NONE = new UUID(0, 0);

  /** Reads the identity, creating {@code osd_uuid} on first use; id -1 and fsid zero if unknown. */
  public static OsdIdentity load(Path dataDir) throws IOException {
    UUID uuid;
    Path uuidFile = dataDir.resolve(UUID_FILE);
    if (Files.exists(uuidFile)) {
      uuid = parseUuid(uuidFile);
    } else {
      uuid = UUID.randomUUID();
      writeDurably(uuidFile, uuid.toString());
    }
    int id = -1;
    Path whoami = dataDir.resolve(WHOAMI_FILE);
    if (Files.exists(whoami)) {
      String text = Files.readString(whoami, StandardCharsets.US_ASCII).trim();
      try {
        id = Integer.parseInt(text);
      } catch (NumberFormatException e) {
        throw new IOException(whoami + " holds '" + text + "', not an OSD id");
      }
    }
    Path fsidFile = dataDir.resolve(FSID_FILE);
    UUID fsid = Files.exists(fsidFile) ? parseUuid(fsidFile) : NONE;
    return new OsdIdentity(dataDir, uuid, id, fsid);
  }

  /** Records the id and cluster the monitors gave this OSD. */
  public OsdIdentity registered(int newId, UUID fsid) throws IOException {
    if (newId != id) {
      writeDurably(dataDir.resolve(WHOAMI_FILE), Integer.toString(newId));
    }
    if (!fsid.equals(clusterFsid)) {
      writeDurably(dataDir.resolve(FSID_FILE), fsid.toString());
    }
    return new OsdIdentity(dataDir, uuid, newId, fsid);
  }

  private static UUID parseUuid(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new IOException(file + " holds '" + text + "', not a UUID");
    }
  }

  /**
   * Temp file, fsync, rename, fsync of the directory: the file is whole or absent after a crash.
   */
  private static void writeDurably(Path file, String content) throws IOException {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(temp, content + "\n", StandardCharsets.US_ASCII);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}
