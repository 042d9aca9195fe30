package io.tidestore.osd.cpu;

/**
 * One logical CPU as sysfs describes it.
 *
 * @param id logical CPU number (what sched_setaffinity takes)
 * @param socket physical package id
 * @param node NUMA node, 0 when the kernel has no NUMA information
 * @param core core id, unique only within its socket
 * @param threadIndex position among its hyperthread siblings (0 = first sibling)
 */
record Cpu(int id, int socket, int node, int core, int threadIndex) {
  /** A key naming the physical core across sockets. */
  long physicalCore() {
    return ((long) socket << 32) | (core & 0xffffffffL);
  }
}
