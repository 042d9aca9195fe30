"""A stand-in for systemd's notify socket: binds an AF_UNIX datagram socket (a path, or an
abstract name when the address starts with '@', as $NOTIFY_SOCKET does), prints "listening",
then one line per datagram, its newlines shown as '|'. On READY=1 it connects at once to
127.0.0.1:PORT (the daemon's metrics port) and adds " serving=yes" or " serving=no", so the
test learns whether the daemon served when it said it was ready. Exits after STOPPING=1, or
after 180 s in any case.

usage: notify_listener.py ADDRESS PORT
"""
import socket
import sys

address, port = sys.argv[1], int(sys.argv[2])
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind("\0" + address[1:] if address.startswith("@") else address)
sock.settimeout(180)
print("listening", flush=True)
while True:
    message = sock.recv(4096).decode()
    line = message.replace("\n", "|")
    if "READY=1" in message.split("\n"):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            line += " serving=yes"
        except OSError:
            line += " serving=no"
    print(line, flush=True)
    if "STOPPING=1" in message.split("\n"):
        break
