"""essence2.sessions against a stub of the service protocol (docs/service-protocol.md) on loopback."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import essence2
import essence2.sessions as sessions

REPO = Path(__file__).resolve().parents[2]
AVATAR = REPO / "avatars" / "grace-hopper.imx"
SECRET = "e2_test_secret_for_the_stub"


class Stub:
    """The protocol's answers for one account entitled to one avatar, "grace"; records what it was sent."""

    def __init__(self, entitled: bool = True) -> None:
        self.entitled = entitled
        self.data = AVATAR.read_bytes()
        self.sha = hashlib.sha256(self.data).hexdigest()
        self.requests: list[tuple[str, str, dict[str, Any] | None]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def answer(self, status: int, body: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def allowed(self) -> bool:
                if self.headers.get("Authorization") != f"Bearer {SECRET}":
                    self.answer(401, json.dumps({"error": "INVALID_SECRET", "reason": "unknown secret"}).encode())
                    return False
                if not stub.entitled:
                    self.answer(403, json.dumps({"error": "AGENT_NOT_ENTITLED",
                                                 "reason": "the account may not use this avatar"}).encode())
                    return False
                return True

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                stub.requests.append(("POST", self.path, body))
                if not self.allowed():
                    return
                if self.path == "/v1/sessions":
                    self.answer(201, json.dumps({"session_id": "s1", "report_interval_s": 30,
                                                 "avatar_code": "grace"}).encode())
                else:
                    self.answer(200, json.dumps({"session_id": "s1", "billed_seconds": body.get("seconds", 0),
                                                 "closed": body.get("final", False)}).encode())

            def do_GET(self) -> None:
                stub.requests.append(("GET", self.path, None))
                if not self.allowed():
                    return
                if self.path == "/v1/avatars/grace":
                    self.answer(200, json.dumps({"code": "grace", "name": "Grace Hopper", "sha256": stub.sha,
                                                 "size": len(stub.data), "format_version": 1}).encode())
                elif self.path == "/v1/avatars/grace/file":
                    self.answer(200, stub.data, "application/octet-stream")
                else:
                    self.answer(404, json.dumps({"error": "NOT_FOUND", "reason": "no such avatar"}).encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stub]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    stub = Stub()
    sessions.set_service_url(stub.url)
    sessions.set_api_secret(SECRET)
    try:
        yield stub
    finally:
        sessions.set_service_url(None)
        sessions.set_api_secret(None)
        stub.close()


def test_a_url_that_is_not_http_is_refused_with_the_reason() -> None:
    with pytest.raises(essence2.Essence2Error) as caught:
        sessions.set_service_url("ftp://example.org")
    assert caught.value.code == -1 and caught.value.reason


def test_without_a_service_a_download_says_none_is_configured() -> None:
    sessions.set_service_url("")
    try:
        with pytest.raises(essence2.Essence2Error) as caught:
            sessions.download_avatar("grace")
        assert caught.value.code == -2 and "service" in caught.value.reason
    finally:
        sessions.set_service_url(None)


def test_an_accepted_session_renders_and_reports_its_final_usage(service: Stub) -> None:
    with essence2.Essence2(str(AVATAR), pacing="unpaced") as engine:
        engine.push_audio(b"\0\0" * 16000, sample_rate=16000)
        engine.flush()
        assert len(list(engine.frames_until_idle())) >= 25
    opened = [r for r in service.requests if r[1] == "/v1/sessions"]
    assert len(opened) == 1 and opened[0][2] is not None
    assert opened[0][2]["avatar_sha256"] == service.sha
    reports = [r[2] for r in service.requests if r[1].endswith("/usage") and r[2] is not None]
    assert reports and reports[-1]["final"] is True
    # nothing but the protocol's fields leaves the machine
    assert set(opened[0][2]) <= {"avatar_sha256", "avatar_name", "install_id", "client"}
    assert set(reports[-1]) == {"seconds", "talking_seconds", "idle_seconds", "final"}


def test_an_account_not_entitled_is_refused_naming_agent_not_entitled(service: Stub) -> None:
    service.entitled = False
    with pytest.raises(essence2.SessionRefused) as caught:
        essence2.Essence2(str(AVATAR), pacing="unpaced")
    assert "AGENT_NOT_ENTITLED" in caught.value.reason


def test_a_download_is_checked_cached_and_found_again(service: Stub, tmp_path: Path) -> None:
    path = sessions.download_avatar("grace", tmp_path / "avatars")
    assert path.read_bytes() == service.data and service.sha in path.name
    files = [r for r in service.requests if r[1] == "/v1/avatars/grace/file"]
    again = sessions.download_avatar("grace", tmp_path / "avatars")
    assert again == path
    assert [r for r in service.requests if r[1] == "/v1/avatars/grace/file"] == files
    with pytest.raises(essence2.Essence2Error) as caught:
        sessions.download_avatar("nobody", tmp_path / "avatars")
    assert caught.value.code == -2
