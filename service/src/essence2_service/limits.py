"""Limits against slow and greedy clients: read timeouts, and per-account open sessions and request rate.

- ``header_timeout``: a connection with no request in progress (nothing sent yet, a request line and headers
  not complete, or idle between keep-alive requests) is closed after this many seconds, however slowly it
  sends. ``ConnectionGuard`` does it, from the server's list of connections (``serve`` runs it).
- ``body_timeout``: a request body not complete after this many seconds is answered 408 and the connection
  closed (``app.json_object``).
- ``max_open_sessions``: sessions an account may have open at once (429 ``SESSION_LIMIT`` beyond). A session
  is open until its final report, or until it has gone ``STALE_REPORT_INTERVALS`` report intervals without a
  report (a client that crashed never sends its final report; its sessions stop counting then).
- ``rate`` and ``burst``: requests a second an account may make over time, and at once (a token bucket per
  account, in memory; 429 ``RATE_LIMITED`` with ``Retry-After`` beyond).

0 turns a limit off.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

STALE_REPORT_INTERVALS = 10


@dataclass(frozen=True)
class Limits:
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_open_sessions: int = 200
    rate: float = 20.0
    burst: int = 100


class _Connection(Protocol):
    def force_close(self) -> None: ...

    def __hash__(self) -> int: ...


class ConnectionGuard:
    """Closes connections that have had no request in progress for ``header_timeout`` seconds.

    The application's middleware reports each request's start and end (``started``/``finished``); ``watch``
    looks at the server's connections a few times a second and closes those idle past the timeout, counted
    from when the guard first saw the connection or from the end of its last request. A request whose
    headers never complete is never started, so a slow or stalled sender is closed on time.
    """

    def __init__(self, header_timeout: float) -> None:
        self.header_timeout = header_timeout
        # Keyed by the connection objects themselves (aiohttp's have no weak references); entries of closed
        # connections are dropped at each sweep. Nothing is kept while no watch runs.
        self._busy: dict[object, int] = {}
        self._idle_since: dict[object, float] = {}
        self._watching = False
        self.closed = 0

    def started(self, connection: object) -> None:
        if self._watching:
            self._busy[connection] = self._busy.get(connection, 0) + 1

    def finished(self, connection: object) -> None:
        if self._watching:
            self._busy[connection] = max(0, self._busy.get(connection, 1) - 1)
            self._idle_since[connection] = time.monotonic()

    def sweep(self, connections: Iterable[_Connection], now: float | None = None) -> int:
        """Closes the connections idle past the timeout; returns how many."""
        now = time.monotonic() if now is None else now
        live = set(connections)
        for gone in [c for c in self._idle_since if c not in live]:
            del self._idle_since[gone]
        for gone in [c for c in self._busy if c not in live]:
            del self._busy[gone]
        closed = 0
        for connection in live:
            if self._busy.get(connection, 0) > 0:
                continue
            since = self._idle_since.setdefault(connection, now)
            if now - since >= self.header_timeout:
                connection.force_close()
                del self._idle_since[connection]
                closed += 1
        self.closed += closed
        return closed

    async def watch(self, connections: Callable[[], Iterable[_Connection]]) -> None:
        """Sweeps ``connections()`` a few times a second until cancelled."""
        if self.header_timeout <= 0:
            return
        tick = min(0.5, self.header_timeout / 4)
        self._watching = True
        try:
            while True:
                await asyncio.sleep(tick)
                self.sweep(connections())
        finally:
            self._watching = False
            self._busy.clear()
            self._idle_since.clear()


class RateLimiter:
    """A token bucket per key (an account): ``rate`` tokens a second, at most ``burst`` kept."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self._buckets: dict[object, tuple[float, float]] = {}

    def take(self, key: object, now: float | None = None) -> float:
        """0 when the request may go on (a token is taken); otherwise the seconds until one is available."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1 - tokens) / self.rate


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
