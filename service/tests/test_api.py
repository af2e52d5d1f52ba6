"""The protocol (docs/service-protocol.md) through aiohttp's test client."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from conftest import World, session_body
from essence2_service.openapi import MAX_SECONDS
from essence2_service.storage import Store


async def start(client: TestClient, world: World, account: str = "acme", sha: str | None = None) -> str:
    resp = await client.post("/v1/sessions", json=session_body(sha or world.sha["grace-v2"]),
                             headers=world.auth(account))
    assert resp.status == 201, await resp.text()
    body = await resp.json()
    return str(body["session_id"])


async def report(client: TestClient, world: World, session_id: str, talking: int, idle: int,
                 final: bool = False, account: str = "acme") -> Any:
    return await client.post(f"/v1/sessions/{session_id}/usage", headers=world.auth(account),
                             json={"seconds": talking + idle, "talking_seconds": talking, "idle_seconds": idle,
                                   "final": final})


async def expect_error(resp: Any, status: int, code: str) -> None:
    assert resp.status == status, await resp.text()
    assert resp.content_type == "application/json"
    body = await resp.json()
    assert body["error"] == code and isinstance(body["reason"], str) and body["reason"]
    assert set(body) == {"error", "reason"}


async def usage_of(store: Store, account: str) -> tuple[int, int, int, int]:
    [row] = await store.usage(account)
    return row.sessions, row.billed_seconds, row.talking_seconds, row.idle_seconds


async def test_health_and_openapi_need_no_secret(client: TestClient) -> None:
    resp = await client.get("/v1/health")
    assert resp.status == 200 and await resp.json() == {"status": "ok"}
    resp = await client.get("/openapi.json")
    doc = await resp.json()
    assert resp.status == 200 and doc["openapi"].startswith("3.")
    assert set(doc["paths"]) == {"/v1/health", "/openapi.json", "/v1/sessions", "/v1/sessions/{session_id}/usage",
                                 "/v1/avatars/{code}", "/v1/avatars/{code}/file"}


async def test_session_accepted(client: TestClient, world: World, store: Store) -> None:
    resp = await client.post("/v1/sessions", json=session_body(world.sha["grace-v2"]), headers=world.auth("acme"))
    assert resp.status == 201
    body = await resp.json()
    assert body["report_interval_s"] == 30 and body["avatar_code"] == "grace-hopper"
    assert isinstance(body["session_id"], str) and body["session_id"]
    assert await usage_of(store, "acme") == (1, 0, 0, 0)


async def test_any_version_of_an_entitled_avatar(client: TestClient, world: World) -> None:
    resp = await client.post("/v1/sessions", json=session_body(world.sha["grace-v1"].upper()),
                             headers=world.auth("acme"))
    assert resp.status == 201 and (await resp.json())["avatar_code"] == "grace-hopper"


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer"},
    {"Authorization": "Basic dXNlcjpwYXNz"},
    {"Authorization": "Bearer e2_000000000000_" + "A" * 43},
    {"Authorization": "Bearer not-a-secret"},
    {"Authorization": "Bearer \u00e9t\u00e9"},
])
async def test_missing_or_wrong_secret(client: TestClient, world: World, store: Store,
                                       headers: dict[str, str]) -> None:
    resp = await client.post("/v1/sessions", json=session_body(world.sha["grace-v2"]), headers=headers)
    await expect_error(resp, 401, "INVALID_SECRET")
    assert [r.sessions for r in await store.usage()] == [0, 0, 0]


async def test_wrong_secret_with_a_real_id(client: TestClient, world: World) -> None:
    real = world.secrets["acme"]
    forged = real[:-1] + ("A" if real[-1] != "A" else "B")
    resp = await client.post("/v1/sessions", json=session_body(world.sha["grace-v2"]),
                             headers={"Authorization": f"Bearer {forged}"})
    await expect_error(resp, 401, "INVALID_SECRET")


async def test_not_entitled_is_refused_and_not_billed(client: TestClient, world: World, store: Store) -> None:
    for sha in (world.sha["astro"], "ab" * 32):
        resp = await client.post("/v1/sessions", json=session_body(sha), headers=world.auth("acme"))
        await expect_error(resp, 403, "AGENT_NOT_ENTITLED")
    resp = await client.post("/v1/sessions", json=session_body(world.sha["grace-v2"]), headers=world.auth("other"))
    await expect_error(resp, 403, "AGENT_NOT_ENTITLED")
    assert await usage_of(store, "acme") == (0, 0, 0, 0)
    assert await usage_of(store, "other") == (0, 0, 0, 0)


async def test_any_avatar_account(client: TestClient, world: World) -> None:
    resp = await client.post("/v1/sessions", json=session_body("cd" * 32), headers=world.auth("free"))
    assert resp.status == 201 and (await resp.json())["avatar_code"] is None
    resp = await client.post("/v1/sessions", json=session_body(world.sha["astro"]), headers=world.auth("free"))
    assert resp.status == 201 and (await resp.json())["avatar_code"] == "astronaut"


async def test_usage_keeps_the_largest(client: TestClient, world: World, store: Store) -> None:
    sid = await start(client, world)
    resp = await report(client, world, sid, 20, 41)
    assert resp.status == 200
    assert await resp.json() == {"session_id": sid, "billed_seconds": 61, "closed": False}
    resp = await report(client, world, sid, 10, 20)  # late, smaller: ignored
    assert (await resp.json())["billed_seconds"] == 61
    resp = await report(client, world, sid, 20, 41)  # repeated
    assert (await resp.json())["billed_seconds"] == 61
    resp = await report(client, world, sid, 30, 60)
    assert (await resp.json())["billed_seconds"] == 90
    assert await usage_of(store, "acme") == (1, 90, 30, 60)


async def test_a_start_sent_again_with_its_idempotency_key_is_the_same_session(client: TestClient, world: World,
                                                                              store: Store) -> None:
    """The dedup contract of session starts: a client whose first start got no answer sends it again with the same
    Idempotency-Key and gets the same session; a start without a key, or with another, is a new session."""
    sha = world.sha["grace-v2"]
    headers = {**world.auth("acme"), "Idempotency-Key": "0b6c2a57-4f7e-4d7e-9f43-5c0d8b1f2e11"}
    first = await client.post("/v1/sessions", json=session_body(sha), headers=headers)
    again = await client.post("/v1/sessions", json=session_body(sha), headers=headers)
    assert first.status == again.status == 201
    sid = (await first.json())["session_id"]
    assert await again.json() == await first.json()
    assert await usage_of(store, "acme") == (1, 0, 0, 0)
    await report(client, world, sid, 5, 7, final=True)
    closed = await client.post("/v1/sessions", json=session_body(sha), headers=headers)  # still the same session
    assert (await closed.json())["session_id"] == sid
    other = await client.post("/v1/sessions", json=session_body(sha), headers={**headers, "Idempotency-Key": "k2"})
    plain = await client.post("/v1/sessions", json=session_body(sha), headers=world.auth("acme"))
    assert len({sid, (await other.json())["session_id"], (await plain.json())["session_id"]}) == 3
    # another account's key space is its own
    free = await client.post("/v1/sessions", json=session_body(sha),
                             headers={**world.auth("free"), "Idempotency-Key": headers["Idempotency-Key"]})
    assert free.status == 201 and (await free.json())["session_id"] != sid
    # the same key for another avatar or install_id is refused, and nothing is recorded
    await expect_error(await client.post("/v1/sessions", json=session_body(world.sha["grace-v1"]), headers=headers),
                       422, "BAD_REQUEST")
    await expect_error(await client.post("/v1/sessions", json=session_body(sha, install_id="other"),
                                         headers=headers), 422, "BAD_REQUEST")
    for bad_key in ("", "x" * 129, "a b"):
        resp = await client.post("/v1/sessions", json=session_body(sha),
                                 headers={**world.auth("acme"), "Idempotency-Key": bad_key})
        await expect_error(resp, 422, "BAD_REQUEST")
    assert (await usage_of(store, "acme"))[:2] == (3, 12)


async def test_final_closes_and_a_later_report_is_refused(client: TestClient, world: World, store: Store) -> None:
    sid = await start(client, world)
    resp = await report(client, world, sid, 5, 7, final=True)
    assert await resp.json() == {"session_id": sid, "billed_seconds": 12, "closed": True}
    for final in (False, True):
        await expect_error(await report(client, world, sid, 50, 70, final=final), 409, "SESSION_CLOSED")
    assert await usage_of(store, "acme") == (1, 12, 5, 7)
    [row] = await store.usage("acme")
    assert row.open_sessions == 0


async def test_revoked_secret_is_refused_on_the_next_report(client: TestClient, world: World,
                                                            store: Store) -> None:
    sid = await start(client, world)
    assert (await report(client, world, sid, 1, 2)).status == 200
    await store.revoke_secret(world.secrets["acme"])
    await expect_error(await report(client, world, sid, 3, 4), 401, "INVALID_SECRET")
    assert await usage_of(store, "acme") == (1, 3, 1, 2)


async def test_unknown_and_foreign_sessions(client: TestClient, world: World) -> None:
    sid = await start(client, world)
    await expect_error(await report(client, world, "s_" + "x" * 32, 1, 1), 404, "NOT_FOUND")
    await expect_error(await report(client, world, "nope", 1, 1), 404, "NOT_FOUND")
    await expect_error(await report(client, world, "%C3%A9t%C3%A9", 1, 1), 404, "NOT_FOUND")
    await expect_error(await report(client, world, sid, 1, 1, account="free"), 404, "NOT_FOUND")


@pytest.mark.parametrize(("body", "status"), [
    ({"seconds": 10, "talking_seconds": 3, "idle_seconds": 4}, 422),
    ({"seconds": -1, "talking_seconds": 0, "idle_seconds": -1}, 422),
    ({"seconds": MAX_SECONDS + 2, "talking_seconds": MAX_SECONDS + 1, "idle_seconds": 1}, 422),
    ({"seconds": 10**400, "talking_seconds": 10**400, "idle_seconds": 0}, 422),
    ({"seconds": 1.5, "talking_seconds": 1.5, "idle_seconds": 0}, 400),
    ({"seconds": True, "talking_seconds": True, "idle_seconds": 0}, 400),
    ({"seconds": "3", "talking_seconds": 3, "idle_seconds": 0}, 400),
    ({"talking_seconds": 3, "idle_seconds": 0}, 400),
    ({"seconds": 3, "talking_seconds": 3, "idle_seconds": 0, "final": "yes"}, 400),
    ([1, 2, 3], 400),
    ("text", 400),
    (None, 400),
])
async def test_bad_usage_reports(client: TestClient, world: World, store: Store, body: Any, status: int) -> None:
    sid = await start(client, world)
    resp = await client.post(f"/v1/sessions/{sid}/usage", json=body, headers=world.auth("acme"))
    await expect_error(resp, status, "BAD_REQUEST")
    assert await usage_of(store, "acme") == (1, 0, 0, 0)


@pytest.mark.parametrize("raw", [b"", b"{", b"\xff\xfe", b"{\"seconds\": NaN}", b"[" * 60000, b"1" * 5000],
                         ids=["empty", "truncated", "not-utf8", "nan", "deep", "long-int"])
async def test_malformed_bodies(client: TestClient, world: World, raw: bytes) -> None:
    for path in ("/v1/sessions", f"/v1/sessions/{await start(client, world)}/usage"):
        resp = await client.post(path, data=raw, headers={**world.auth("acme"), "Content-Type": "application/json"})
        assert resp.status in (400, 422), await resp.text()
        assert (await resp.json())["error"] == "BAD_REQUEST"


async def test_body_too_large(client: TestClient, world: World) -> None:
    resp = await client.post("/v1/sessions", data=b"{" + b" " * 200_000 + b"}", headers=world.auth("acme"))
    await expect_error(resp, 413, "BAD_REQUEST")


@pytest.mark.parametrize(("fields", "status"), [
    ({"avatar_sha256": "zz" * 32}, 422),
    ({"avatar_sha256": "ab" * 31}, 422),
    ({"avatar_sha256": 42}, 400),
    ({"avatar_sha256": None}, 400),
    ({"install_id": ""}, 422),
    ({"install_id": "x" * 129}, 422),
    ({"install_id": "\ud800"}, 422),
    ({"install_id": ["a"]}, 400),
    ({"client": None}, 400),
    ({"avatar_name": 7}, 400),
])
async def test_bad_session_requests(client: TestClient, world: World, store: Store,
                                    fields: dict[str, object], status: int) -> None:
    body = {**session_body(world.sha["grace-v2"]), **fields}
    resp = await client.post("/v1/sessions", json=body, headers=world.auth("acme"))
    await expect_error(resp, status, "BAD_REQUEST")
    assert await usage_of(store, "acme") == (0, 0, 0, 0)


@pytest.mark.parametrize("value", ["abc\x00def", "line\nbreak", "tab\there", "\x1b[31mred\x1b[0m", "del\x7f",
                                   "c1\x85", "bidi\u202eevil", "sep\u2028x"])
@pytest.mark.parametrize("field", ["install_id", "client"])
async def test_control_characters_are_refused(client: TestClient, world: World, store: Store, field: str,
                                             value: str) -> None:
    resp = await client.post("/v1/sessions", json=session_body(world.sha["grace-v2"], **{field: value}),
                             headers=world.auth("acme"))
    await expect_error(resp, 422, "BAD_REQUEST")
    assert "control characters" in (await resp.json())["reason"]
    assert await usage_of(store, "acme") == (0, 0, 0, 0)


async def test_non_ascii_is_stored_as_sent(client: TestClient, world: World) -> None:
    resp = await client.post("/v1/sessions", headers=world.auth("acme"),
                             json=session_body(world.sha["grace-v1"], install_id="\u6e2c\u8a66-\U0001f600",
                                               client="\u00e9ssence2/1.1.0", extra={"ignored": True}))
    assert resp.status == 201


async def test_avatar_metadata_and_file(client: TestClient, world: World) -> None:
    newest = world.sha["grace-v2"]
    resp = await client.get("/v1/avatars/grace-hopper", headers=world.auth("acme"))
    assert resp.status == 200
    meta = await resp.json()
    assert meta == {"code": "grace-hopper", "name": "grace-v2.imx", "sha256": newest,
                    "size": len(world.files[newest]), "format_version": 2}
    resp = await client.get("/v1/avatars/grace-hopper/file", headers=world.auth("acme"))
    assert resp.status == 200 and resp.content_type == "application/octet-stream"
    data = await resp.read()
    digest = hashlib.sha256(data).hexdigest()
    assert data == world.files[newest] and digest == newest
    assert resp.headers["ETag"] == f'"{digest}"' and resp.headers["X-Essence2-Sha256"] == digest
    assert int(resp.headers["Content-Length"]) == len(data)


async def test_avatar_errors(client: TestClient, world: World) -> None:
    for suffix in ("", "/file"):
        await expect_error(await client.get(f"/v1/avatars/grace-hopper{suffix}"), 401, "INVALID_SECRET")
        # Not entitled and no such code: the same answer, so that a secret cannot learn which codes exist.
        answers = []
        for code in ("astronaut", "nobody"):
            resp = await client.get(f"/v1/avatars/{code}{suffix}", headers=world.auth("acme"))
            await expect_error(resp, 404, "NOT_FOUND")
            answers.append((resp.status, await resp.json()))
        assert answers[0] == answers[1]
        await expect_error(await client.get(f"/v1/avatars/grace-hopper{suffix}", headers=world.auth("other")),
                           404, "NOT_FOUND")
        await expect_error(await client.get(f"/v1/avatars/%C3%A9%00{suffix}", headers=world.auth("acme")),
                           404, "NOT_FOUND")
    resp = await client.get("/v1/avatars/astronaut/file", headers=world.auth("free"))
    assert resp.status == 200 and hashlib.sha256(await resp.read()).hexdigest() == world.sha["astro"]


async def test_unknown_routes_and_methods(client: TestClient, world: World) -> None:
    await expect_error(await client.get("/v1/nothing"), 404, "NOT_FOUND")
    resp = await client.delete("/v1/sessions", headers=world.auth("acme"))
    await expect_error(resp, 405, "BAD_REQUEST")
    assert "POST" in resp.headers["Allow"]
