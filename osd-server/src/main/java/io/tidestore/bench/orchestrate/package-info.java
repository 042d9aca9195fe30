/**
 * Running benchmark processes: the daemon under test, child commands and reproductions of recorded
 * runs. It depends on no other tidestore package but {@code launch} (it starts them as processes).
 */
package io.tidestore.bench.orchestrate;
