#!/usr/bin/env python3
"""usage: mdns_query.py NAME INTERFACE-ADDRESS

Asks multicast DNS, on the interface with that IPv4 address, for NAME's A record (from
port 5353, shared) and prints the first address answered, or exits 1 after 5 s: checks
that an mDNS daemon beside Cowatch (Avahi) still answers for its own names."""
import socket, struct, sys, time

name, interface = sys.argv[1], sys.argv[2]
def encode(n):
    return b"".join(bytes([len(p)]) + p.encode() for p in n.split(".")) + b"\0"

sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
sock.bind(("0.0.0.0", 5353))
mreq = socket.inet_aton("224.0.0.251") + socket.inet_aton(interface)
sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(interface))
sock.settimeout(0.5)
query = struct.pack("!6H", 0, 0, 1, 0, 0, 0) + encode(name) + struct.pack("!2H", 1, 1)
deadline = time.time() + 5
while time.time() < deadline:
    sock.sendto(query, ("224.0.0.251", 5353))
    end = time.time() + 1
    while time.time() < end:
        try:
            data, _ = sock.recvfrom(9000)
        except socket.timeout:
            continue
        flags, qd, an = struct.unpack("!2xHHH", data[:8])
        if not flags & 0x8000 or an == 0:
            continue
        wanted = encode(name).lower()
        at = data.lower().find(wanted)
        if at < 0:
            continue
        rest = data[at + len(wanted):]
        rtype, _, _, length = struct.unpack("!HHIH", rest[:10])
        if rtype == 1 and length == 4:
            print(socket.inet_ntoa(rest[10:14]))
            sys.exit(0)
sys.exit(1)
