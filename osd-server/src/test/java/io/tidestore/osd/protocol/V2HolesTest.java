package io.tidestore.osd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tidestore.osd.ops.Mutation;
import io.tidestore.store.api.Allocation;
import org.junit.jupiter.api.Test;

/** PUNCH and ALLOCATION, the cluster's TRIM and BLOCK_STATUS: their v2 bodies. */
class V2HolesTest {
  @Test
  void aPunchOfWholeBlocksRoundTrips() {
    ByteBuf out = Unpooled.buffer();
    Mutation.Punch sent = new Mutation.Punch(8192, 3 * 4096);
    V2.writeMutationFields(out, sent);
    assertEquals(Op.PUNCH, V2.opOf(sent));
    assertEquals(sent, V2.readMutation(Op.PUNCH, out));
  }

  @Test
  void aPunchOfPartialOrNoBlocksIsRefused() {
    long[][] bad = {{1, 4096}, {4096, 100}, {4096, 0}, {Long.MAX_VALUE & -4096, 8192}};
    for (long[] b : bad) {
      ByteBuf body = Unpooled.buffer().writeLong(b[0]).writeLong(b[1]);
      OpException e = assertThrows(OpException.class, () -> V2.readMutation(Op.PUNCH, body));
      assertEquals(
          b[0] == (Long.MAX_VALUE & -4096) ? Status.EFBIG : Status.EINVAL,
          e.status(),
          e.getMessage());
    }
    ByteBuf trailing = Unpooled.buffer().writeLong(0).writeLong(4096).writeByte(1);
    assertEquals(
        Status.EBADMSG,
        assertThrows(OpException.class, () -> V2.readMutation(Op.PUNCH, trailing)).status());
  }

  @Test
  void anAllocationRoundTrips() {
    for (Allocation a :
        new Allocation[] {
          new Allocation(0, new long[0]),
          new Allocation(4 << 20, new long[] {4096, 8192, 65536, 4 << 20}),
        }) {
      ByteBuf out = Unpooled.buffer();
      V2.writeAllocation(out, a);
      assertEquals(V2.allocationBytes(a), out.readableBytes());
      assertEquals(a, V2.readAllocation(out));
    }
  }

  @Test
  void aMalformedAllocationIsRefused() {
    ByteBuf[] bad = {
      Unpooled.buffer().writeLong(4096), // cut short
      Unpooled.buffer().writeLong(-1).writeInt(0), // negative size
      Unpooled.buffer().writeLong(8192).writeInt(2).writeLong(0).writeLong(4096), // one range short
      Unpooled.buffer().writeLong(8192).writeInt(1).writeLong(4096).writeLong(4096), // empty range
      Unpooled.buffer()
          .writeLong(8192)
          .writeInt(2)
          .writeLong(4096)
          .writeLong(8192)
          .writeLong(0)
          .writeLong(4096), // out of order
      Unpooled.buffer().writeLong(8192).writeInt(-1), // a count no reply can hold
    };
    for (ByteBuf b : bad) {
      OpException e = assertThrows(OpException.class, () -> V2.readAllocation(b));
      assertEquals(Status.EBADMSG, e.status(), e.getMessage());
    }
  }
}
