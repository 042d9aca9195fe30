package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;

/**
 * One transmission request (NBD doc/proto.md, "Request message"). {@code payload} is the WRITE data
 * (a retained slice the consumer releases), or null. {@code payloadDropped} marks a WRITE whose
 * payload exceeded the maximum and was skipped unread. Confined to the channel's loop.
 */
record NbdRequest(
    int flags,
    int type,
    long cookie,
    long offset,
    long length,
    ByteBuf payload,
    boolean payloadDropped) {}
