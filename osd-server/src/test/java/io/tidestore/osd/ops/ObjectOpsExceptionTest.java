package io.tidestore.osd.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tidestore.osd.ops.ObjectOpsException.Code;
import io.tidestore.store.api.StoreException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ObjectOpsExceptionTest {
  /** The documented translation of every store failure; a code missing here fails the test. */
  private static final Map<StoreException.Code, Code> FROM_STORE =
      new EnumMap<>(
          Map.of(
              StoreException.Code.NOT_FOUND, Code.NOT_FOUND,
              StoreException.Code.NO_ATTRIBUTE, Code.NO_ATTRIBUTE,
              StoreException.Code.NO_SPACE, Code.NO_SPACE,
              StoreException.Code.NO_MEMORY, Code.NO_MEMORY,
              StoreException.Code.INVALID, Code.INVALID,
              StoreException.Code.READ_ONLY, Code.READ_ONLY,
              StoreException.Code.IO_ERROR, Code.IO_ERROR,
              StoreException.Code.CORRUPT, Code.CORRUPT,
              StoreException.Code.CLOSED, Code.CLOSED));

  @Test
  void everyStoreFailureBecomesItsOpFailure() {
    assertEquals(StoreException.Code.values().length, FROM_STORE.size());
    for (StoreException.Code storeCode : StoreException.Code.values()) {
      StoreException failure = new StoreException(storeCode, "object x");
      ObjectOpsException op = ObjectOpsException.from(failure);
      assertEquals(FROM_STORE.get(storeCode), op.code(), storeCode.name());
      // The store's message travels as is: gateways prefix it with their own code's name.
      assertEquals(failure.getMessage(), op.getMessage());
      assertSame(failure, op.getCause());
    }
  }

  @Test
  void unwrapsWhatAStageFailedWith() {
    ObjectOpsException missing = new ObjectOpsException(Code.NOT_FOUND, "x");
    assertSame(missing, ObjectOpsException.unwrap(new CompletionException(missing)));
    assertSame(missing, ObjectOpsException.unwrap(missing));
    assertTrue(ObjectOpsException.is(new CompletionException(missing), Code.NOT_FOUND));
    assertFalse(ObjectOpsException.is(missing, Code.NO_ATTRIBUTE));
    assertFalse(ObjectOpsException.is(new IllegalStateException(), Code.NOT_FOUND));
  }
}
