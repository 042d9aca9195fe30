package io.tidestore.osd.ops;

import io.netty.buffer.ByteBuf;
import java.util.SortedMap;

/**
 * A piece of one object as recovery moves it between OSDs (Ceph's push and pull): its bytes at
 * {@code offset}, and with the last piece the object's size and attributes (its version among
 * them). An object that does not exist travels as one piece with {@code missing} set. The receiver
 * removes what it had of the object with the first piece. The holder releases {@code data}.
 *
 * @param name the object's name
 * @param missing the object does not exist (no data, no attributes)
 * @param first the first piece: what the receiver had of the object goes
 * @param last the last piece: the size and attributes are set
 * @param offset where {@code data} goes
 * @param size the object's size
 * @param xattrs its attributes (with the last piece; else empty)
 * @param data the bytes at {@code offset} (may be empty, never null)
 */
public record ObjectChunk(
    String name,
    boolean missing,
    boolean first,
    boolean last,
    long offset,
    long size,
    SortedMap<String, byte[]> xattrs,
    ByteBuf data) {
  public void release() {
    data.release();
  }
}
