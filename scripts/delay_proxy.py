#!/usr/bin/env python3
"""A TCP proxy that delays each direction by its own amount plus uniform jitter.

This kernel has no netem qdisc, so scripts/multihost.sh puts the delay in user space.
Bytes keep their order (a chunk is never sent before the one read before it), as TCP
would deliver them; jitter only stretches gaps.

usage: delay_proxy.py LISTEN_HOST:PORT TARGET_HOST:PORT UP_MS DOWN_MS JITTER_MS
  UP is client -> target, DOWN is target -> client.
"""
import asyncio
import random
import sys
import time


async def pump(reader, writer, delay_ms, jitter_ms):
    queue = asyncio.Queue()
    done = object()

    async def sender():
        while True:
            item = await queue.get()
            if item is done:
                break
            due, data = item
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    task = asyncio.create_task(sender())
    last_due = 0.0
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            d = (delay_ms + random.uniform(-jitter_ms, jitter_ms)) / 1000.0
            due = max(time.monotonic() + max(0.0, d), last_due)
            last_due = due
            queue.put_nowait((due, data))
    except (ConnectionError, OSError):
        pass
    queue.put_nowait(done)
    try:
        await task
    except (ConnectionError, OSError):
        pass


async def main():
    listen, target, up, down, jitter = sys.argv[1:6]
    lhost, lport = listen.rsplit(":", 1)
    thost, tport = target.rsplit(":", 1)
    up, down, jitter = float(up), float(down), float(jitter)

    async def handle(creader, cwriter):
        try:
            sreader, swriter = await asyncio.open_connection(thost, int(tport))
        except OSError:
            cwriter.close()
            return
        for w in (cwriter, swriter):
            sock = w.get_extra_info("socket")
            if sock is not None:
                import socket
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(pump(creader, swriter, up, jitter), pump(sreader, cwriter, down, jitter))

    server = await asyncio.start_server(handle, lhost, int(lport))
    print(f"delay proxy {listen} -> {target}: up {up} ms, down {down} ms, jitter ±{jitter} ms", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
