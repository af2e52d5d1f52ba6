"""File modes, whatever the umask: the database (and its -wal, -shm) 0600, avatar files 0644 in a 0755 folder."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import imx_bytes
from essence2_service.storage import Store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o077, 0o000], ids=["umask022", "umask077", "umask000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


async def test_a_new_database_is_private_and_avatar_files_are_readable(tmp_path: Path, umask: int) -> None:
    db = tmp_path / "service.sqlite3"
    avatar = tmp_path / "grace.imx"
    avatar.write_bytes(imx_bytes())
    store = await Store.open(db)
    try:
        await store.create_account("acme")
        added = await store.add_avatar("grace", avatar)
        assert mode(db) == 0o600
        for suffix in ("-wal", "-shm"):
            wal = db.with_name(db.name + suffix)
            assert wal.exists() and mode(wal) == 0o600, suffix
        assert mode(store.files_dir) == 0o755
        assert mode(store.avatar_file(added)) == 0o644  # the service may run as another user than this command
    finally:
        await store.close()


async def test_an_existing_database_loses_the_permissions_of_others(tmp_path: Path) -> None:
    db = tmp_path / "service.sqlite3"
    await (await Store.open(db)).close()
    os.chmod(db, 0o664)  # as the 0.1.0 service left it under umask 002, or an operator sharing it with a group
    await (await Store.open(db)).close()
    assert mode(db) == 0o660
