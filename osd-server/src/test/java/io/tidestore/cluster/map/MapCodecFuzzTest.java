package io.tidestore.cluster.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tidestore.store.testing.AllocationBound;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Fuzzes the cluster map codec as a monitor or OSD decodes what a peer sent: {@link
 * MapCodec#decode} and {@link CommandCodec#decode}. First input byte: bit 0 picks the command
 * codec, bit 1 reseals the rest with a right CRC32C (else the fuzzer would almost never get past
 * it). The contract: a MapFormatException, or a value whose encoding is the input again (the
 * encoding is canonical, so anything else, such as a duplicate id or a name that is not UTF-8, was
 * read as something it is not); no other exception; allocation bounded by the input and the codec's
 * documented limits (u16 strings).
 */
class MapCodecFuzzTest {
  @FuzzTest
  void decode(byte[] input) {
    AllocationBound.check("cluster map codec", input.length, 1 << 20, 64, () -> exercise(input));
  }

  private static void exercise(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 2) != 0 && bytes.length >= 4) {
      CRC32C crc = new CRC32C();
      crc.update(bytes, 0, bytes.length - 4);
      int value = (int) crc.getValue();
      for (int i = 0; i < 4; i++) {
        bytes[bytes.length - 4 + i] = (byte) (value >>> (24 - 8 * i));
      }
    }
    try {
      if ((input[0] & 1) != 0) {
        MapCommand command = CommandCodec.decode(bytes);
        assertArrayEquals(bytes, CommandCodec.encode(command), "re-encoded " + command);
      } else {
        ClusterMap map = MapCodec.decode(bytes);
        assertArrayEquals(bytes, MapCodec.encode(map), "re-encoded " + map);
      }
    } catch (MapFormatException e) {
      // the documented refusal
    }
  }
}
