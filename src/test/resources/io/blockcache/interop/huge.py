# nbdsh script: READ and WRITE of 64 MiB, as the reference NBD tester's integrityhuge test and nbdkit allow, at
# an odd offset; the server still advertises 32 MiB as its maximum block size, so libnbd's strict checks are off.
import random
import nbd

MIB = 1 << 20
h = nbd.NBD()
h.set_strict_mode(0)
h.connect_uri(uri)
assert h.get_block_size(nbd.SIZE_MAXIMUM) == 32 * MIB, h.get_block_size(nbd.SIZE_MAXIMUM)
data = random.Random(12).randbytes(64 * MIB)
h.pwrite(data, 3 * MIB + 1)
assert h.pread(64 * MIB, 3 * MIB + 1) == data, "64 MiB read back at an odd offset"
assert h.pread(64 * MIB, 3 * MIB + 512)[:64 * MIB - 511] == data[511:], "64 MiB read at another offset"
h.flush()
h.shutdown()
print("OK huge")
