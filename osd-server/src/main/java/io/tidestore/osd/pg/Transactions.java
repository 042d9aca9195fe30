package io.tidestore.osd.pg;

import io.tidestore.osd.ops.Mutation;
import io.tidestore.store.api.ObjectKey;
import io.tidestore.store.api.Transaction;
import java.lang.foreign.MemorySegment;

/** A mutation as store transaction operations (the transaction copies the bytes). Stateless. */
final class Transactions {
  private Transactions() {}

  static void add(Transaction t, ObjectKey key, Mutation m) {
    switch (m) {
      case Mutation.Write w -> t.write(key, w.offset(), segment(w.data()));
      case Mutation.Truncate tr -> t.truncate(key, tr.size());
      case Mutation.Remove _ -> t.remove(key);
      case Mutation.Punch p -> t.punch(key, p.offset(), p.length());
      case Mutation.SetXattr x -> {
        byte[] value = new byte[x.value().readableBytes()];
        x.value().getBytes(x.value().readerIndex(), value);
        t.setXattr(key, x.key(), value);
      }
      case Mutation.RemoveXattr x -> t.removeXattr(key, x.key());
    }
  }

  private static MemorySegment segment(io.netty.buffer.ByteBuf data) {
    return data.nioBufferCount() == 1
        ? MemorySegment.ofBuffer(data.nioBuffer())
        : MemorySegment.ofArray(io.netty.buffer.ByteBufUtil.getBytes(data));
  }
}
