#!/usr/bin/env python3
"""usage: mdns_fake.py MODE SOURCE DURATION [ARGS]

What a stranger on the network can send to port 5353 (multicast DNS), from the address
SOURCE, over and over for DURATION seconds (a browser that starts meanwhile hears it):

  flood N            N complete rooms "fake-K @ evil:7700", each with its SRV, TXT and A
                     records (TTL 4500), as one machine flooding the network would send
  forge ROOM MACHINE PORT
                     the records of the real room "ROOM @ MACHINE:PORT" rewritten: no TLS
                     (tls=0) and SOURCE as its address
  goodbye ROOM MACHINE PORT
                     that real room's goodbye (TTL 0), from SOURCE
  offlink TARGET ROOM
                     one room sent unicast to TARGET:5353 from SOURCE (an address on no
                     subnet of TARGET's: routed there, not from anyone nearby)

Checks in scripts/nearby.sh that none of it takes a real room away or crowds it out."""
import socket, struct, sys, time

SERVICE = "_cowatch._tcp.local"

def name(text):
    out = b""
    for label in text.split("."):
        raw = label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\0"

def instance_name(instance):
    raw = instance.encode()
    return bytes([len(raw)]) + raw + name(SERVICE)

def record(owner, rtype, ttl, data, flush=False):
    klass = 1 | (0x8000 if flush else 0)
    return owner + struct.pack("!HHIH", rtype, klass, ttl, len(data)) + data

def room(instance, target, port, address, txt, ttl):
    inst = instance_name(instance)
    answers = [
        record(name(SERVICE), 12, ttl, inst),
        record(inst, 33, ttl, struct.pack("!HHH", 0, 0, port) + name(target), True),
        record(inst, 16, ttl, b"".join(bytes([len(e)]) + e.encode() for e in txt), True),
        record(name(target), 1, ttl, socket.inet_aton(address), True),
    ]
    header = struct.pack("!6H", 0, 0x8400, 0, len(answers), 0, 0)
    return header + b"".join(answers)

def txt(room_name, tls):
    entries = ["txtvers=1", "v=14", "room=" + room_name, "pw=0", "people=1", "host=eve"]
    entries.append("fp=" + "A" * 42 + "E" if tls else "tls=0")
    return entries

mode, source, duration = sys.argv[1], sys.argv[2], float(sys.argv[3])
args = sys.argv[4:]
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
sock.bind((source, 5353))
sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(source))
group = ("224.0.0.251", 5353)

if mode == "flood":
    count = int(args[0])
    messages = [
        room("fake-%d @ evil:7700" % k, "cowatch-evil-%d-7700.local" % k, 7700, source,
             txt("fake-%d" % k, True), 4500)
        for k in range(count)
    ]
    to = group
elif mode in ("forge", "goodbye"):
    room_name, machine, port = args[0], args[1], int(args[2])
    instance = "%s @ %s:%d" % (room_name, machine, port)
    target = "cowatch-%s-%d.local" % (machine, port)
    ttl = 0 if mode == "goodbye" else 120
    messages = [room(instance, target, port, source, txt(room_name, False), ttl)]
    to = group
elif mode == "offlink":
    target_address, room_name = args[0], args[1]
    messages = [room("%s @ faraway:7700" % room_name, "cowatch-faraway-7700.local", 7700,
                     source, txt(room_name, True), 120)]
    to = (target_address, 5353)
else:
    sys.exit(__doc__)

end = time.time() + duration
while time.time() < end:
    for message in messages:
        sock.sendto(message, to)
    time.sleep(0.25)
