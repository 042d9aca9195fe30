/**
 * Which reactor owns which shard, and the one-hop hand-off of an op to its owner and of the reply
 * back ({@link io.tidestore.osd.shard.Handoff}). It depends only on {@code osd.ops} (the error a
 * stopped owner fails an op with).
 */
package io.tidestore.osd.shard;
