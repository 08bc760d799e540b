"""What the tests share: the fixture test/sdk/python.test.ts prepares (a real gateway, merchants, a real webhook
delivery) and a real HTTP proxy in front of the gateway that plays a troubled network.

The tests run against a real gateway only: `npx vitest run test/sdk/python.test.ts` starts one, prepares the
fixture and runs them. Run alone, without GATEWAY_SDK_FIXTURE, they are skipped.
"""

import http.client
import json
import os
import socket
import threading
import unittest
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Union
from urllib.parse import urlsplit

from gateway_sdk import Gateway

_fixture: Optional[Dict[str, Any]] = None


def fixture() -> Dict[str, Any]:
    """The JSON file GATEWAY_SDK_FIXTURE names; the test is skipped without one."""
    global _fixture
    if _fixture is None:
        path = os.environ.get("GATEWAY_SDK_FIXTURE")
        if not path:
            raise unittest.SkipTest("no GATEWAY_SDK_FIXTURE: run through `npx vitest run test/sdk/python.test.ts`")
        with open(path, encoding="utf-8") as file:
            _fixture = json.load(file)
    return _fixture


def merchant(name: str) -> Dict[str, Any]:
    return fixture()["merchants"][name]


def gateway_for(name: str, base_url: Optional[str] = None, **options: Any) -> Gateway:
    m = merchant(name)
    return Gateway(
        base_url=base_url or fixture()["gatewayUrl"],
        public_key=m["publicKey"],
        private_key=m["privateKey"],
        **options,
    )


def sandbox_status(name: str, sale_id: int, status: str) -> None:
    """Moves a sale as its processor would (the gateway's sandbox route; not part of the SDK)."""
    m = merchant(name)
    request = urllib.request.Request(
        f"{fixture()['gatewayUrl']}/api/sandbox/sales/{sale_id}/status",
        data=json.dumps({"status": status}).encode(),
        headers={
            "Content-Type": "application/json",
            "X-API-Public-Key": m["publicKey"],
            "X-API-Private-Key": m["privateKey"],
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        if answer.status != 200:
            raise AssertionError(f"sandbox status {status}: {answer.status}")


def sandbox_dispute(name: str, sale_id: int, kind: str) -> Dict[str, Any]:
    """Opens a dispute of a PAGO sale as its PSP or acquirer would (the gateway's sandbox route)."""
    m = merchant(name)
    request = urllib.request.Request(
        f"{fixture()['gatewayUrl']}/api/sandbox/sales/{sale_id}/dispute",
        data=json.dumps({"kind": kind}).encode(),
        headers={
            "Content-Type": "application/json",
            "X-API-Public-Key": m["publicKey"],
            "X-API-Private-Key": m["privateKey"],
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        if answer.status != 201:
            raise AssertionError(f"sandbox dispute: {answer.status}")
        return json.loads(answer.read())


# what the proxy does with one request: forward it, drop the connection before forwarding, forward it and then
# drop the connection instead of answering (the gateway did the work, the client never hears of it), or answer
# {"status": ..., "retryAfter": ...} itself
Step = Union[str, Dict[str, Any]]


class TroubledProxy:
    """A real HTTP proxy on a free port in front of the gateway; `plan(seen, n)` says what to do with the nth
    request (from 1); every request is recorded in `seen` (method, path, Idempotency-Key)."""

    def __init__(self, plan: Callable[[Dict[str, Any], int], Step]) -> None:
        self.seen: List[Dict[str, Any]] = []
        self._lock = threading.Lock()
        upstream = urlsplit(fixture()["gatewayUrl"])
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self.handle_any()

            def do_POST(self) -> None:
                self.handle_any()

            def handle_any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                entry = {
                    "method": self.command,
                    "path": self.path,
                    "idempotency_key": self.headers.get("Idempotency-Key"),
                }
                with proxy._lock:
                    proxy.seen.append(entry)
                    n = len(proxy.seen)
                step = plan(entry, n)
                if step == "drop":
                    self.drop()
                    return
                if isinstance(step, dict):
                    payload = json.dumps({"message": "Service unavailable", "error": "SERVICE_UNAVAILABLE"}).encode()
                    self.send_response(step["status"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    if step.get("retryAfter") is not None:
                        self.send_header("Retry-After", step["retryAfter"])
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=30)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    data = answer.read()
                finally:
                    conn.close()
                if step == "forward-then-drop":
                    self.drop()
                    return
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length", "date", "server"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def drop(self) -> None:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "TroubledProxy":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
