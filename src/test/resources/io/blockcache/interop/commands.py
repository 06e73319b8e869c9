# nbdsh script (run with `nbdsh -n -c "uri = '...'" -c "$(cat commands.py)"`): FLUSH, FUA, TRIM, WRITE_ZEROES
# and BLOCK_STATUS against a fresh, zero-filled blockcache export. Any failed assert exits non-zero.
import errno
import random
import nbd

CACHED = 1  # blockcache:state bit 0 (nbd.MetaContext.STATE_CACHED)
DIRTY = 2   # blockcache:state bit 1 (nbd.MetaContext.STATE_DIRTY)

h = nbd.NBD()
h.add_meta_context("base:allocation")
h.add_meta_context("blockcache:state")
h.connect_uri(uri)
assert h.can_flush() and h.can_fua() and h.can_trim() and h.can_zero() and h.can_multi_conn()
assert h.can_meta_context("base:allocation") and h.can_meta_context("blockcache:state")
size = h.get_size()

# FUA write at an unaligned offset (qemu and the kernel may send any alignment), then read it back.
base = (1 << 20) + 1
data = random.Random(7).randbytes(65536)
h.pwrite(data, base, nbd.CMD_FLAG_FUA)
assert h.pread(65536, base) == data, "FUA write read back"
h.flush()

# WRITE_ZEROES: plain, NO_HOLE, and FAST_ZERO (which may only fail with ENOTSUP, never write garbage).
expect = bytearray(data)
h.zero(8192, base + 4096)
expect[4096:12288] = bytes(8192)
h.zero(4096, base + 20480, nbd.CMD_FLAG_NO_HOLE)
expect[20480:24576] = bytes(4096)
try:
    h.zero(4096, base + 28672, nbd.CMD_FLAG_FAST_ZERO)
    expect[28672:32768] = bytes(4096)
except nbd.Error as e:
    assert e.errnum == errno.ENOTSUP, "FAST_ZERO may fail only with ENOTSUP: %s" % e
assert h.pread(65536, base) == bytes(expect), "zeroed ranges read as zero, the rest unchanged"

# BLOCK_STATUS: an aligned 64 KiB written without FUA is cached and dirty; base:allocation covers the range.
region = 8 << 20
h.pwrite(random.Random(8).randbytes(65536), region)
entries = {}
starts = []
def collect(context, offset, pairs, err):
    # No assert here: an exception inside a libnbd callback aborts the interpreter without a message.
    starts.append(offset)
    entries.setdefault(context, []).extend(pairs)
    return 0
h.block_status(65536, region, collect)
assert set(starts) == {region}, starts
state = entries["blockcache:state"]
assert state[0] >= 4096 and state[1] & (CACHED | DIRTY) == CACHED | DIRTY, "written range dirty: %s" % state
assert sum(state[0::2]) >= 4096
assert sum(entries["base:allocation"][0::2]) >= 4096, entries

# TRIM: the discarded range leaves the cache (docs/ARCHITECTURE.md §1.2 item 5: a discard invalidates every overlapping
# extent).
h.trim(16384, region + 16384)
h.flush()
entries.clear()
starts.clear()
h.block_status(16384, region + 16384, collect)
assert set(starts) == {region + 16384}, starts
state = entries["blockcache:state"]
assert all(flags & CACHED == 0 for flags in state[1::2]), "trimmed range still cached: %s" % state
after = h.pread(16384, region + 32768)
assert after == random.Random(8).randbytes(65536)[32768:49152], "TRIM touched nothing beyond its range"

# A write past the end is refused with ENOSPC (libnbd's own bounds check is turned off to reach the server).
h.set_strict_mode(0)
try:
    h.pwrite(b"x" * 512, size)
    assert False, "write past the end succeeded"
except nbd.Error as e:
    assert e.errnum == errno.ENOSPC, "write past the end: %s" % e

h.shutdown()
print("OK commands")
