"""The service as a real process: ``python -m essence2_service serve --port 0``, loopback only."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import signal
from typing import Any

from conftest import Server, cli, session_body

CLIENTS = 20
REPORTS = 5


async def test_serve_answers_and_stops_on_sigterm(server: Server, http: Any) -> None:
    assert server.url.startswith("http://127.0.0.1:") and not server.url.endswith(":0")
    async with http.get(f"{server.url}/v1/health") as resp:
        assert resp.status == 200 and await resp.json() == {"status": "ok"}
    async with http.get(f"{server.url}/v1/avatars/grace-hopper/file", headers=server.world.auth("acme")) as resp:
        data = await resp.read()
        assert resp.status == 200 and hashlib.sha256(data).hexdigest() == resp.headers["X-Essence2-Sha256"]
    assert server.stop(timeout=5) == 0


async def test_sigint_stops_too(server: Server) -> None:
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(5) == 0


async def test_concurrent_clients_are_all_recorded(server: Server, http: Any) -> None:
    """20 clients create sessions and report at once (some reports late or repeated): usage sums exactly."""
    world = server.world
    rng = random.Random(7)
    plans = [[(rng.randint(0, 30), rng.randint(0, 30)) for _ in range(REPORTS)] for _ in range(CLIENTS)]

    async def one_client(i: int) -> tuple[int, int]:
        account = "acme" if i % 2 == 0 else "free"
        sha = world.sha["grace-v2"] if i % 4 else world.sha["grace-v1"]
        async with http.post(f"{server.url}/v1/sessions", json=session_body(sha), headers=world.auth(account)) as r:
            assert r.status == 201, await r.text()
            sid = (await r.json())["session_id"]
        talking = idle = 0
        cumulative = []
        for add_t, add_i in plans[i]:
            talking, idle = talking + add_t, idle + add_i
            cumulative.append((talking, idle))
        # Send them all at once, out of order, one twice: the largest must win.
        sends = cumulative[:-1] + [cumulative[1]]
        rng_local = random.Random(i)
        rng_local.shuffle(sends)

        async def send(t: int, d: int, final: bool = False) -> dict[str, Any]:
            body = {"seconds": t + d, "talking_seconds": t, "idle_seconds": d, "final": final}
            async with http.post(f"{server.url}/v1/sessions/{sid}/usage", json=body,
                                 headers=world.auth(account)) as resp:
                assert resp.status == 200, await resp.text()
                result: dict[str, Any] = await resp.json()
                return result

        await asyncio.gather(*(send(t, d) for t, d in sends))
        last = await send(*cumulative[-1], final=True)
        assert last == {"session_id": sid, "billed_seconds": talking + idle, "closed": True}
        return talking, idle

    results = await asyncio.gather(*(one_client(i) for i in range(CLIENTS)))
    expected = {"acme": [0, 0, 0], "free": [0, 0, 0]}
    for i, (talking, idle) in enumerate(results):
        totals = expected["acme" if i % 2 == 0 else "free"]
        totals[0] += 1
        totals[1] += talking
        totals[2] += idle
    # Read by the admin CLI, another process, while the service runs (WAL).
    usage = {row["account"]: row for row in json.loads(cli(world.db, "usage", "--json").stdout)}
    for account, (sessions, talking, idle) in expected.items():
        row = usage[account]
        assert (row["sessions"], row["open_sessions"]) == (sessions, 0)
        assert (row["talking_seconds"], row["idle_seconds"], row["billed_seconds"]) == (talking, idle, talking + idle)
    assert usage["other"]["sessions"] == 0
    assert server.stop() == 0


async def test_revocation_by_the_cli_is_seen_by_the_running_service(server: Server, http: Any) -> None:
    world = server.world
    async with http.post(f"{server.url}/v1/sessions", json=session_body(world.sha["grace-v2"]),
                         headers=world.auth("acme")) as r:
        sid = (await r.json())["session_id"]
    cli(world.db, "secret", "revoke", world.secret_ids["acme"])
    body = {"seconds": 3, "talking_seconds": 1, "idle_seconds": 2}
    async with http.post(f"{server.url}/v1/sessions/{sid}/usage", json=body, headers=world.auth("acme")) as r:
        assert r.status == 401 and (await r.json())["error"] == "INVALID_SECRET"
    assert server.stop() == 0
