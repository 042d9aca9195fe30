/**
 * The io_uring backend of {@link io.tidestore.store.io.IoQueue}, through java.lang.foreign system
 * calls (io_uring_setup, io_uring_enter, io_uring_register; the ABI of the kernel's
 * include/uapi/linux/io_uring.h is written out in {@code IoUringAbi} and the {@code *Layout}
 * classes, and checked against the header by LayoutTest).
 *
 * <p>Owns: the ring ({@code Ring}: setup with the best flags the kernel takes, the mmapped SQ and
 * CQ with the kernel's memory order, {@code Ordered}), and the queue built on it: {@code
 * IoUringQueue} with one class per concern ({@code OpSlots} in-flight operations, {@code FileTable}
 * and {@code BufferTable} registered files and buffers, {@code OpSqes} an operation's SQEs, {@code
 * IoUringEnter} entering the kernel, {@code Reaper} CQEs to completions). Only {@link
 * io.tidestore.store.io.uring.IoUring} (the entry point) and {@link
 * io.tidestore.store.io.uring.IoUringSetupException} are public. A queue's native memory comes from
 * one confined Arena, closed with its ring; no operation allocates.
 *
 * <p>May depend on: {@code store.io} (the contract and the shared backend base) and {@code
 * store.nativeio} (libc downcalls). Not on {@code io.backend} or {@code io.handoff}, which sit
 * above it.
 */
package io.tidestore.store.io.uring;
