"""Peers below the websocket: a TCP connection that never sends a request, or trickles one byte by byte,
is closed by `verdict serve` within the hello timeout, as a socket that never says hello is; the table
stays open to everyone else."""

from __future__ import annotations

import asyncio
import socket
import time

from protocol.v1 import messages as m
from sidecar.client import Client
from tests.conftest import Process, free_port


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """True if the server closes ``sock`` (EOF or reset) before ``seconds`` pass; whatever it says first
    (an error page, say) is read and ignored."""
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if sock.recv(4096) == b"":
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return False


def test_silent_and_trickling_tcp_peers_are_closed_by_the_hello_timeout(tmp_path):
    proc = Process(tmp_path / "data", free_port(), ("--hello-timeout", "1"))
    proc.start()
    try:
        silent = [socket.create_connection(("127.0.0.1", proc.port)) for _ in range(5)]
        trickling = socket.create_connection(("127.0.0.1", proc.port))
        started = time.monotonic()
        trickling.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\n")  # never finishes its headers
        for i in range(3):
            time.sleep(0.2)
            trickling.sendall(b"X-Slow-%d: y\r\n" % i)
        for s in silent:
            assert _closed_within(s, 3.0), "a silent TCP peer stayed open past the hello timeout"
        assert _closed_within(trickling, 3.0), "a trickling request stayed open past the hello timeout"
        assert time.monotonic() - started < 4.5
        for s in (*silent, trickling):
            s.close()

        async def gm_still_served() -> None:
            keys = proc.keys()
            gm = await Client.connect(proc.url, keys.table, keys.gm, user="gm")
            try:
                assert isinstance(await gm.request(m.Ping(id="after")), m.Pong)
            finally:
                await gm.close()

        asyncio.run(gm_still_served())
    finally:
        proc.stop()
