"""Shared fixtures: a database with accounts, secrets and avatars; the app through aiohttp's test client; the
service as a real process (``python -m essence2_service serve --port 0``)."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import secrets
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from essence2_service.app import STORE, create_app
from essence2_service.storage import IMX_MAGIC, Store

STARTUP_TIMEOUT_S = 20


def imx_bytes(version: int = 1, size: int = 4096) -> bytes:
    """The magic bytes and ``version`` followed by random bytes (unique): what the service reads of a file itself.
    Whether it is a valid avatar is the essence2 command's verdict (``stub_essence2``; the real command reads the
    shipped avatars in test_avatar_add.py)."""
    return IMX_MAGIC + version.to_bytes(4, "little") + secrets.token_bytes(size - 12)


VALID = {"valid": True, "kind": "photoreal", "name": "stub"}


def stub_essence2(directory: Path, answer: dict[str, object] | None = None, status: int | None = None,
                  log: Path | None = None) -> Path:
    """An ``essence2`` stand-in in ``directory`` whose ``avatar inspect --json FILE`` prints ``answer`` (default:
    valid, photoreal) and exits ``status`` (default: 0 when valid, else 4, as the command does); with ``log``,
    each FILE it is given is appended there."""
    answer = VALID if answer is None else answer
    status = (0 if answer.get("valid") else 4) if status is None else status
    command = directory / f"essence2-stub-{secrets.token_hex(4)}"
    record = f'echo "$4" >> {shlex.quote(str(log))}\n' if log else ""
    command.write_text(
        "#!/bin/sh\n"
        "[ \"$1 $2 $3\" = 'avatar inspect --json' ] || { echo \"stub: unexpected arguments: $*\" >&2; exit 2; }\n"
        f"{record}echo {shlex.quote(json.dumps(answer))}\nexit {status}\n")
    command.chmod(0o755)
    return command


@dataclass
class World:
    """What the fixtures registered: secrets by account name, avatar files and their sha256."""

    db: Path
    secrets: dict[str, str] = field(default_factory=dict)
    secret_ids: dict[str, str] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)  # sha256 -> bytes
    sha: dict[str, str] = field(default_factory=dict)  # "grace-v1", "grace-v2", "astro" -> sha256

    def auth(self, account: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secrets[account]}"}


async def populate(db: Path, tmp: Path) -> World:
    """acme: entitled to grace (2 versions); free: any_avatar; other: nothing."""
    world = World(db)
    store = await Store.open(db)
    try:
        for name, any_avatar in (("acme", False), ("free", True), ("other", False)):
            await store.create_account(name, any_avatar)
            world.secret_ids[name], world.secrets[name] = await store.create_secret(name)
        for key, code, version in (("grace-v1", "grace-hopper", 1), ("grace-v2", "grace-hopper", 2),
                                   ("astro", "astronaut", 1)):
            data = imx_bytes(version)
            path = tmp / f"{key}.imx"
            path.write_bytes(data)
            avatar = await store.add_avatar(code, path, format_version=None if version == 1 else version)
            world.files[avatar.sha256] = data
            world.sha[key] = avatar.sha256
        await store.entitle("acme", "grace-hopper")
    finally:
        await store.close()
    return world


@pytest.fixture(scope="session")
def valid_stub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stub_essence2(tmp_path_factory.mktemp("stub"))


@pytest.fixture(autouse=True)
def essence2_stub(valid_stub: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``avatar add`` checks with a stand-in that finds every file valid (the tests' files are random bytes after
    the header), even where a real essence2 is on PATH; the tests of that check choose their command."""
    monkeypatch.setenv("ESSENCE2_CLI", str(valid_stub))
    return valid_stub


@pytest.fixture
async def world(tmp_path: Path) -> World:
    return await populate(tmp_path / "service.sqlite3", tmp_path)


@pytest.fixture
async def client(world: World, aiohttp_client: Any) -> TestClient:
    return await aiohttp_client(create_app(world.db))


@pytest.fixture
def store(client: TestClient) -> Store:
    return client.server.app[STORE]


def session_body(sha256: str, **extra: object) -> dict[str, object]:
    return {"avatar_sha256": sha256, "avatar_name": "grace-hopper.imx",
            "install_id": "5f0c1f0e-3d4b-4c47-9a51-6b0f2b8f0a11", "client": "essence2/1.1.0", **extra}


# -- the service as a process --------------------------------------------------------------------------------


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str
    world: World

    def stop(self, timeout: float = 10) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            raise


def cli(db: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m essence2_service --db DB ARGS`` and returns the completed process."""
    result = subprocess.run([sys.executable, "-m", "essence2_service", "--db", str(db), *args],
                            capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}): {result.stderr}")
    return result


def start_server(db: Path, world: World, env: dict[str, str] | None = None) -> Server:
    """``serve --port 0`` on ``db``; ``env`` adds environment variables (the limits: ESSENCE2_SERVICE_...)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "essence2_service", "serve", "--db", str(db), "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    threading.Thread(target=lambda: lines.put(process.stdout.readline() if process.stdout else ""),
                     daemon=True).start()
    try:
        line = lines.get(timeout=STARTUP_TIMEOUT_S)
    except queue.Empty:
        process.kill()
        raise AssertionError("the service did not print its listening line in time") from None
    if not line.startswith("listening on http://"):
        process.kill()
        _, err = process.communicate(timeout=5)
        raise AssertionError(f"unexpected first line {line!r}; stderr: {err}")
    return Server(process, line.strip().removeprefix("listening on "), world)


@pytest.fixture
def server_env() -> dict[str, str]:
    """Environment variables of the ``server`` fixture's process (a test overrides it to set limits)."""
    return {}


@pytest.fixture
def server(tmp_path: Path, server_env: dict[str, str]) -> Iterator[Server]:
    world = asyncio.run(populate(tmp_path / "service.sqlite3", tmp_path))
    srv = start_server(world.db, world, server_env)
    try:
        yield srv
    finally:
        if srv.process.poll() is None:
            srv.process.kill()
            srv.process.wait(5)


@pytest.fixture
async def http() -> AsyncIterator[Any]:
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session:
        yield session
