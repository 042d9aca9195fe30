package io.tidestore.store.cache;

class TwoQueueExtentCacheTest extends ExtentCacheContract {
  @Override
  PolicyConfig policy() {
    return PolicyConfig.twoQ(false);
  }
}
