/**
 * The thrasher (issue 17; teuthology's idea): kills and restarts the OSDs of a local cluster
 * ({@code cluster up}) at random under a load that verifies every read against what was
 * acknowledged. Depends on {@code cluster.local}, {@code cluster.client}, {@code client} and the
 * JDK.
 */
package io.tidestore.cluster.thrash;
