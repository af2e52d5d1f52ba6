"""Shared fixtures: a database with accounts, secrets and avatars; the app through aiohttp's test client; the
service as a real process (``python -m essence2_service serve --port 0``)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import queue
import secrets
import signal
import struct
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


def imx_file(sections: list[tuple[str, int, bytes, int]], width: int, height: int, version: int = 1) -> bytes:
    """An .imx file (docs/imx-format.md) of ``sections`` (name, encoding, stored bytes, decoded length), laid
    out and checksummed as the writer does."""
    table = b""
    offset = 64 + 80 * len(sections)
    for name, encoding, stored, length in sections:
        table += struct.pack("<16sIIQQQ32s", name.encode(), encoding, 0, offset, len(stored), length,
                             hashlib.sha256(stored).digest())
        offset += len(stored)
    head = IMX_MAGIC + struct.pack("<IIQII", version, len(sections), offset, width, height)
    return head + hashlib.sha256(head + table).digest() + table + b"".join(s[2] for s in sections)


def imx_sections(width: int = 4, height: int = 4, extra: int = 0) -> list[tuple[str, int, bytes, int]]:
    """The sections of a small avatar whose structure is valid (its landmarks are not), random pixels, and
    ``extra`` random bytes in a section of another name (readers ignore it)."""
    manifest = json.dumps({"format": "essence2-avatar", "version": 1, "name": "test", "width": width,
                           "height": height, "seed": "0x1", "headBox": [0, 0, 2, 2]}).encode()
    image = secrets.token_bytes(width * height * 3)
    mesh = struct.pack("<II", 478, 1) + bytes(12 * 478) + struct.pack("<HHH", 0, 1, 2)
    mask = rle8(bytes(width * height))
    sections = [("manifest", 0, manifest, len(manifest)), ("image", 0, image, len(image)),
                ("landmarks", 0, bytes(16), 16), ("mesh", 0, mesh, len(mesh)),
                ("headMask", 1, mask, width * height)]
    if extra:
        sections.append(("padding", 0, secrets.token_bytes(extra), extra))
    return sections


def rle8(data: bytes) -> bytes:
    """``data`` in rle8: runs of 3 to 130 equal bytes repeated, the rest as literals (at most 128 a block)."""
    out, i = bytearray(), 0
    while i < len(data):
        run = 1
        while i + run < len(data) and run < 130 and data[i + run] == data[i]:
            run += 1
        if run >= 3:
            out += bytes([run + 125, data[i]])
            i += run
        else:
            literal = data[i:i + min(128, len(data) - i)]
            out += bytes([len(literal) - 1]) + literal
            i += len(literal)
    return bytes(out)


def imx_bytes(version: int = 1, size: int = 4096) -> bytes:
    """A version 1 .imx file valid in structure (random pixels: unique), of at least ``size`` bytes; for another
    version, the magic bytes and that version followed by random bytes (registered with --format-version)."""
    if version != 1:
        return IMX_MAGIC + version.to_bytes(4, "little") + secrets.token_bytes(size - 12)
    return imx_file(imx_sections(extra=max(1, size - 6000)), 4, 4)


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


@pytest.fixture(autouse=True)
def no_inspect_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """``avatar add`` without an essence2 command to inspect with (the test files' landmarks are not real), even
    where one is on PATH; the tests of that check choose one."""
    monkeypatch.setenv("ESSENCE2_CLI", "")


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
