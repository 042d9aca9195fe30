/**
 * Starting this same program again in a new JVM ({@link io.tidestore.launch.SelfLauncher}): the jar
 * (or class path), the JVM flags it needs, the main class. Used by the bench tooling to run the
 * daemon and the load generator apart, and by {@code cluster up} to start every daemon in a process
 * of its own. Depends on the JDK only.
 */
package io.tidestore.launch;
