#!/usr/bin/env python3
"""A home router that lies, for scripts/router.sh: answers UPnP-IGD discovery (SSDP on
239.255.255.250:1900) and its SOAP control (WANIPConnection) the way a bad or broken router
might, and writes every SOAP action it is asked, one JSON line each, to --log.

  --address TEXT     the outside address it reports (anything: shell metacharacters, "0.0.0.0")
  --only-permanent   AddPortMapping with a lease is refused with 725 OnlyPermanentLeasesSupported
  --owner ADDRESS    GetSpecificPortMappingEntry says the port goes to this machine instead
                     (the port was given to someone else since: theirs must not be removed)

usage: fake_igd.py --bind 10.90.0.1 --log FILE [--address A] [--only-permanent] [--owner B]
"""
import argparse
import json
import re
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--bind", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--address", default="44.1.1.1")
parser.add_argument("--only-permanent", action="store_true")
parser.add_argument("--owner")
args = parser.parse_args()

SERVICE = "urn:schemas-upnp-org:service:WANIPConnection:1"
mappings = {}  # external port -> (client, internal port, lease)
lock = threading.Lock()


def log(entry):
    with lock, open(args.log, "a") as f:
        f.write(json.dumps(entry) + "\n")


DESCRIPTION = f"""<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
<specVersion><major>1</major><minor>0</minor></specVersion>
<device>
<deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>
<friendlyName>lying router</friendlyName><manufacturer>test</manufacturer>
<modelName>fake</modelName><UDN>uuid:fa4e0000-0000-0000-0000-000000000001</UDN>
<deviceList><device>
<deviceType>urn:schemas-upnp-org:device:WANDevice:1</deviceType>
<friendlyName>WAN</friendlyName><UDN>uuid:fa4e0000-0000-0000-0000-000000000002</UDN>
<serviceList><service>
<serviceType>urn:schemas-upnp-org:service:WANCommonInterfaceConfig:1</serviceType>
<serviceId>urn:upnp-org:serviceId:WANCommonIFC1</serviceId>
<controlURL>/ctl/CmnIfCfg</controlURL><eventSubURL>/evt/CmnIfCfg</eventSubURL>
<SCPDURL>/WANCfg.xml</SCPDURL>
</service></serviceList>
<deviceList><device>
<deviceType>urn:schemas-upnp-org:device:WANConnectionDevice:1</deviceType>
<friendlyName>WAN connection</friendlyName><UDN>uuid:fa4e0000-0000-0000-0000-000000000003</UDN>
<serviceList><service>
<serviceType>{SERVICE}</serviceType>
<serviceId>urn:upnp-org:serviceId:WANIPConn1</serviceId>
<controlURL>/ctl/IPConn</controlURL><eventSubURL>/evt/IPConn</eventSubURL>
<SCPDURL>/WANIPCn.xml</SCPDURL>
</service></serviceList>
</device></deviceList>
</device></deviceList>
</device>
</root>
"""


def envelope(body):
    return ('<?xml version="1.0"?>\n<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" '
            's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>'
            + body + "</s:Body></s:Envelope>")


def answer(action, fields):
    inner = "".join(f"<{k}>{v}</{k}>" for k, v in fields.items())
    return 200, envelope(f'<u:{action}Response xmlns:u="{SERVICE}">{inner}</u:{action}Response>')


def fault(code, text):
    return 500, envelope(
        "<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>"
        f'<UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>{code}</errorCode>'
        f"<errorDescription>{text}</errorDescription></UPnPError></detail></s:Fault>")


def field(body, name):
    found = re.search(rf"<{name}>([^<]*)</{name}>", body)
    return found.group(1) if found else None


def control(action, body):
    if action == "GetStatusInfo":
        return answer(action, {"NewConnectionStatus": "Connected",
                               "NewLastConnectionError": "ERROR_NONE", "NewUptime": "1000"})
    if action == "GetExternalIPAddress":
        return answer(action, {"NewExternalIPAddress": args.address})
    if action == "AddPortMapping":
        lease = int(field(body, "NewLeaseDuration") or "0")
        if args.only_permanent and lease != 0:
            return fault(725, "OnlyPermanentLeasesSupported")
        port = field(body, "NewExternalPort")
        mappings[port] = (field(body, "NewInternalClient"), field(body, "NewInternalPort"), lease)
        return answer(action, {})
    if action == "GetSpecificPortMappingEntry":
        port = field(body, "NewExternalPort")
        if port not in mappings:
            return fault(714, "NoSuchEntryInArray")
        client, internal, lease = mappings[port]
        return answer(action, {"NewInternalPort": internal,
                               "NewInternalClient": args.owner or client, "NewEnabled": "1",
                               "NewPortMappingDescription": "x", "NewLeaseDuration": lease})
    if action == "DeletePortMapping":
        mappings.pop(field(body, "NewExternalPort"), None)
        return answer(action, {})
    return fault(401, "Invalid Action")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def reply(self, status, text, kind="text/xml"):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", f'{kind}; charset="utf-8"')
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def do_GET(self):
        self.reply(200, DESCRIPTION)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode(errors="replace")
        action = (self.headers.get("SOAPAction", "").strip('"').split("#") + [""])[1]
        entry = {"action": action}
        for name in ("NewExternalPort", "NewInternalClient", "NewInternalPort", "NewLeaseDuration"):
            if field(body, name) is not None:
                entry[name] = field(body, name)
        status, text = control(action, body)
        entry["status"] = status
        log(entry)
        self.reply(status, text)


http = ThreadingHTTPServer((args.bind, 0), Handler)
location = f"http://{args.bind}:{http.server_address[1]}/rootDesc.xml"
threading.Thread(target=http.serve_forever, daemon=True).start()

ssdp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
ssdp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ssdp.bind(("0.0.0.0", 1900))
ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                struct.pack("4s4s", socket.inet_aton("239.255.255.250"), socket.inet_aton(args.bind)))
log({"ready": location})
while True:
    data, sender = ssdp.recvfrom(4096)
    text = data.decode(errors="replace")
    if not text.startswith("M-SEARCH"):
        continue
    st = next((line.split(":", 1)[1].strip() for line in text.split("\r\n")
               if line.upper().startswith("ST:")), "ssdp:all")
    if st == "ssdp:all":
        st = "urn:schemas-upnp-org:device:InternetGatewayDevice:1"
    response = ("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nEXT:\r\n"
                f"LOCATION: {location}\r\nSERVER: Linux/6 UPnP/1.1 fake/1.0\r\nST: {st}\r\n"
                f"USN: uuid:fa4e0000-0000-0000-0000-000000000001::{st}\r\n\r\n")
    ssdp.sendto(response.encode(), sender)
