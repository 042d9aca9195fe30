package io.tidestore.store.cache;

/** 2Q as the daemon runs it: SeaStore's sequential-continuation rule on. */
class TwoQueueSeqExtentCacheTest extends ExtentCacheContract {
  @Override
  PolicyConfig policy() {
    return PolicyConfig.daemonDefault();
  }
}
