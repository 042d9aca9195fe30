# Run by nbdsh -u URI -c (h is the connected libnbd handle) for DiskFullIT. What to do comes from
# the environment: ACTION, START and LENGTH (bytes of the image), CHUNK (bytes per write) and
# VERSION. Every 4 KiB block written holds its own offset and the version, so a read proves where
# its bytes came from. Exits non-zero with a message on anything unexpected.
import errno
import os
import struct

ACTION = os.environ["ACTION"]
START = int(os.environ.get("START", "0"))
LENGTH = int(os.environ.get("LENGTH", "0"))
CHUNK = int(os.environ.get("CHUNK", str(256 << 10)))
VERSION = int(os.environ.get("VERSION", "1"))
BLOCK = 4096


def pattern(offset, size, version):
    return b"".join(struct.pack(">QQ", o, version) * (BLOCK // 16) for o in range(offset, offset + size, BLOCK))


def write(offset, size, version):
    """None when the write was acknowledged, else the errno it was refused with."""
    try:
        h.pwrite(pattern(offset, size, version), offset)
        return None
    except nbd.Error as e:
        return e.errnum


def check(offset, size, version):
    got = h.pread(size, offset)
    want = pattern(offset, size, version) if version else bytes(size)
    if got != want:
        for o in range(0, size, BLOCK):
            if got[o : o + BLOCK] != want[o : o + BLOCK]:
                raise SystemExit("block at %d does not hold version %d: %r" % (offset + o, version, got[o : o + 16]))


def refused_with_enospc(offset, err):
    if err != errno.ENOSPC:
        raise SystemExit("write at %d failed with errno %s, not ENOSPC" % (offset, err))


chunks = range(START, START + LENGTH, CHUNK)

if ACTION == "write":
    for offset in chunks:
        err = write(offset, CHUNK, VERSION)
        if err is not None:
            raise SystemExit("write at %d refused: errno %d" % (offset, err))
    print("written %d bytes" % LENGTH)

elif ACTION == "verify":
    for offset in chunks:
        check(offset, CHUNK, VERSION)
    print("verified %d bytes" % LENGTH)

elif ACTION == "refused":
    for offset in chunks:
        refused_with_enospc(offset, write(offset, CHUNK, VERSION))
    print("refused %d bytes with ENOSPC" % LENGTH)

elif ACTION == "fill":
    # Every chunk once; those refused must be refused with ENOSPC. Then each refused chunk block
    # by block until its first refusal: a shard that still had less than a chunk left fills up to
    # exactly its capacity.
    acked = 0
    refused = []
    for offset in chunks:
        err = write(offset, CHUNK, VERSION)
        if err is None:
            acked += CHUNK
        else:
            refused_with_enospc(offset, err)
            refused.append(offset)
    if acked == 0 or not refused:
        raise SystemExit("filling: %d bytes acknowledged, %d chunks refused" % (acked, len(refused)))
    refused_set = set(refused)
    first_acked = next(o for o in chunks if o not in refused_set)
    for offset in refused:
        for block in range(offset, offset + CHUNK, BLOCK):
            err = write(block, BLOCK, VERSION)
            if err is not None:
                refused_with_enospc(block, err)
                break
            acked += BLOCK
    # The same connection still reads and overwrites what it owns.
    check(first_acked, CHUNK, VERSION)
    err = write(first_acked, CHUNK, VERSION + 1)
    if err is not None:
        raise SystemExit("overwrite of an owned chunk at %d refused: errno %d" % (first_acked, err))
    check(first_acked, CHUNK, VERSION + 1)
    print("filled: %d bytes acknowledged, %d chunks refused with ENOSPC; connection usable" % (acked, len(refused)))

elif ACTION == "trim":
    h.trim(LENGTH, START)
    for offset in chunks:
        check(offset, CHUNK, 0)
    print("trimmed %d bytes" % LENGTH)

else:
    raise SystemExit("unknown ACTION " + ACTION)
