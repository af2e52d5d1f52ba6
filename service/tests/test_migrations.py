"""Versioned migrations: applied once, recorded in schema_version, refused when the database is newer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from essence2_service.migrations import available, migrate
from essence2_service.storage import Store, StoreError

TABLES = {"accounts", "api_secrets", "avatars", "entitlements", "sessions", "schema_version"}


def tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def versions(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return [(int(r[0]), str(r[1])) for r in conn.execute("SELECT version, name FROM schema_version ORDER BY version")]


async def test_fresh_database_gets_the_schema(tmp_path: Path) -> None:
    db = tmp_path / "fresh.sqlite3"
    store = await Store.open(db)
    await store.close()
    assert TABLES <= tables(db)
    assert versions(db) == [(m.version, m.name) for m in available()] == [(1, "initial"), (2, "open_sessions"), (3, "session_start_key")]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_reopening_does_not_reapply(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    store = await Store.open(db)
    await store.create_account("acme")
    await store.close()
    store = await Store.open(db)  # would fail on CREATE TABLE if it re-applied
    assert [u.account for u in await store.usage()] == ["acme"]
    await store.close()
    async with aiosqlite.connect(db, isolation_level=None) as conn:
        assert await migrate(conn) == []
    assert versions(db) == [(1, "initial"), (2, "open_sessions"), (3, "session_start_key")]


async def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    await (await Store.open(db)).close()
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99, 'future', '2030-01-01')")
    with pytest.raises(Exception, match="newer than this service knows"):
        await Store.open(db)


async def test_not_a_database(tmp_path: Path) -> None:
    db = tmp_path / "junk.sqlite3"
    db.write_bytes(b"junk" * 1000)
    with pytest.raises(StoreError):
        await Store.open(db)


async def test_a_version_1_database_gets_the_open_sessions_index(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    await (await Store.open(db)).close()
    with sqlite3.connect(db) as conn:  # as the 0.1.0 service left it
        conn.execute("DROP INDEX sessions_open")
        conn.execute("DROP INDEX sessions_start_key")
        conn.execute("ALTER TABLE sessions DROP COLUMN start_key")
        conn.execute("DELETE FROM schema_version WHERE version >= 2")
    await (await Store.open(db)).close()
    assert versions(db) == [(1, "initial"), (2, "open_sessions"), (3, "session_start_key")]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'sessions_open'").fetchone()
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'sessions_start_key'").fetchone()
