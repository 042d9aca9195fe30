/**
 * The daemon's off-heap memory limit ({@code --memory-limit}, docs/memory.md): {@link
 * io.tidestore.store.memory.MemoryBudget} and its reservations by {@link
 * io.tidestore.store.memory.MemoryUse}, and {@link io.tidestore.store.memory.BudgetedArena}, an
 * Arena whose allocations are reserved from it first.
 *
 * <p>May depend on: the JDK only; every owner of native memory depends on it.
 */
package io.tidestore.store.memory;
