# A stand-in for systemd's notify socket (SystemdNotifyTest): binds a Unix datagram socket at argv[1] (a path, or
# @name in the abstract namespace), prints "bound", then prints every message it receives on one line, closing
# the file descriptors a notify barrier passes (which is what releases the waiting systemd-notify).
# Ends after the barrier that follows a message with STOPPING=1, or after 60 s without a message.
import os
import socket
import sys

address = sys.argv[1]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind("\0" + address[1:] if address.startswith("@") else address)
sock.settimeout(60)
print("bound", flush=True)
stopping = False
while True:
    try:
        message, fds, _flags, _address = socket.recv_fds(sock, 65536, 8)
    except socket.timeout:
        break
    for fd in fds:
        os.close(fd)
    print(message.decode("utf-8", "replace").replace("\n", " "), flush=True)
    if stopping and b"BARRIER=1" in message:
        break
    stopping = stopping or b"STOPPING=1" in message
