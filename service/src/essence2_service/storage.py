"""SQLite storage (through aiosqlite): accounts, secrets, avatars, entitlements, sessions and their usage.

One connection per process, in WAL mode. aiosqlite runs every statement of a connection on one thread, and
an ``asyncio.Lock`` keeps each operation (a transaction of several statements) whole, so writes are
serialized inside the process; ``BEGIN IMMEDIATE`` plus a busy timeout serialize them against other
processes (the admin CLI revoking a secret while the service runs).

Avatar files are stored next to the database, content-addressed: ``<db>.avatars/<sha256>``.

File modes do not depend on the umask: a new database is 0600 (it holds the secrets' hashes and the usage;
SQLite gives its -wal and -shm files the database's mode), and an existing one loses any permission for others
(the owner's and group's are kept, for operators who share it with a group on purpose); the avatar folder is
0755 when created here and the avatar files 0644, so that a service running as another user than the admin
command can serve them (they are what the service hands to every entitled client anyway).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
import secrets
import sqlite3
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum
from pathlib import Path

import aiosqlite

from . import credentials, imx
from .migrations import migrate

log = logging.getLogger("essence2_service")

CODE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SESSION_ID_PATTERN = re.compile(r"^s_[A-Za-z0-9_-]{32}$")
IMX_MAGIC = imx.MAGIC
DB_MODE = 0o600
AVATAR_DIR_MODE = 0o755
AVATAR_FILE_MODE = 0o644


class StoreError(Exception):
    """An operator mistake (unknown account, duplicate name, ...): the message says what to do."""


class StartKeyConflict(Exception):
    """A session start whose Idempotency-Key the account already used for another avatar or install_id."""


@dataclass(frozen=True)
class Principal:
    """Who a valid secret belongs to."""

    account_id: int
    account_name: str
    any_avatar: bool
    secret_id: str


@dataclass(frozen=True)
class Avatar:
    id: int
    code: str
    name: str
    sha256: str
    size: int
    format_version: int
    # Which engine the library said the file is for when it was added ("character" or "photoreal"): not stored
    # (the protocol does not carry it, the client's library reads it from the file); None when read back, or for
    # a file registered unchecked.
    kind: str | None = None

    def metadata(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "sha256": self.sha256,
            "size": self.size,
            "format_version": self.format_version,
        }


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    any_avatar: bool


@dataclass(frozen=True)
class AccountUsage:
    account: str
    any_avatar: bool
    sessions: int
    open_sessions: int
    billed_seconds: int
    talking_seconds: int
    idle_seconds: int

    def as_dict(self) -> dict[str, object]:
        return {
            "account": self.account,
            "any_avatar": self.any_avatar,
            "sessions": self.sessions,
            "open_sessions": self.open_sessions,
            "billed_seconds": self.billed_seconds,
            "talking_seconds": self.talking_seconds,
            "idle_seconds": self.idle_seconds,
        }


class ReportOutcome(Enum):
    OK = "ok"
    NOT_FOUND = "not_found"
    CLOSED = "closed"


@dataclass(frozen=True)
class ReportResult:
    outcome: ReportOutcome
    billed_seconds: int = 0
    closed: bool = False


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "essence2-service" / "service.sqlite3"


class Store:
    def __init__(self, path: Path, db: aiosqlite.Connection) -> None:
        self.path = path
        self.files_dir = path.with_name(path.name + ".avatars")
        self._db = db
        self._lock: asyncio.Lock | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------

    @classmethod
    async def open(cls, path: Path | str) -> Store:
        """Opens (creating if needed) the database and applies the pending migrations."""
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _create_private(path)
            db = await aiosqlite.connect(path, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the database {path}: {exc}") from exc
        try:
            await db.execute("PRAGMA busy_timeout = 10000")
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute("PRAGMA synchronous = NORMAL")
            await db.execute("PRAGMA foreign_keys = ON")
            await migrate(db)
            _no_access_for_others(path)
        except sqlite3.DatabaseError as exc:
            await db.close()
            raise StoreError(f"cannot use the database {path}: {exc}") from exc
        except BaseException:
            await db.close()
            raise
        return cls(path, db)

    async def close(self) -> None:
        await self._db.close()

    @property
    def lock(self) -> asyncio.Lock:
        # Created lazily, inside the running event loop.
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self.lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    async def _one(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Row | None:
        async with self.lock:
            async with self._db.execute(sql, params) as cur:
                row: sqlite3.Row | None = await cur.fetchone()
                return row

    # -- admin -------------------------------------------------------------------------------------------

    async def create_account(self, name: str, any_avatar: bool = False) -> Account:
        name = name.strip()
        if not name or len(name) > 128 or not name.isprintable():
            raise StoreError("an account name is 1 to 128 printable characters")
        async with self._transaction() as db:
            try:
                cur = await db.execute(
                    "INSERT INTO accounts (name, any_avatar, created_at) VALUES (?, ?, ?)",
                    (name, int(any_avatar), now()),
                )
            except sqlite3.IntegrityError:
                raise StoreError(f"an account named {name!r} already exists") from None
            account_id = cur.lastrowid
        assert account_id is not None
        return Account(account_id, name, any_avatar)

    async def account(self, name: str) -> Account:
        row = await self._one("SELECT id, name, any_avatar FROM accounts WHERE name = ?", (name,))
        if row is None:
            raise StoreError(f"no account named {name!r} (create it with: account create {name})")
        return Account(int(row[0]), str(row[1]), bool(row[2]))

    async def create_secret(self, account_name: str) -> tuple[str, str]:
        """Returns (secret id, secret). The secret itself is not stored and cannot be shown again."""
        account = await self.account(account_name)
        secret_id, secret, digest = credentials.new_secret()
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO api_secrets (id, account_id, secret_hash, created_at) VALUES (?, ?, ?, ?)",
                (secret_id, account.id, digest, now()),
            )
        return secret_id, secret

    async def revoke_secret(self, secret_or_id: str) -> str:
        parsed = credentials.parse_secret_or_id(secret_or_id)
        if parsed is None:
            raise StoreError("give the secret (e2_...) or its id (12 hex digits)")
        secret_id, secret = parsed
        async with self._transaction() as db:
            async with db.execute("SELECT secret_hash, revoked_at FROM api_secrets WHERE id = ?", (secret_id,)) as c:
                row = await c.fetchone()
            if row is None or (secret is not None and not credentials.matches(secret, bytes(row[0]))):
                raise StoreError(f"no such secret: {secret_id}")
            if row[1] is None:
                await db.execute("UPDATE api_secrets SET revoked_at = ? WHERE id = ?", (now(), secret_id))
        return secret_id

    async def add_avatar(
        self, code: str, file: Path, name: str | None = None, format_version: int | None = None,
        inspect_with: str | None = None,
    ) -> Avatar:
        """Registers ``file`` as a version of ``code``.

        A file with the .imx magic bytes is checked by the library: ``inspect_with``, the path of the ``essence2``
        command (default: ``imx.default_command()``, ``$ESSENCE2_CLI`` else ``essence2`` on PATH), runs ``avatar
        inspect --json`` on it, every check of the library's reader for both kinds of avatar, and a file it
        refuses is refused with its reason. Without a command nothing is registered. A file of a format version
        that command does not read, or without the magic bytes, is registered only with an explicit
        ``format_version`` (it must be the header's), unchecked. The check runs on the copy that is then
        registered, not on ``file``, which could change meanwhile.
        """
        if not CODE_PATTERN.match(code):
            raise StoreError("an avatar code is 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit)")
        if format_version is not None and not 1 <= format_version <= 1_000_000:
            raise StoreError("--format-version must be a positive integer")
        name = (name if name is not None else file.name).strip()
        if not name or len(name) > 256 or not name.isprintable():
            raise StoreError("an avatar name is 1 to 256 printable characters")
        if not self.files_dir.is_dir():
            self.files_dir.mkdir(parents=True, exist_ok=True)
            os.chmod(self.files_dir, AVATAR_DIR_MODE)
        digest = hashlib.sha256()
        size = 0
        try:
            with open(file, "rb") as src, tempfile.NamedTemporaryFile(dir=self.files_dir, delete=False) as tmp:
                try:
                    while chunk := src.read(1 << 20):
                        digest.update(chunk)
                        size += len(chunk)
                        tmp.write(chunk)
                    tmp.flush()
                    os.fchmod(tmp.fileno(), AVATAR_FILE_MODE)  # NamedTemporaryFile makes 0600
                    os.fsync(tmp.fileno())
                except BaseException:
                    os.unlink(tmp.name)
                    raise
        except OSError as exc:
            raise StoreError(f"cannot read {file}: {exc.strerror or exc}") from None
        try:
            version, kind = await asyncio.to_thread(_check_avatar, file, Path(tmp.name), format_version,
                                                    inspect_with)
        except BaseException:
            os.unlink(tmp.name)
            raise
        sha256 = digest.hexdigest()
        os.replace(tmp.name, self.files_dir / sha256)
        async with self._transaction() as db:
            async with db.execute("SELECT code FROM avatars WHERE sha256 = ?", (sha256,)) as cur:
                row = await cur.fetchone()
            if row is not None:
                raise StoreError(f"this file ({sha256}) is already registered, as avatar {row[0]!r}")
            cur = await db.execute(
                "INSERT INTO avatars (code, name, sha256, size, format_version, added_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (code, name, sha256, size, version, now()),
            )
            avatar_id = cur.lastrowid
        assert avatar_id is not None
        return Avatar(avatar_id, code, name, sha256, size, version, kind)

    async def entitle(self, account_name: str, code: str) -> bool:
        """Entitles the account to every version of the avatar code; False when it already was."""
        account = await self.account(account_name)
        if await self.newest_avatar(code) is None:
            raise StoreError(f"no avatar with code {code!r} (add it with: avatar add {code} FILE)")
        async with self._transaction() as db:
            cur = await db.execute(
                "INSERT OR IGNORE INTO entitlements (account_id, avatar_code, created_at) VALUES (?, ?, ?)",
                (account.id, code, now()),
            )
            return cur.rowcount == 1

    async def usage(self, account_name: str | None = None) -> list[AccountUsage]:
        if account_name is not None:
            await self.account(account_name)
        sql = (
            "SELECT a.name, a.any_avatar, COUNT(s.id), COUNT(s.id) - COUNT(s.closed_at),"
            " COALESCE(SUM(s.seconds), 0), COALESCE(SUM(s.talking_seconds), 0), COALESCE(SUM(s.idle_seconds), 0)"
            " FROM accounts a LEFT JOIN sessions s ON s.account_id = a.id"
            + (" WHERE a.name = ?" if account_name is not None else "")
            + " GROUP BY a.id ORDER BY a.name"
        )
        async with self.lock:
            async with self._db.execute(sql, (account_name,) if account_name is not None else ()) as cur:
                rows = await cur.fetchall()
        return [AccountUsage(str(r[0]), bool(r[1]), *(int(v) for v in r[2:])) for r in rows]

    # -- the service -------------------------------------------------------------------------------------

    async def authenticate(self, secret: str | None) -> Principal | None:
        """The account of a valid, unrevoked secret; None otherwise."""
        if secret is None:
            return None
        secret_id = credentials.secret_id_of(secret)
        row = None
        if secret_id is not None:
            row = await self._one(
                "SELECT s.secret_hash, s.revoked_at, a.id, a.name, a.any_avatar"
                " FROM api_secrets s JOIN accounts a ON a.id = s.account_id WHERE s.id = ?",
                (secret_id,),
            )
        ok = credentials.matches(secret, bytes(row[0]) if row is not None else None)
        if not ok or row is None or row[1] is not None or secret_id is None:
            return None
        return Principal(int(row[2]), str(row[3]), bool(row[4]), secret_id)

    async def avatar_by_sha256(self, sha256: str) -> Avatar | None:
        row = await self._one(
            "SELECT id, code, name, sha256, size, format_version FROM avatars WHERE sha256 = ?", (sha256,)
        )
        return _avatar(row)

    async def newest_avatar(self, code: str) -> Avatar | None:
        if not CODE_PATTERN.match(code):
            return None
        row = await self._one(
            "SELECT id, code, name, sha256, size, format_version FROM avatars WHERE code = ?"
            " ORDER BY id DESC LIMIT 1",
            (code,),
        )
        return _avatar(row)

    async def is_entitled(self, principal: Principal, code: str | None) -> bool:
        if principal.any_avatar:
            return True
        if code is None:
            return False
        row = await self._one(
            "SELECT 1 FROM entitlements WHERE account_id = ? AND avatar_code = ?", (principal.account_id, code)
        )
        return row is not None

    def avatar_file(self, avatar: Avatar) -> Path:
        return self.files_dir / avatar.sha256

    async def create_session(
        self, principal: Principal, avatar_sha256: str, avatar_code: str | None, install_id: str, client: str | None,
        max_open: int = 0, stale_after_s: int = 0, start_key: str | None = None,
    ) -> str | None:
        """The new session's id; None when the account already has ``max_open`` open sessions (0: no limit).

        A session counts as open until its final report, or, with ``stale_after_s``, until it has gone that long
        without a report (its client is gone).

        With ``start_key`` (the request's Idempotency-Key), a start the account already made with that key is
        answered with that session's id (whether open or closed since; not counted again against ``max_open``),
        provided it names the same avatar and install_id (``StartKeyConflict`` otherwise).
        """
        session_id = "s_" + secrets.token_urlsafe(24)
        async with self._transaction() as db:
            if start_key is not None:
                async with db.execute(
                    "SELECT id, avatar_sha256, install_id FROM sessions WHERE account_id = ? AND start_key = ?",
                    (principal.account_id, start_key),
                ) as cur:
                    row = await cur.fetchone()
                if row is not None:
                    if (str(row[1]), str(row[2])) != (avatar_sha256, install_id):
                        raise StartKeyConflict()
                    return str(row[0])
            if max_open > 0:
                sql = "SELECT COUNT(*) FROM sessions WHERE account_id = ? AND closed_at IS NULL"
                params: tuple[object, ...] = (principal.account_id,)
                if stale_after_s > 0:
                    cutoff = (datetime.now(UTC) - timedelta(seconds=stale_after_s)).isoformat(timespec="milliseconds")
                    sql += " AND COALESCE(last_report_at, started_at) >= ?"
                    params += (cutoff,)
                async with db.execute(sql, params) as cur:
                    row = await cur.fetchone()
                if row is not None and int(row[0]) >= max_open:
                    return None
            await db.execute(
                "INSERT INTO sessions (id, account_id, secret_id, avatar_sha256, avatar_code, install_id, client,"
                " started_at, start_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, principal.account_id, principal.secret_id, avatar_sha256, avatar_code, install_id,
                 client, now(), start_key),
            )
        return session_id

    async def report_usage(
        self, principal: Principal, session_id: str, seconds: int, talking: int, idle: int, final: bool
    ) -> ReportResult:
        """Records a cumulative report: keeps the largest (by seconds, then talking seconds), closes on final."""
        if not SESSION_ID_PATTERN.match(session_id):
            return ReportResult(ReportOutcome.NOT_FOUND)
        async with self._transaction() as db:
            async with db.execute(
                "SELECT account_id, seconds, talking_seconds, closed_at FROM sessions WHERE id = ?", (session_id,)
            ) as cur:
                row = await cur.fetchone()
            if row is None or int(row[0]) != principal.account_id:
                return ReportResult(ReportOutcome.NOT_FOUND)
            if row[3] is not None:
                return ReportResult(ReportOutcome.CLOSED, int(row[1]), True)
            billed = int(row[1])
            stamp = now()
            if (seconds, talking) > (billed, int(row[2])):
                billed = seconds
                await db.execute(
                    "UPDATE sessions SET seconds = ?, talking_seconds = ?, idle_seconds = ? WHERE id = ?",
                    (seconds, talking, idle, session_id),
                )
            await db.execute(
                "UPDATE sessions SET last_report_at = ?, closed_at = ? WHERE id = ?",
                (stamp, stamp if final else None, session_id),
            )
        return ReportResult(ReportOutcome.OK, billed, final)


def _check_avatar(file: Path, copy: Path, format_version: int | None,
                  inspect_with: str | None) -> tuple[int, str | None]:
    """The format version to register ``copy`` (of ``file``) with and the kind the library found (None when
    registered unchecked), after the checks of ``Store.add_avatar``."""
    try:
        version = imx.read_version(copy)
    except OSError as exc:
        raise StoreError(f"cannot read {copy}: {exc.strerror or exc}") from None
    if format_version is not None:
        if version is None:
            return format_version, None  # not an .imx file: registered unchecked, as asked
        if format_version != version:
            raise StoreError(f"{file} is .imx format version {version}, not --format-version {format_version}")
    command = inspect_with or imx.default_command()
    if not command:
        raise StoreError(f"cannot check {file}: no essence2 command to read it with (give --inspect-with "
                         f"PATH/TO/essence2, set {imx.COMMAND_ENV}, or put essence2 on PATH; the library reads the "
                         f".imx format, this service does not)")
    try:
        verdict = imx.inspect(command, copy)
    except imx.InspectFailed as exc:
        raise StoreError(f"cannot check {file}: {exc}") from None
    except imx.ImxError as exc:
        reason = f"{exc.reason.replace(str(copy), str(file))} ({exc.kind})"  # the library names the copy
        if version is None:
            raise StoreError(f"{file} is not a valid .imx avatar: {reason}; give --format-version to register it "
                             f"anyway, unchecked") from None
        if exc.kind == "version":
            if format_version is not None:
                return version, None
            raise StoreError(f"{file} is .imx format version {version}, which {command} does not read: {reason}; "
                             f"give --format-version {version} to register it unchecked") from None
        raise StoreError(f"{file} is not a valid .imx avatar: {reason}") from None
    if version is None:  # read by the library, but without the header this service takes the version from
        raise StoreError(f"{file} is a {verdict.kind} avatar to {command}, but has no .imx header to read its "
                         f"format version from: give --format-version")
    return version, verdict.kind


def _create_private(path: Path) -> None:
    """Creates ``path`` empty with mode 0600 (whatever the umask) when it does not exist; SQLite takes an empty
    file for a new database."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, DB_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, DB_MODE)
    finally:
        os.close(fd)


def _no_access_for_others(path: Path) -> None:
    """Takes every permission for others from the database and its -wal and -shm files."""
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            mode = file.stat().st_mode & 0o7777
            if mode & 0o007:
                os.chmod(file, mode & ~0o007)
        except FileNotFoundError:
            continue
        except PermissionError:
            log.warning("cannot take the permissions for others from %s (not its owner)", file)


def _avatar(row: sqlite3.Row | None) -> Avatar | None:
    if row is None:
        return None
    return Avatar(int(row[0]), str(row[1]), str(row[2]), str(row[3]), int(row[4]), int(row[5]))
