# Run by nbdsh -u URI (h is the connected libnbd handle). An NBD write above the server's
# advertised maximum block size must be refused with EINVAL after its payload is read, and the
# connection must stay usable (nbdkit's behaviour). libnbd >= 1.16 refuses such writes client-side
# unless its payload check is off, so it is turned off where it exists, as a client that ignores
# the limit would; Debian 12's libnbd 1.14 sends them as they are.
import errno

MAX = h.get_block_size(nbd.SIZE_MAXIMUM)
assert MAX > 0, "server advertised no maximum block size"
if hasattr(nbd, "STRICT_PAYLOAD"):
    h.set_strict_mode(h.get_strict_mode() & ~nbd.STRICT_PAYLOAD)

for size in (MAX + 4096, MAX + 1, 2 * MAX):
    try:
        h.pwrite(b"\x5a" * size, 0)
        raise SystemExit("write of %d bytes (max %d) was accepted" % (size, MAX))
    except nbd.Error as e:
        assert e.errnum == errno.EINVAL, "write of %d bytes: %s (errno %s)" % (size, e.string, e.errnum)
    # The connection is still usable, and the refused write changed nothing.
    assert h.pread(4096, 0) == b"\0" * 4096, "refused write left data behind"
    h.pwrite(b"\x11" * 4096, 8192)
    assert h.pread(4096, 8192) == b"\x11" * 4096

# Pipelined: a read queued behind the over-limit write is answered too, in its own right.
rbuf = nbd.Buffer(4096)
bad = h.aio_pwrite(nbd.Buffer.from_bytearray(bytearray(MAX + 4096)), 0)
good = h.aio_pread(rbuf, 8192)
while h.aio_in_flight() > 0:
    h.poll(-1)
try:
    h.aio_command_completed(bad)
    raise SystemExit("pipelined over-limit write was accepted")
except nbd.Error as e:
    assert e.errnum == errno.EINVAL, e.string
assert h.aio_command_completed(good)
assert rbuf.to_bytearray() == b"\x11" * 4096
print("over-limit writes refused; connection usable")
