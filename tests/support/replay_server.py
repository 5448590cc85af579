"""A loopback HTTP/1.1 server for the run/decode tests: replays canned responses and records requests.

It listens on 127.0.0.1 only, answers each request with the next scripted response (status, headers, body
writes with ``Transfer-Encoding: chunked``), can cut the connection without the terminating chunk (as the
stream goldens' ``transport.cut: "reset"`` asks) or pause between writes (to kill a client mid-stream), and
shuts itself down after ``lifetime`` seconds even if a test forgets to.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "text/event-stream"})
    writes: list[bytes] = field(default_factory=list)
    cut: bool = False
    delay: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def sse_writes(body: bytes) -> list[bytes]:
    """One write per SSE event (cut after each blank line), as the stream goldens were served."""
    writes: list[bytes] = []
    start = 0
    while start < len(body):
        ends = [(body.find(sep, start), len(sep)) for sep in (b"\r\n\r\n", b"\n\n")]
        found = [(pos, size) for pos, size in ends if pos != -1]
        if not found:
            writes.append(body[start:])
            break
        pos, size = min(found)
        writes.append(body[start:pos + size])
        start = pos + size
    return writes


class ReplayServer:
    """``with ReplayServer([Reply(...), ...]) as server: ... server.url ... server.requests``."""

    def __init__(self, replies: list[Reply], lifetime: float = 60.0) -> None:
        self.replies = list(replies)
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib hook name
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with outer._lock:
                    outer.requests.append(Received("POST", self.path, {k.lower(): v for k, v in self.headers.items()},
                                                   body))
                    reply = outer.replies.pop(0) if outer.replies else Reply(500, {"content-type": "text/plain"},
                                                                             [b"no reply scripted"])
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("transfer-encoding", "chunked")
                if reply.cut:
                    self.send_header("connection", "close")
                self.end_headers()
                try:
                    for data in reply.writes:
                        if not data:
                            continue
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                        if reply.delay:
                            time.sleep(reply.delay)
                    if reply.cut:
                        self.connection.shutdown(socket.SHUT_RDWR)
                        self.close_connection = True
                        return
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    self.close_connection = True

            do_GET = do_POST  # noqa: N815 - stdlib hook name

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    def start(self) -> ReplayServer:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
