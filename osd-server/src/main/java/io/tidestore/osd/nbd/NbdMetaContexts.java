package io.tidestore.osd.nbd;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * NBD_OPT_LIST_META_CONTEXT and NBD_OPT_SET_META_CONTEXT (NBD doc/proto.md, "Metadata querying"):
 * the option's data is the export name (u32 length, bytes) and the queries (u32 count, then u32
 * length and bytes each). We offer one context, {@code base:allocation}; as nbdkit does, LIST with
 * no query or the query {@code base:} names it, and every other query matches nothing.
 *
 * @param export the export the client names (the selection holds for GO to that export only)
 * @param queries the queries, in order
 */
record NbdMetaContexts(String export, List<String> queries) {
  /** Parses an option's data; null when it is malformed. */
  static NbdMetaContexts parse(ByteBuf data) {
    if (data.readableBytes() < 8) {
      return null;
    }
    long nameLength = data.readUnsignedInt();
    if (nameLength > 4096 || data.readableBytes() < nameLength + 4) {
      return null;
    }
    String export = data.readCharSequence((int) nameLength, StandardCharsets.UTF_8).toString();
    long count = data.readUnsignedInt();
    if (count > data.readableBytes() / 4) {
      return null;
    }
    List<String> queries = new ArrayList<>((int) count);
    for (long i = 0; i < count; i++) {
      if (data.readableBytes() < 4) {
        return null;
      }
      long length = data.readUnsignedInt();
      if (length > data.readableBytes()) {
        return null;
      }
      queries.add(data.readCharSequence((int) length, StandardCharsets.UTF_8).toString());
    }
    return data.isReadable() ? null : new NbdMetaContexts(export, List.copyOf(queries));
  }

  /** Whether LIST should name base:allocation: no query at all, "base:" or the name itself. */
  boolean listsBaseAllocation() {
    return queries.isEmpty() || queries.contains("base:") || queries.contains(Nbd.BASE_ALLOCATION);
  }

  /** Whether SET selects base:allocation: it must be asked for by name. */
  boolean selectsBaseAllocation() {
    return queries.contains(Nbd.BASE_ALLOCATION);
  }
}
