package io.tidestore.store.cache;

class LruExtentCacheTest extends ExtentCacheContract {
  @Override
  PolicyConfig policy() {
    return PolicyConfig.lru();
  }
}
