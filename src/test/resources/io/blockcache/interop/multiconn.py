# nbdsh script (run with `nbdsh -n -c "uri = '...'" -c "phase = 'write'" -c "$(cat multiconn.py)"`).
# phase 'write': writes three 1 MiB regions and makes each durable a different way, then verifies them on both
# connections; phase 'check' (after kill -9 and restart): every region must still hold its data.
#   region 0: write and FLUSH on the same connection
#   region 1: write on connection a, FLUSH on connection b (the multi-conn guarantee)
#   region 2: write with FUA, no flush
import random
import nbd

MIB = 1 << 20
def pattern(region):
    return random.Random(1000 + region).randbytes(MIB)

a = nbd.NBD()
a.connect_uri(uri)
b = nbd.NBD()
b.connect_uri(uri)
assert a.can_multi_conn(), "multi-conn must be offered for the cross-connection flush to mean anything"

if phase == "write":
    a.pwrite(pattern(0), 0 * MIB)
    a.flush()
    a.pwrite(pattern(1), 4 * MIB)
    b.flush()
    a.pwrite(pattern(2), 8 * MIB, nbd.CMD_FLAG_FUA)
    for h in (a, b):
        for region, offset in ((0, 0), (1, 4 * MIB), (2, 8 * MIB)):
            assert h.pread(MIB, offset) == pattern(region), "region %d read back live" % region
else:
    for region, offset in ((0, 0), (1, 4 * MIB), (2, 8 * MIB)):
        assert b.pread(MIB, offset) == pattern(region), "region %d lost after kill -9" % region

a.shutdown()
b.shutdown()
print("OK " + phase)
