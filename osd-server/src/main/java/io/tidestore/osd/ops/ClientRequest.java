package io.tidestore.osd.ops;

import java.util.Objects;

/**
 * Who asks what of a cluster OSD (object protocol v2): the client's map epoch, the object, and the
 * request's id, which stays the same when the client sends it again (to a new primary after a
 * failure), so that a replicated op that was applied is recognised rather than applied twice.
 *
 * @param epoch the client's map epoch
 * @param pool the object's pool id
 * @param name the object's name
 * @param client the client's id (random per client instance)
 * @param tid the request's number among that client's requests
 */
public record ClientRequest(long epoch, int pool, String name, long client, long tid) {
  public ClientRequest {
    Objects.requireNonNull(name, "name");
  }
}
