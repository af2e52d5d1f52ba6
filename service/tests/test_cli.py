"""The admin commands: a round trip, and clear errors without tracebacks."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from conftest import cli, imx_bytes, session_body
from essence2_service.app import create_app
from essence2_service.cli import main


def run(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--db", str(db), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "data" / "service.sqlite3"  # the folder is created
    avatar = tmp_path / "grace.imx"
    avatar.write_bytes(imx_bytes(3))
    assert run(capsys, db, "account", "create", "acme")[0] == 0
    assert run(capsys, db, "account", "create", "builders", "--any-avatar")[0] == 0
    code, secret, err = run(capsys, db, "secret", "create", "acme")
    secret = secret.strip()
    assert code == 0 and secret.startswith("e2_") and "cannot be shown again" in err
    code, out, _ = run(capsys, db, "avatar", "add", "grace", str(avatar), "--name", "Grace", "--format-version", "3")
    assert code == 0 and "format_version 3" in out
    code, out, _ = run(capsys, db, "avatar", "add", "grace", str(tmp_path / "grace.imx"), "--db", str(db))
    assert code == 1  # the same file twice
    assert run(capsys, db, "entitle", "acme", "grace")[0] == 0
    code, out, _ = run(capsys, db, "entitle", "acme", "grace")
    assert code == 0 and "already" in out

    sha = hashlib.sha256(avatar.read_bytes()).hexdigest()

    async def use() -> None:
        async with TestClient(TestServer(create_app(db))) as client:
            resp = await client.post("/v1/sessions", json=session_body(sha),
                                     headers={"Authorization": f"Bearer {secret}"})
            assert resp.status == 201
            sid = (await resp.json())["session_id"]
            resp = await client.post(f"/v1/sessions/{sid}/usage", headers={"Authorization": f"Bearer {secret}"},
                                     json={"seconds": 61, "talking_seconds": 20, "idle_seconds": 41, "final": True})
            assert resp.status == 200

    asyncio.run(use())

    code, out, _ = run(capsys, db, "usage")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["ACCOUNT", "SESSIONS", "OPEN", "BILLED_S", "TALKING_S", "IDLE_S"]
    assert lines[1].split() == ["acme", "1", "0", "61", "20", "41"]
    assert lines[2].split() == ["builders", "0", "0", "0", "0", "0"]
    code, out, _ = run(capsys, db, "usage", "--json", "--account", "acme")
    assert json.loads(out) == [{"account": "acme", "any_avatar": False, "sessions": 1, "open_sessions": 0,
                                "billed_seconds": 61, "talking_seconds": 20, "idle_seconds": 41}]
    code, out, _ = run(capsys, db, "secret", "revoke", secret)
    assert code == 0 and "revoked" in out


@pytest.mark.parametrize("args", [
    ["secret", "create", "nobody"],
    ["entitle", "nobody", "grace"],
    ["usage", "--account", "nobody"],
    ["avatar", "add", "grace", "/nonexistent/file.imx"],
    ["avatar", "add", "bad code!", "/etc/hostname"],
    ["secret", "revoke", "e2_0123456789ab"],
    ["secret", "revoke", "whatever"],
])
def test_mistakes_are_clear_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    code, _, err = run(capsys, tmp_path / "db.sqlite3", *args)
    assert code == 1 and err.startswith("error: ") and "Traceback" not in err


def test_errors_as_a_process(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    result = cli(db, "entitle", "acme", "grace", check=False)
    assert result.returncode == 1 and result.stderr.startswith("error: no account named 'acme'")
    assert "Traceback" not in result.stderr
    result = cli(db, "account", check=False)  # no action: argparse's usage error
    assert result.returncode == 2 and "Traceback" not in result.stderr
    result = cli(db, "serve", "--port", "70000", check=False)
    assert result.returncode == 2 and "error: --port" in result.stderr
    (tmp_path / "garbage.sqlite3").write_bytes(b"not a database" * 100)
    result = cli(tmp_path / "garbage.sqlite3", "usage", check=False)
    assert result.returncode == 1 and result.stderr.startswith("error: ") and "Traceback" not in result.stderr
