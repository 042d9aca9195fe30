package io.tidestore.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidestore.it.ClusterProcesses.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cluster up --tls --mons 3} starts three monitors and three OSDs as detached processes and
 * says how to reach them; every link is TLS and {@code status --dir} uses the certificates it
 * issued; {@code cluster down} stops every one. ({@link ClusterThrashIT} runs the plain {@code
 * cluster up} and {@code cluster down} around its thrashing, with the same checks.)
 */
class ClusterUpIT {
  @TempDir Path dir;

  /**
   * Three monitors and three OSDs: the monitors elect and commit over Raft's mutual TLS, and an
   * image written through the cluster crosses the OSDs' own TLS links too.
   */
  @Test
  void upStatusDownWithTls() throws Exception {
    Path cluster = dir.resolve("c");
    List<Long> pids = new ArrayList<>();
    try {
      ClusterProcesses.ClusterUp up =
          ClusterProcesses.clusterUp(
              cluster, 3, 3, true, pids, "--osds", "3", "--tls", "--mons", "3");
      JsonNode s = up.status();
      String monitors = s.path("monmap").path("mons").path(0).path("addr").asText();
      Result plaintext = ClusterProcesses.run("status", "--mon", monitors);
      assertEquals(1, plaintext.exit(), plaintext.output());
      assertTrue(plaintext.output().contains("speaks TLS only"), plaintext.output());
      // The client reaches each PG's primary over TLS, which replicates to the others over
      // theirs (the OSDs' certificates): the image's header is acknowledged by all three.
      String pki =
          up.lines().stream()
              .filter(l -> l.contains("export TIDESTORE_TLS_CERTIFICATES="))
              .map(l -> l.substring(l.indexOf('=') + 1).strip())
              .findFirst()
              .orElseThrow();
      Result create =
          ClusterProcesses.run(
              "image",
              "--tls-certificates",
              pki,
              "create",
              "vol0",
              "--size",
              "8M",
              "--mon",
              monitors);
      assertEquals(0, create.exit(), create.output());
      Result info =
          ClusterProcesses.run(
              "image", "--tls-certificates", pki, "info", "vol0", "--mon", monitors);
      assertEquals(0, info.exit(), info.output());
      assertTrue(info.output().contains("size: 8388608 bytes"), info.output());

      ClusterProcesses.clusterDown(cluster, pids);
    } finally {
      ClusterProcesses.destroy(pids);
    }
  }
}
