"""The HTTP service (aiohttp): the protocol of docs/service-protocol.md."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import NoReturn

from aiohttp import web

from . import credentials
from .limits import STALE_REPORT_INTERVALS, ConnectionGuard, Limits, RateLimiter, retry_after
from .openapi import MAX_SECONDS, OPENAPI
from .storage import Avatar, Principal, ReportOutcome, StartKeyConflict, Store

log = logging.getLogger("essence2_service")

STORE: web.AppKey[Store] = web.AppKey("store", Store)
REPORT_INTERVAL: web.AppKey[int] = web.AppKey("report_interval_s", int)
LIMITS: web.AppKey[Limits] = web.AppKey("limits", Limits)
GUARD: web.AppKey[ConnectionGuard] = web.AppKey("connection_guard", ConnectionGuard)
LIMITER: web.AppKey[RateLimiter] = web.AppKey("rate_limiter", RateLimiter)

MAX_BODY = 64 * 1024
SHA256_PATTERN = re.compile(r"^[0-9a-fA-F]{64}$")
START_KEY_PATTERN = re.compile(r"^[\x21-\x7e]{1,128}$")  # Idempotency-Key: 1 to 128 visible ASCII characters
_CODES = {401: "INVALID_SECRET", 403: "AGENT_NOT_ENTITLED", 404: "NOT_FOUND", 409: "SESSION_CLOSED"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ApiError(Exception):
    def __init__(self, status: int, reason: str, code: str | None = None,
                 headers: dict[str, str] | None = None, close: bool = False) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.code = code
        self.headers = headers or {}
        self.close = close  # close the connection after answering (a body that did not arrive in time)


def error_response(status: int, reason: str, code: str | None = None) -> web.Response:
    if code is None:
        code = _CODES.get(status, "BAD_REQUEST" if status < 500 else "INTERNAL")
    return web.json_response({"error": code, "reason": reason}, status=status)


@web.middleware
async def connection_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Tells the connection guard that a request is in progress on this connection (its headers are in)."""
    guard = request.app[GUARD]
    guard.started(request.protocol)
    try:
        return await handler(request)
    finally:
        guard.finished(request.protocol)


def bad(reason: str, status: int = 400) -> NoReturn:
    raise ApiError(status, reason)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure gets the protocol's body: {"error": CODE, "reason": SENTENCE}."""
    try:
        return await handler(request)
    except ApiError as exc:
        response = error_response(exc.status, exc.reason, exc.code)
        response.headers.update(exc.headers)
        if exc.close:
            # The rest of the body is not waited for: answer, then close the connection.
            response.force_close()
            await response.prepare(request)
            await response.write_eof()
            if request.transport is not None:
                request.transport.close()
        return response
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        response = error_response(exc.status, exc.reason or "request refused")
        if "Allow" in exc.headers:
            response.headers["Allow"] = exc.headers["Allow"]
        return response
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("internal error on %s %s", request.method, request.path)
        return error_response(500, "internal error of the service")


# -- request helpers ---------------------------------------------------------------------------------------


async def authenticate(request: web.Request) -> Principal:
    secret = credentials.bearer_secret(request.headers.get("Authorization"))
    principal = await request.app[STORE].authenticate(secret)
    if principal is None:
        reason = "missing API secret" if secret is None else "unknown or revoked API secret"
        raise ApiError(401, reason)
    wait = request.app[LIMITER].take(principal.account_id)
    if wait > 0:
        limiter = request.app[LIMITER]
        raise ApiError(429, f"too many requests for this account (at most {limiter.rate:g} a second, "
                       f"{limiter.burst} at once): retry in {retry_after(wait)} s", "RATE_LIMITED",
                       {"Retry-After": retry_after(wait)})
    return principal


async def json_object(request: web.Request) -> dict[str, object]:
    timeout = request.app[LIMITS].body_timeout
    try:
        async with asyncio.timeout(timeout if timeout > 0 else None):
            raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        bad(f"the body is larger than {MAX_BODY} bytes", 413)
    except TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {timeout:g} s", close=True) from None
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        bad("the body is not valid UTF-8 JSON")
    if not isinstance(body, dict):
        bad("the body must be a JSON object")
    return body


def string_field(body: dict[str, object], name: str, max_len: int, required: bool,
                 printable: bool = False) -> str | None:
    """The string ``name`` of ``body``; with ``printable``, control and other unprintable characters (C0, DEL,
    C1, format characters such as bidirectional overrides, line and paragraph separators; every space but
    U+0020) are refused (422), so that stored identifiers cannot carry terminal escapes or hidden text."""
    value = body.get(name)
    if value is None:
        if required:
            bad(f"{name} is required")
        if name in body:
            bad(f"{name} must be a string")
        return None
    if not isinstance(value, str):
        bad(f"{name} must be a string")
    if not 1 <= len(value) <= max_len:
        bad(f"{name} must be 1 to {max_len} characters", 422)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        bad(f"{name} is not valid Unicode", 422)
    if printable and not value.isprintable():
        bad(f"{name} must not contain control characters", 422)
    return value


def seconds_field(body: dict[str, object], name: str) -> int:
    if name not in body:
        bad(f"{name} is required")
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, int):
        bad(f"{name} must be a whole number of seconds")
    if not 0 <= value <= MAX_SECONDS:
        bad(f"{name} must be between 0 and {MAX_SECONDS}", 422)
    return value


# -- handlers ----------------------------------------------------------------------------------------------


async def health(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def openapi(request: web.Request) -> web.Response:
    return web.json_response(OPENAPI)


async def create_session(request: web.Request) -> web.Response:
    principal = await authenticate(request)
    body = await json_object(request)
    sha256 = string_field(body, "avatar_sha256", 64, required=True)
    assert sha256 is not None
    if not SHA256_PATTERN.match(sha256):
        bad("avatar_sha256 must be 64 hexadecimal digits", 422)
    sha256 = sha256.lower()
    install_id = string_field(body, "install_id", 128, required=True, printable=True)
    assert install_id is not None
    string_field(body, "avatar_name", 256, required=False)  # checked, not stored
    client = string_field(body, "client", 128, required=False, printable=True)
    start_key = request.headers.get("Idempotency-Key")
    if start_key is not None and not START_KEY_PATTERN.match(start_key):
        bad("Idempotency-Key must be 1 to 128 visible ASCII characters (a UUID, say)", 422)

    store = request.app[STORE]
    avatar = await store.avatar_by_sha256(sha256)
    code = avatar.code if avatar is not None else None
    if not await store.is_entitled(principal, code):
        raise ApiError(403, "this account may not use this avatar")
    limits = request.app[LIMITS]
    try:
        session_id = await store.create_session(
            principal, sha256, code, install_id, client, max_open=limits.max_open_sessions,
            stale_after_s=STALE_REPORT_INTERVALS * request.app[REPORT_INTERVAL], start_key=start_key,
        )
    except StartKeyConflict:
        bad("this Idempotency-Key was used for a session start with another avatar_sha256 or install_id", 422)
    if session_id is None:
        raise ApiError(429, f"this account already has {limits.max_open_sessions} open sessions, the most it may "
                       "have: end one (its final usage report) before starting another", "SESSION_LIMIT")
    return web.json_response(
        {"session_id": session_id, "report_interval_s": request.app[REPORT_INTERVAL], "avatar_code": code},
        status=201,
    )


async def report_usage(request: web.Request) -> web.Response:
    principal = await authenticate(request)
    session_id = request.match_info["session_id"]
    body = await json_object(request)
    seconds = seconds_field(body, "seconds")
    talking = seconds_field(body, "talking_seconds")
    idle = seconds_field(body, "idle_seconds")
    final = body.get("final", False)
    if not isinstance(final, bool):
        bad("final must be true or false")
    if seconds != talking + idle:
        bad("seconds must equal talking_seconds + idle_seconds", 422)

    result = await request.app[STORE].report_usage(principal, session_id, seconds, talking, idle, final)
    if result.outcome is ReportOutcome.NOT_FOUND:
        raise ApiError(404, "no such session")
    if result.outcome is ReportOutcome.CLOSED:
        raise ApiError(409, "the session is closed: its final report was received")
    return web.json_response(
        {"session_id": session_id, "billed_seconds": result.billed_seconds, "closed": result.closed}
    )


async def _entitled_avatar(request: web.Request) -> Avatar:
    """The newest version of the code in the path, when the account may use it.

    404 both when there is no such code and when the account may not use it, with the same reason and the same
    queries: a secret does not learn which codes exist. (Starting a session is still refused with 403
    AGENT_NOT_ENTITLED: it names an avatar by the sha256 of a file the client holds, and answers 403 whether or
    not that sha256 is registered.)
    """
    principal = await authenticate(request)
    store = request.app[STORE]
    code = request.match_info["code"]
    avatar = await store.newest_avatar(code)
    entitled = await store.is_entitled(principal, code)
    if avatar is None or not entitled:
        raise ApiError(404, "no avatar with this code for this account")
    return avatar


async def avatar_metadata(request: web.Request) -> web.Response:
    avatar = await _entitled_avatar(request)
    return web.json_response(avatar.metadata())


async def avatar_file(request: web.Request) -> web.StreamResponse:
    avatar = await _entitled_avatar(request)
    path = request.app[STORE].avatar_file(avatar)
    try:
        handle = await asyncio.to_thread(open, path, "rb")
    except OSError:
        log.error("the file of avatar %s (%s) is missing: %s", avatar.code, avatar.sha256, path)
        return error_response(500, "the avatar's file is missing on the service")
    try:
        response = web.StreamResponse(
            headers={
                "Content-Type": "application/octet-stream",
                "ETag": f'"{avatar.sha256}"',
                "X-Essence2-Sha256": avatar.sha256,
            }
        )
        response.content_length = avatar.size
        await response.prepare(request)
        if request.method != "HEAD":
            while chunk := await asyncio.to_thread(handle.read, 256 * 1024):
                await response.write(chunk)
        await response.write_eof()
        return response
    finally:
        handle.close()


# -- the application ---------------------------------------------------------------------------------------


def create_app(db_path: Path | str, report_interval_s: int = 30, limits: Limits | None = None) -> web.Application:
    limits = limits or Limits()
    app = web.Application(middlewares=[connection_middleware, errors_middleware], client_max_size=MAX_BODY)
    app[REPORT_INTERVAL] = report_interval_s
    app[LIMITS] = limits
    app[GUARD] = ConnectionGuard(limits.header_timeout)
    app[LIMITER] = RateLimiter(limits.rate, limits.burst)

    async def store_ctx(app: web.Application) -> AsyncIterator[None]:
        app[STORE] = await Store.open(db_path)
        yield
        await app[STORE].close()

    app.cleanup_ctx.append(store_ctx)
    app.router.add_get("/v1/health", health)
    app.router.add_get("/openapi.json", openapi)
    app.router.add_post("/v1/sessions", create_session)
    app.router.add_post("/v1/sessions/{session_id}/usage", report_usage)
    app.router.add_get("/v1/avatars/{code}", avatar_metadata)
    app.router.add_get("/v1/avatars/{code}/file", avatar_file)
    return app
