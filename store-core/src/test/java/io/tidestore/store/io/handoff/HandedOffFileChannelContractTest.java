package io.tidestore.store.io.handoff;

import io.tidestore.store.io.IoBackend;
import io.tidestore.store.io.IoQueueConfig;

/** The contract through the hand-off to a FileChannel ring. */
class HandedOffFileChannelContractTest extends HandedOffContractTest {
  HandedOffFileChannelContractTest() {
    super(IoBackend.FILE_CHANNEL, false);
  }

  @Override
  protected IoQueueConfig ringConfig(IoQueueConfig config) {
    return config.withBackend(IoQueueConfig.Backend.FILE_CHANNEL);
  }
}
