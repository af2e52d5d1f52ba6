"""The command line: ``serve`` (the default) and the admin commands.

Operator mistakes print ``error: ...`` on stderr and exit 1 (2 for a malformed command line), no traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from aiohttp import web

from . import __version__
from .app import GUARD, create_app
from .limits import Limits
from .migrations import MigrationError
from .storage import Store, StoreError, default_db_path

COMMANDS = ("serve", "account", "secret", "avatar", "entitle", "usage")


def _db_default() -> Path:
    env = os.environ.get("ESSENCE2_SERVICE_DB")
    return Path(env) if env else default_db_path()


def _env_number(name: str, default: float) -> float:
    """A limit's default: the environment variable ``name`` when set (a number), else ``default``."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        return float(value)
    except ValueError:
        raise SystemExit(f"error: {name} must be a number, not {value!r}") from None


LIMIT_OPTIONS = (
    # option, environment variable, default, type, help
    ("--header-timeout", "ESSENCE2_SERVICE_HEADER_TIMEOUT", Limits.header_timeout, float,
     "close a connection without a complete request line and headers (or idle between requests) after S "
     "seconds"),
    ("--body-timeout", "ESSENCE2_SERVICE_BODY_TIMEOUT", Limits.body_timeout, float,
     "answer 408 and close when a request body is not complete after S seconds"),
    ("--max-open-sessions", "ESSENCE2_SERVICE_MAX_OPEN_SESSIONS", Limits.max_open_sessions, int,
     "open sessions per account (429 SESSION_LIMIT beyond)"),
    ("--rate", "ESSENCE2_SERVICE_RATE", Limits.rate, float,
     "requests a second per account over time (429 RATE_LIMITED beyond)"),
    ("--burst", "ESSENCE2_SERVICE_BURST", Limits.burst, int, "requests per account at once, 1 or more"),
)


def build_parser() -> argparse.ArgumentParser:
    # --db is accepted before or after the command; SUPPRESS keeps a subcommand from erasing the top-level one.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", type=Path, default=argparse.SUPPRESS, help="the SQLite database")

    parser = argparse.ArgumentParser(
        prog="python -m essence2_service",
        description="The essence2 reference service and its admin commands.",
    )
    parser.add_argument("--db", type=Path, default=None,
                        help=f"the SQLite database (default: $ESSENCE2_SERVICE_DB or {default_db_path()})")
    parser.add_argument("--version", action="version", version=f"essence2-service {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", parents=[common], help="run the HTTP service (the default command)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8787, help="port (default: 8787; 0 picks a free one)")
    serve.add_argument("--report-interval", type=int, default=30, metavar="S",
                       help="report_interval_s told to clients (default: 30)")
    serve.add_argument("--access-log", action="store_true", help="log every request on stderr")
    for option, env, default, kind, text in LIMIT_OPTIONS:
        value = kind(_env_number(env, default))
        off = "" if option == "--burst" else "; 0: no limit"
        serve.add_argument(option, type=kind, default=value, metavar="S" if "timeout" in option else "N",
                           help=f"{text} (default: ${env} or {default:g}{off})")

    account = sub.add_parser("account", parents=[common], help="accounts")
    account_sub = account.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = account_sub.add_parser("create", parents=[common], help="create an account")
    create.add_argument("name")
    create.add_argument("--any-avatar", action="store_true",
                        help="the account may use any avatar, registered or not (customers build their own)")

    secret = sub.add_parser("secret", parents=[common], help="API secrets")
    secret_sub = secret.add_subparsers(dest="action", metavar="ACTION", required=True)
    screate = secret_sub.add_parser("create", parents=[common], help="create a secret (printed once)")
    screate.add_argument("account")
    revoke = secret_sub.add_parser("revoke", parents=[common], help="revoke a secret")
    revoke.add_argument("secret_or_id", metavar="SECRET_OR_ID")

    avatar = sub.add_parser("avatar", parents=[common], help="avatars")
    avatar_sub = avatar.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = avatar_sub.add_parser("add", parents=[common], help="register a version of an avatar")
    add.add_argument("code")
    add.add_argument("file", type=Path)
    add.add_argument("--name", help="the name shown to clients (default: the file's name)")
    add.add_argument("--format-version", type=int,
                     help="default: read from the .imx header; needed (and then unchecked) for a file of a "
                          "version the essence2 command does not read, or without the .imx magic bytes")
    add.add_argument("--inspect-with", metavar="COMMAND",
                     help="the essence2 command whose 'avatar inspect --json' checks the file (default: "
                          "$ESSENCE2_CLI, else essence2 on PATH; without one no .imx file is registered)")

    entitle = sub.add_parser("entitle", parents=[common], help="let an account use an avatar (all its versions)")
    entitle.add_argument("account")
    entitle.add_argument("code")

    usage = sub.add_parser("usage", parents=[common], help="usage per account")
    usage.add_argument("--account", help="only this account")
    usage.add_argument("--json", action="store_true", help="JSON instead of a table")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # serve is the default command (its options may then be given alone: --port 0).
    if not set(COMMANDS) & set(args_list) and not {"-h", "--help", "--version"} & set(args_list):
        args_list.insert(0, "serve")
    args = build_parser().parse_args(args_list)
    db: Path = args.db if args.db is not None else _db_default()
    try:
        if args.command == "serve":
            return _serve(args, db)
        return asyncio.run(_admin(args, db))
    except (StoreError, MigrationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


# -- serve -------------------------------------------------------------------------------------------------


def _serve(args: argparse.Namespace, db: Path) -> int:
    if not 0 <= args.port <= 65535:
        print("error: --port must be 0 to 65535", file=sys.stderr)
        return 2
    if not 1 <= args.report_interval <= 86400:
        print("error: --report-interval must be 1 to 86400 seconds", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO if args.access_log else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if not args.access_log:
        # aiohttp logs a traceback for each malformed HTTP request (already answered 400): noise, not a fault of
        # the service. Faults of the service are logged by essence2_service's own logger.
        logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    limits = Limits(args.header_timeout, args.body_timeout, args.max_open_sessions, args.rate, args.burst)
    if min(limits.header_timeout, limits.body_timeout, limits.max_open_sessions, limits.rate) < 0 or limits.burst < 1:
        print("error: --header-timeout, --body-timeout, --max-open-sessions and --rate must be 0 (no limit) or "
              "more, --burst 1 or more", file=sys.stderr)
        return 2
    return asyncio.run(_run_server(db, args.host, args.port, args.report_interval, args.access_log, limits))


async def _run_server(db: Path, host: str, port: int, report_interval: int, access_log: bool,
                      limits: Limits | None = None) -> int:
    app = create_app(db, report_interval, limits)
    runner = web.AppRunner(app, access_log=logging.getLogger("aiohttp.access") if access_log else None,
                           handle_signals=False)
    await runner.setup()  # opens the database and migrates it; StoreError goes up to main()
    server = runner.server
    assert server is not None
    watch = asyncio.create_task(app[GUARD].watch(lambda: server.connections))
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            print(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        # The handlers first: whoever reads the line below may signal at once.
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        bound_port = runner.addresses[0][1]
        shown = f"[{host}]" if ":" in host else host
        print(f"listening on http://{shown}:{bound_port}", flush=True)
        await stop.wait()
        return 0
    finally:
        watch.cancel()
        await runner.cleanup()


# -- admin commands ----------------------------------------------------------------------------------------


async def _admin(args: argparse.Namespace, db: Path) -> int:
    store = await Store.open(db)
    try:
        command: Callable[[Store, argparse.Namespace], Awaitable[int]] = _ADMIN[(args.command, getattr(args, "action", None))]
        return await command(store, args)
    finally:
        await store.close()


async def _account_create(store: Store, args: argparse.Namespace) -> int:
    account = await store.create_account(args.name, args.any_avatar)
    print(f"account {account.name!r} created" + (" (any avatar)" if account.any_avatar else ""))
    return 0


async def _secret_create(store: Store, args: argparse.Namespace) -> int:
    secret_id, secret = await store.create_secret(args.account)
    print(secret, flush=True)
    print(f"secret {secret_id} for account {args.account!r}: keep it now, it is not stored and cannot be "
          f"shown again (revoke with: secret revoke {secret_id})", file=sys.stderr)
    return 0


async def _secret_revoke(store: Store, args: argparse.Namespace) -> int:
    secret_id = await store.revoke_secret(args.secret_or_id)
    print(f"secret {secret_id} revoked")
    return 0


async def _avatar_add(store: Store, args: argparse.Namespace) -> int:
    avatar = await store.add_avatar(args.code, args.file, args.name, args.format_version, args.inspect_with)
    checked = f"kind {avatar.kind}" if avatar.kind else "unchecked"
    print(f"avatar {avatar.code!r}: {avatar.name!r} sha256 {avatar.sha256} size {avatar.size} "
          f"format_version {avatar.format_version} {checked}")
    return 0


async def _entitle(store: Store, args: argparse.Namespace) -> int:
    added = await store.entitle(args.account, args.code)
    print(f"account {args.account!r} {'is now' if added else 'was already'} entitled to avatar {args.code!r}")
    return 0


async def _usage(store: Store, args: argparse.Namespace) -> int:
    rows = await store.usage(args.account)
    if args.json:
        print(json.dumps([r.as_dict() for r in rows], indent=2))
        return 0
    header = ("ACCOUNT", "SESSIONS", "OPEN", "BILLED_S", "TALKING_S", "IDLE_S")
    table = [header] + [
        (r.account, str(r.sessions), str(r.open_sessions), str(r.billed_seconds), str(r.talking_seconds),
         str(r.idle_seconds))
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    return 0


_ADMIN: dict[tuple[str, str | None], Callable[[Store, argparse.Namespace], Awaitable[int]]] = {
    ("account", "create"): _account_create,
    ("secret", "create"): _secret_create,
    ("secret", "revoke"): _secret_revoke,
    ("avatar", "add"): _avatar_add,
    ("entitle", None): _entitle,
    ("usage", None): _usage,
}
