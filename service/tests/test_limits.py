"""Limits against slow and greedy clients, on the real process (set by environment variables, as an operator
may): half-sent requests are closed within the header timeout, a body that does not arrive is answered 408,
an account may hold only so many open sessions and make only so many requests a second (429)."""

from __future__ import annotations

import json
import select
import socket
import sqlite3
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from conftest import Server, World, populate, session_body
from essence2_service.storage import Store

TIMEOUTS = {"ESSENCE2_SERVICE_HEADER_TIMEOUT": "1", "ESSENCE2_SERVICE_BODY_TIMEOUT": "1"}
MARGIN_S = 1.5  # the guard looks every quarter timeout; a loaded machine is slower


def address(server: Server) -> tuple[str, int]:
    parts = urlsplit(server.url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def call(server: Server, method: str, path: str, account: str | None = None,
         body: object | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {"Content-Type": "application/json"}
    if account is not None:
        headers.update(server.world.auth(account))
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server.url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if r.headers.get_content_type() == "application/json" else {}), \
                dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), dict(e.headers)


def closed_after(sock: socket.socket, start: float, limit: float) -> float:
    """Seconds from ``start`` until the service closed ``sock`` (fails when it is still open at ``limit``)."""
    sock.settimeout(max(0.1, start + limit - time.monotonic()))
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        pytest.fail(f"the connection was still open {limit:.1f} s later")
    except ConnectionResetError:
        pass
    return time.monotonic() - start


@pytest.mark.parametrize("server_env", [TIMEOUTS])
def test_half_sent_requests_are_closed_within_the_header_timeout(server: Server) -> None:
    start = time.monotonic()
    socks = []
    for _ in range(20):  # request line and some headers, never the blank line
        s = socket.create_connection(address(server), timeout=5)
        s.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n")
        socks.append(s)
    socks.append(socket.create_connection(address(server), timeout=5))  # connects, sends nothing
    drip = socket.create_connection(address(server), timeout=5)  # one byte of headers every 0.2 s
    request = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
    # The service answers others meanwhile.
    assert call(server, "GET", "/v1/health")[0] == 200
    drip_closed = None
    for byte in request:
        try:
            drip.send(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            drip_closed = time.monotonic() - start
            break
        if select.select([drip], [], [], 0.2)[0]:
            assert drip.recv(4096) == b""
            drip_closed = time.monotonic() - start
            break
    assert drip_closed is not None and drip_closed < 1 + MARGIN_S, drip_closed
    for s in socks:
        assert closed_after(s, start, 1 + MARGIN_S) < 1 + MARGIN_S
        s.close()
    drip.close()
    assert call(server, "GET", "/v1/health")[0] == 200  # and still answers


@pytest.mark.parametrize("server_env", [TIMEOUTS])
def test_a_body_that_does_not_arrive_is_answered_408_and_closed(server: Server) -> None:
    s = socket.create_connection(address(server), timeout=5)
    secret = server.world.secrets["acme"]
    s.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Authorization: Bearer " + secret.encode() + b"\r\nContent-Length: 100\r\n\r\n{\"avatar_")
    start = time.monotonic()
    s.settimeout(1 + MARGIN_S)
    received = b""
    try:
        while chunk := s.recv(4096):
            received += chunk
    except TimeoutError:
        pytest.fail(f"still open after {1 + MARGIN_S} s; received {received!r}")
    assert time.monotonic() - start < 1 + MARGIN_S
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), received
    assert json.loads(body)["error"] == "BAD_REQUEST"
    s.close()


@pytest.mark.parametrize("server_env", [{"ESSENCE2_SERVICE_MAX_OPEN_SESSIONS": "3", "ESSENCE2_SERVICE_RATE": "0"}])
def test_more_open_sessions_than_the_limit_get_429(server: Server) -> None:
    sha = server.world.sha["grace-v2"]
    ids = []
    for _ in range(3):
        status, body, _ = call(server, "POST", "/v1/sessions", "acme", session_body(sha))
        assert status == 201, body
        ids.append(body["session_id"])
    status, body, _ = call(server, "POST", "/v1/sessions", "acme", session_body(sha))
    assert status == 429 and body["error"] == "SESSION_LIMIT" and set(body) == {"error", "reason"}, body
    assert "3 open sessions" in body["reason"]
    # Another account is not held back by this one.
    assert call(server, "POST", "/v1/sessions", "free", session_body(sha))[0] == 201
    # Reports on the open sessions go on; a final report frees a place.
    report = {"seconds": 3, "talking_seconds": 1, "idle_seconds": 2}
    assert call(server, "POST", f"/v1/sessions/{ids[0]}/usage", "acme", report)[0] == 200
    assert call(server, "POST", f"/v1/sessions/{ids[0]}/usage", "acme", {**report, "final": True})[0] == 200
    assert call(server, "POST", "/v1/sessions", "acme", session_body(sha))[0] == 201
    assert call(server, "POST", "/v1/sessions", "acme", session_body(sha))[0] == 429


@pytest.mark.parametrize("server_env", [{"ESSENCE2_SERVICE_RATE": "2", "ESSENCE2_SERVICE_BURST": "5"}])
def test_requests_beyond_the_rate_get_429(server: Server) -> None:
    for _ in range(5):
        assert call(server, "GET", "/v1/avatars/grace-hopper", "acme")[0] == 200
    status, body, headers = call(server, "GET", "/v1/avatars/grace-hopper", "acme")
    assert status == 429 and body["error"] == "RATE_LIMITED" and set(body) == {"error", "reason"}, body
    assert int(headers["Retry-After"]) >= 1
    status, body, _ = call(server, "POST", "/v1/sessions", "acme", session_body(server.world.sha["grace-v2"]))
    assert status == 429 and body["error"] == "RATE_LIMITED"  # every authenticated request counts
    # Per account: another one is not held back; no secret is still 401, not 429.
    assert call(server, "GET", "/v1/avatars/grace-hopper", "free")[0] == 200
    assert call(server, "GET", "/v1/avatars/grace-hopper")[0] == 401
    time.sleep(int(headers["Retry-After"]))
    assert call(server, "GET", "/v1/avatars/grace-hopper", "acme")[0] == 200


async def test_sessions_without_a_report_for_ten_intervals_stop_counting(tmp_path: Path) -> None:
    world: World = await populate(tmp_path / "service.sqlite3", tmp_path)
    store = await Store.open(world.db)
    try:
        principal = await store.authenticate(world.secrets["acme"])
        assert principal is not None
        args = (principal, world.sha["grace-v2"], "grace-hopper", "install", None)
        assert await store.create_session(*args, max_open=2, stale_after_s=300) is not None
        assert await store.create_session(*args, max_open=2, stale_after_s=300) is not None
        assert await store.create_session(*args, max_open=2, stale_after_s=300) is None
    finally:
        await store.close()
    with sqlite3.connect(world.db) as conn:  # one of them started, and last reported, an hour ago
        conn.execute("UPDATE sessions SET started_at = '2000-01-01T00:00:00.000+00:00' WHERE rowid = "
                     "(SELECT MIN(rowid) FROM sessions)")
    store = await Store.open(world.db)
    try:
        assert await store.create_session(*args, max_open=2, stale_after_s=300) is not None
        assert await store.create_session(*args, max_open=2, stale_after_s=300) is None
        assert await store.create_session(*args, max_open=0) is not None  # 0: no limit
    finally:
        await store.close()
