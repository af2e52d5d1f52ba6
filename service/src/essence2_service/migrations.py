"""Versioned schema migrations: ``migrations/NNNN_name.sql``, applied in order at start.

Each applied migration is recorded in ``schema_version``; a migration runs in one transaction together with
its ``schema_version`` row, so a crash leaves the database at the previous version, never half-migrated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources

import aiosqlite

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class MigrationError(RuntimeError):
    """The database cannot be brought to this service's schema."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available() -> list[Migration]:
    """The migrations shipped with the package, by version."""
    found: list[Migration] = []
    for entry in resources.files("essence2_service").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise MigrationError(f"migrations must be numbered 0001, 0002, ... without gaps, found {versions}")
    return found


async def current_version(db: aiosqlite.Connection) -> int:
    async with db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ) as cur:
        if await cur.fetchone() is None:
            return 0
    async with db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(db: aiosqlite.Connection) -> list[int]:
    """Applies the pending migrations; returns the versions applied (empty when up to date).

    The connection must be in autocommit mode (``isolation_level=None``)."""
    migrations = available()
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    have = await current_version(db)
    if have > len(migrations):
        raise MigrationError(
            f"the database is at schema version {have}, newer than this service knows "
            f"({len(migrations)}); upgrade essence2-service"
        )
    applied: list[int] = []
    for migration in migrations[have:]:
        await db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated between our check and the lock.
            if await current_version(db) >= migration.version:
                await db.execute("COMMIT")
                continue
            for statement in _statements(migration.sql):
                await db.execute(statement)
            await db.execute(
                "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, datetime.now(UTC).isoformat(timespec="seconds")),
            )
            await db.execute("COMMIT")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        applied.append(migration.version)
    return applied


def _statements(sql: str) -> list[str]:
    """Splits a migration into statements (no triggers in our migrations, so ';' ends a statement)."""
    lines = [line for line in sql.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
