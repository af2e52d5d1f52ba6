"""The service under load, on loopback: many engines' sessions at once, as the library's metering client sends them.

Each simulated engine (``Engine``) opens a session (``POST /v1/sessions``), sends cumulative usage reports
(``POST /v1/sessions/{id}/usage``, figures that only grow, ``seconds = talking + idle``) and closes it with a
final report, as ``Sources/Essence2Service/Metering/SessionMeter.swift`` does; a request that gets no answer
(connection refused or reset, 408, 429) is sent again until it is answered, as the library retries. Every request
is timed by kind (session, report, final).

Checks, after the run, on the service's database and its ``usage --json``:

- no 5xx, no answer the protocol does not allow;
- billed sums exact: every session's stored ``seconds``/``talking_seconds``/``idle_seconds`` are the figures of its
  client's final report, every session is closed, and each account's billed total is the sum of its clients'
  final seconds (``usage --json``); no other session is stored: a session start whose answer was lost (the service
  died) is sent again with the same ``Idempotency-Key`` and is the same session; nothing is billed twice;
- with ``kill_after``: the service is killed with SIGKILL once that many reports were acknowledged, and the
  database read at once, before the restart: every acknowledged session start is stored, and every acknowledged
  report is (its session holds at least those figures); then the service restarts on the same database and port
  and the clients carry on, retrying what was not answered.

Runs as a script (``make test-load``: 200 engines, 10,000 reports, a clean run and one with SIGKILL) and from
``test_load.py`` (a short run in ``make test-service``). Prints p50/p99 per kind and the totals.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from conftest import cli, imx_bytes, stub_essence2  # noqa: E402  (the fixtures' avatar files, CLI runner, checker)
from essence2_service.storage import Store  # noqa: E402

STARTUP_TIMEOUT_S = 20
RETRY_S = 0.05  # the library retries every 2 s; shorter here, so that a run after a restart stays short
REQUEST_TIMEOUT_S = 30
# The limits, raised through the documented options (service/README.md, Limits): the engines report far faster
# than every 30 s, and the killed run leaves sessions whose start was never answered open.
LOAD_LIMITS = ["--rate", "100000", "--burst", "100000", "--max-open-sessions", "10000"]
KINDS = ("session", "report", "final")


class LoadFailure(AssertionError):
    """A check of the load test failed."""


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    statuses: dict[int, int] = field(default_factory=dict)  # every answer's status, retries included
    errors_5xx: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    unanswered: int = 0  # requests with no answer (connection refused/reset while the service was down)
    retries: int = 0
    acknowledged_reports: int = 0
    replayed_finals: int = 0  # a final answered 409: the service stored it, its answer was lost (the kill)
    lost_answers: int = 0  # answers dropped on purpose (``lose``): the request is sent again

    def count(self, status: int) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1


@dataclass
class Engine:
    """One engine's metering: a session, ``reports`` usage reports, the last of them final."""

    index: int
    account: str
    secret: str
    avatar_sha256: str
    reports: int
    seed: int
    session_id: str | None = None
    abandoned_sessions: int = 0  # starts sent again after no answer (with the same Idempotency-Key)
    acked: tuple[int, int, int] = (0, 0, 0)  # the largest acknowledged (seconds, talking, idle)
    sent_final: tuple[int, int, int] | None = None
    closed: bool = False
    final_answer_lost: bool = False  # an attempt at the final got no answer (or it was dropped)

    def figures(self) -> list[tuple[int, int, int]]:
        """The cumulative figures of each report: a few seconds of talking and idle between reports."""
        rng = random.Random(self.seed)
        talking = idle = 0
        out = []
        for _ in range(self.reports):
            talking += rng.randint(0, 20)
            idle += rng.randint(0, 20)
            out.append((talking + idle, talking, idle))
        return out


class Service:
    """``python -m essence2_service serve`` on a fixed port of loopback, which can be killed and restarted."""

    def __init__(self, db: Path, port: int, extra: list[str]) -> None:
        self.db, self.port, self.extra = db, port, extra
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{port}"
        self.cpu_used = 0.0  # CPU seconds of the service's processes, counted when each is stopped or killed

    async def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "essence2_service", "serve", "--db", str(self.db), "--host", "127.0.0.1",
             "--port", str(self.port), *self.extra],
            stdout=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stdout is not None
        loop = asyncio.get_running_loop()
        line = await asyncio.wait_for(loop.run_in_executor(None, self.process.stdout.readline), STARTUP_TIMEOUT_S)
        if not line.startswith(b"listening on http://"):
            self.process.kill()
            raise LoadFailure(f"the service did not start: {line!r}")

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the running service process has used so far; 0 where /proc cannot say."""
        if self.process is None:
            return 0.0
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        assert self.process is not None
        self.cpu_used += self.cpu_seconds()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.cpu_used += self.cpu_seconds()
            self.process.send_signal(signal.SIGTERM)
            try:
                if self.process.wait(20) != 0:
                    raise LoadFailure(f"the service exited with status {self.process.returncode} on SIGTERM")
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise LoadFailure("the service did not stop on SIGTERM") from None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile ``p`` (0..100) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


class Run:
    """One load run: the engines against ``service``, with an optional SIGKILL and restart."""

    def __init__(self, service: Service, engines: list[Engine], think_s: float, kill_after: int | None,
                 lose: float = 0.0) -> None:
        self.service, self.engines, self.think_s, self.kill_after = service, engines, think_s, kill_after
        self.lose = lose
        self.stats = Stats()
        self.up = asyncio.Event()
        self.up.set()
        self.kill_check: dict[str, int] | None = None
        self.rng = random.Random(1)

    async def request(self, http: aiohttp.ClientSession, kind: str, path: str, engine: Engine,
                      body: dict[str, object], key: str | None = None) -> tuple[int, dict[str, object]]:
        """Sends until answered with something else than 408/429 (the library's "no answer": retry); ``key``, the
        Idempotency-Key, is the same in every attempt."""
        headers = {"Authorization": f"Bearer {engine.secret}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        while True:
            await self.up.wait()
            start = time.perf_counter()
            try:
                async with http.post(self.service.url + path, json=body, headers=headers) as r:
                    answer = await r.read()
                    status = r.status
            except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError):
                self.stats.unanswered += 1
                self.stats.retries += 1
                if kind == "session":
                    engine.abandoned_sessions += 1  # the service may have stored it before it died
                if kind == "final":
                    engine.final_answer_lost = True  # ... and a final: sent again, it may be answered 409
                await asyncio.sleep(RETRY_S)
                continue
            elapsed = time.perf_counter() - start
            self.stats.count(status)
            self.stats.latencies[kind].append(elapsed)
            if self.lose and status < 300 and self.rng.random() < self.lose:
                # The answer is lost on its way back (the service did the work): the client sends it again.
                self.stats.lost_answers += 1
                self.stats.retries += 1
                if kind == "session":
                    engine.abandoned_sessions += 1
                if kind == "final":
                    engine.final_answer_lost = True
                continue
            if status >= 500:
                self.stats.errors_5xx.append(f"{kind} {path}: {status} {answer[:200]!r}")
            if status in (408, 429) or status >= 500:
                self.stats.retries += 1
                await asyncio.sleep(RETRY_S)
                continue
            try:
                parsed = json.loads(answer)
            except ValueError:
                parsed = {}
            return status, parsed if isinstance(parsed, dict) else {}

    async def engine(self, http: aiohttp.ClientSession, engine: Engine) -> None:
        rng = random.Random(engine.seed)
        await asyncio.sleep(rng.uniform(0, self.think_s * 4))  # engines do not all start at the same instant
        status, body = await self.request(http, "session", "/v1/sessions", engine, {
            "avatar_sha256": engine.avatar_sha256, "avatar_name": "load.imx",
            "install_id": str(uuid.UUID(int=engine.seed)), "client": "essence2/load-test"},
            key=str(uuid.UUID(int=engine.seed + (1 << 64))))
        if status != 201 or not isinstance(body.get("session_id"), str):
            self.stats.unexpected.append(f"engine {engine.index}: session start answered {status} {body}")
            return
        engine.session_id = str(body["session_id"])
        figures = engine.figures()
        for n, (seconds, talking, idle) in enumerate(figures):
            final = n == len(figures) - 1
            if final:
                engine.sent_final = (seconds, talking, idle)
            await asyncio.sleep(rng.uniform(0, self.think_s))
            status, body = await self.request(
                http, "final" if final else "report", f"/v1/sessions/{engine.session_id}/usage", engine,
                {"seconds": seconds, "talking_seconds": talking, "idle_seconds": idle, "final": final})
            if status == 200:
                if body.get("billed_seconds") != seconds or body.get("closed") is not final:
                    self.stats.unexpected.append(f"engine {engine.index} report {n}: sent {seconds} s, answered {body}")
                engine.acked = (seconds, talking, idle)
                self.stats.acknowledged_reports += 1
                if final:
                    engine.closed = True
                await self.maybe_kill()
            elif status == 409 and final and engine.final_answer_lost:
                # A final the service stored but whose answer was lost (killed, timed out, dropped): the library
                # takes 409 as "session gone" and stops. The database check says whether the figures are the final's.
                engine.closed = True
                self.stats.replayed_finals += 1
            else:
                self.stats.unexpected.append(f"engine {engine.index} report {n}: {status} {body}")
                return

    async def maybe_kill(self) -> None:
        if self.kill_after is None or self.kill_check is not None or self.stats.acknowledged_reports < self.kill_after:
            return
        self.up.clear()  # no new request until the restart (those in flight fail, and are retried)
        self.service.kill()
        acked = {e.session_id: e.acked[0] for e in self.engines if e.session_id is not None}
        self.kill_check = check_acknowledged(self.service.db, acked)
        await self.service.start()
        self.up.set()

    async def run(self) -> float:
        connector = aiohttp.TCPConnector(limit=0)
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
        start = time.perf_counter()
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
            await asyncio.gather(*(self.engine(http, e) for e in self.engines))
        return time.perf_counter() - start


def check_acknowledged(db: Path, acked: dict[str, int]) -> dict[str, int]:
    """Right after the SIGKILL: every acknowledged session start is stored, with at least its acknowledged
    seconds. Returns what was checked."""
    con = sqlite3.connect(db)
    try:
        stored = dict(con.execute("SELECT id, seconds FROM sessions").fetchall())
    finally:
        con.close()
    missing = [s for s in acked if s not in stored]
    lost = [(s, acked[s], stored[s]) for s in acked if s in stored and stored[s] < acked[s]]
    if missing or lost:
        raise LoadFailure(f"after SIGKILL: {len(missing)} acknowledged sessions missing ({missing[:3]}), "
                          f"{len(lost)} with less than their acknowledged seconds ({lost[:3]})")
    return {"sessions": len(acked), "acknowledged_seconds": sum(acked.values())}


def check_billing(db: Path, engines: list[Engine]) -> dict[str, object]:
    """The stored figures are exactly the clients' final reports; totals per account agree with ``usage``."""
    con = sqlite3.connect(db)
    try:
        rows = {r[0]: r[1:] for r in con.execute(
            "SELECT s.id, a.name, s.seconds, s.talking_seconds, s.idle_seconds, s.closed_at"
            " FROM sessions s JOIN accounts a ON a.id = s.account_id")}
    finally:
        con.close()
    problems = []
    expected: dict[str, int] = {}
    ours = set()
    for e in engines:
        if e.session_id is None or e.sent_final is None or not e.closed:
            problems.append(f"engine {e.index} did not finish (session {e.session_id})")
            continue
        ours.add(e.session_id)
        row = rows.get(e.session_id)
        if row is None:
            problems.append(f"engine {e.index}: session {e.session_id} is not stored")
            continue
        if tuple(row[1:4]) != e.sent_final or row[4] is None or row[0] != e.account:
            problems.append(f"engine {e.index}: stored {row}, its final report was {e.sent_final}")
        expected[e.account] = expected.get(e.account, 0) + e.sent_final[0]
    orphans = {sid: row for sid, row in rows.items() if sid not in ours}
    billed_orphans = {sid: row for sid, row in orphans.items() if row[1] != 0}
    if billed_orphans:
        problems.append(f"sessions no client finished hold seconds: {list(billed_orphans.items())[:3]}")
    if orphans:  # a start sent again with its Idempotency-Key is the same session
        problems.append(f"{len(orphans)} sessions no client knows of ({list(orphans.items())[:3]})")
    usage = json.loads(cli(db, "usage", "--json").stdout)
    billed = {u["account"]: u["billed_seconds"] for u in usage}
    for account, total in expected.items():
        if billed.get(account) != total:
            problems.append(f"account {account}: billed {billed.get(account)} s, its clients' finals sum to {total}")
    if problems:
        raise LoadFailure("billing is not exact:\n  " + "\n  ".join(problems[:20]))
    return {"billed_seconds": sum(expected.values()), "accounts": expected, "sessions": len(ours),
            "orphan_sessions": len(orphans), "starts_sent_again": sum(e.abandoned_sessions for e in engines)}


async def setup(db: Path, tmp: Path, accounts: int) -> tuple[dict[str, str], str]:
    """The accounts (any_avatar off, entitled to one avatar) and their secrets; the avatar's sha256. In this
    process, through the store (what the admin commands do, without starting one process each)."""
    avatar = tmp / "load.imx"
    avatar.write_bytes(imx_bytes())
    store = await Store.open(db)
    secrets = {}
    try:
        registered = await store.add_avatar("load", avatar)
        for n in range(accounts):
            name = f"load{n}"
            await store.create_account(name)
            await store.entitle(name, "load")
            secrets[name] = (await store.create_secret(name))[1]
    finally:
        await store.close()
    return secrets, registered.sha256


def run_load(tmp: Path, sessions: int, reports: int, accounts: int = 4, kill_at: float | None = None,
             think_s: float = 0.005, seed: int = 7, quiet: bool = False, lose: float = 0.0) -> dict[str, object]:
    """One run: ``sessions`` engines over ``accounts`` accounts, ``reports`` usage reports in all (finals
    included); with ``kill_at`` (0..1), SIGKILL once that share of the reports is acknowledged; with ``lose``
    (0..1), that share of the successful answers is dropped by the client, which sends the request again (an
    answer lost in transit). Returns the figures; raises LoadFailure when a check fails."""
    if reports < sessions:
        raise ValueError("at least one report (the final one) per session")
    db = tmp / "service.sqlite3"
    secrets, sha = asyncio.run(setup(db, tmp, accounts))
    names = sorted(secrets)
    engines = [Engine(i, names[i % accounts], secrets[names[i % accounts]], sha,
                      reports // sessions + (1 if i < reports % sessions else 0), seed * 100_000 + i)
               for i in range(sessions)]
    service = Service(db, free_port(), LOAD_LIMITS)
    kill_after = None if kill_at is None else max(1, int(reports * kill_at))

    async def go() -> tuple[Run, float]:
        await service.start()
        run = Run(service, engines, think_s, kill_after, lose)
        try:
            wall = await run.run()
        finally:
            service.stop()
        return run, wall

    run, wall = asyncio.run(go())
    stats = run.stats
    result: dict[str, object] = {
        "sessions": sessions, "reports": reports, "accounts": accounts, "wall_s": round(wall, 2),
        "requests": sum(stats.statuses.values()), "statuses": dict(sorted(stats.statuses.items())),
        "5xx": len(stats.errors_5xx), "unanswered": stats.unanswered, "retries": stats.retries,
        "answers_lost_on_purpose": stats.lost_answers, "finals_answered_409": stats.replayed_finals,
        "service_cpu_s": round(service.cpu_used, 2),
        "service_cpu_ms_per_request": round(service.cpu_used * 1000 / max(1, sum(stats.statuses.values())), 3),
        "latency_ms": {k: {"n": len(v), "p50": round(percentile(v, 50) * 1000, 2),
                           "p99": round(percentile(v, 99) * 1000, 2), "max": round(max(v) * 1000, 2) if v else None}
                       for k, v in stats.latencies.items()},
    }
    if kill_after is not None:
        result["kill"] = {"after_acknowledged_reports": kill_after, "checked": run.kill_check}
    if not quiet:
        print(json.dumps(result, indent=1), flush=True)
    if stats.errors_5xx:
        raise LoadFailure(f"{len(stats.errors_5xx)} answers 5xx: {stats.errors_5xx[:5]}")
    if stats.unexpected:
        raise LoadFailure(f"{len(stats.unexpected)} unexpected answers: {stats.unexpected[:5]}")
    if kill_after is not None and run.kill_check is None:
        raise LoadFailure("the run ended before the kill")
    if stats.acknowledged_reports + stats.replayed_finals != reports:
        raise LoadFailure(f"{stats.acknowledged_reports} reports acknowledged (+{stats.replayed_finals} finals "
                          f"answered 409), {reports} sent")
    result["billing"] = check_billing(db, engines)
    if not quiet:
        print(json.dumps({"billing": result["billing"]}), flush=True)
    return result


def summary(label: str, r: dict[str, object]) -> str:
    lat = r["latency_ms"]
    assert isinstance(lat, dict)
    parts = [f"{label}: {r['sessions']} sessions, {r['reports']} reports, {r['requests']} answered requests in "
             f"{r['wall_s']} s, 5xx: {r['5xx']}, unanswered (service down): {r['unanswered']}",
             f"  service CPU: {r['service_cpu_s']} s, {r['service_cpu_ms_per_request']} ms a request (what the "
             f"latencies below cost when the machine is shared)"]
    for kind in KINDS:
        k = lat[kind]
        parts.append(f"  {kind:8s} n={k['n']:6d}  p50 {k['p50']:8.2f} ms  p99 {k['p99']:8.2f} ms  max {k['max']} ms")
    billing = r["billing"]
    assert isinstance(billing, dict)
    parts.append(f"  billed: {billing['billed_seconds']} s over {billing['sessions']} sessions, exactly the clients' "
                 f"finals; other sessions: {billing['orphan_sessions']} (starts sent again: "
                 f"{billing['starts_sent_again']})")
    if r["answers_lost_on_purpose"]:
        parts.append(f"  answers dropped by the clients (sent again): {r['answers_lost_on_purpose']}; finals sent again "
                     f"and answered 409 (already stored): {r['finals_answered_409']}")
    if "kill" in r:
        parts.append(f"  SIGKILL after {r['kill']['after_acknowledged_reports']} acknowledged reports: "  # type: ignore[index]
                     f"{r['kill']['checked']} all stored at once after the kill")  # type: ignore[index]
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--reports", type=int, default=10_000)
    parser.add_argument("--accounts", type=int, default=4)
    parser.add_argument("--kill-at", type=float, default=0.5, help="share of the reports acknowledged before the "
                        "SIGKILL of the second run (default 0.5)")
    parser.add_argument("--no-kill", action="store_true", help="only the clean run")
    parser.add_argument("--lose", type=float, default=0.01, help="share of the answers the clients of the SIGKILL "
                        "run drop and send again, as if lost in transit (default 0.01)")
    parser.add_argument("--think", type=float, default=0.005, metavar="S",
                        help="each engine waits up to S seconds before each report (default 0.005)")
    args = parser.parse_args()
    stub = tempfile.TemporaryDirectory(prefix="essence2-load-stub-")
    # The avatar is random bytes after the header: a stand-in for essence2 finds it valid (as in the pytest runs).
    os.environ["ESSENCE2_CLI"] = str(stub_essence2(Path(stub.name)))
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="essence2-load-") as d:
            results.append(("clean run", run_load(Path(d), args.sessions, args.reports, args.accounts,
                                                 think_s=args.think)))
        if not args.no_kill:
            with tempfile.TemporaryDirectory(prefix="essence2-load-") as d:
                results.append(("SIGKILL run", run_load(Path(d), args.sessions, args.reports, args.accounts,
                                                       kill_at=args.kill_at, think_s=args.think, seed=8,
                                                       lose=args.lose)))
    except LoadFailure as exc:
        print(f"load test FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        stub.cleanup()
    for label, r in results:
        print(summary(label, r))
    print("load test: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
