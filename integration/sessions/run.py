#!/usr/bin/env python3
"""integration/sessions/run.py - the session contract end to end (docs/sessions.md), through the C interface
(ctypes on build/lib/libessence2.so.1) against the reference service (service/, started on loopback with
`python -m essence2_service --db PATH serve --port 0 --report-interval 1`), or, where that service is not
installed, against a small stub of docs/service-protocol.md written here with the standard library.

Checks: accepted (and the install identifier written), no secret, wrong secret, not entitled, service down at
start, service stopped mid-session (7500 unpaced frames, then -3), restarted (frames resume), secret revoked
mid-session (final), 10 sessions billed within 1 s, 20 concurrent engines reported correctly, quiesce_all
sends the final reports.

Environment: ESSENCE2_LIB (default build/lib/libessence2.so.1), AVATAR (default avatars/grace-hopper.imx),
SERVICE_PYTHON (a python that can `import essence2_service`; default build/venv-service/bin/python, else the
stub), ESSENCE2_CLI (the essence2 command the reference service's `avatar add` checks AVATAR with; default
build/essence2), SESSIONS_STUB=1 forces the stub. Every wait is bounded; prints one line per check and ends with
"sessions-tests: N passed, M failed"; exits 1 when anything failed.
"""
import ctypes
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from service_e2e import ROOT, Checks, ReferenceService, load_library, text  # noqa: E402

LIB = os.environ.get("ESSENCE2_LIB", str(ROOT / "build/lib/libessence2.so.1"))
AVATAR = os.environ.get("AVATAR", str(ROOT / "avatars/grace-hopper.imx"))
GRACE = 7500

check = Checks()


# ---- the library ---------------------------------------------------------------------------------------

lib = load_library(LIB)
i32, vp = ctypes.c_int32, ctypes.c_void_p


def create():
    h = vp()
    rc = lib.be_essence2_create(AVATAR.encode(), None, 0, ctypes.byref(h))
    return rc, h


class Engine:
    """An engine in unpaced pacing (head mode: smaller frames, faster)."""

    def __init__(self, h):
        self.h = h
        lib.be_essence2_set_pacing(h, 1)
        lib.be_essence2_set_mode(h, 1)
        w, ht = i32(), i32()
        lib.be_essence2_get_info(h, ctypes.byref(w), ctypes.byref(ht))
        self.size = w.value * ht.value * 3
        self.buf = ctypes.create_string_buffer(self.size)

    def pull(self, count, deadline_s=120.0, stop_on_refusal=True):
        """Pulls `count` frames (idle frames, unpaced); returns (frames, first refusal reason or None)."""
        got, end = 0, time.monotonic() + deadline_s
        while got < count and time.monotonic() < end:
            rc = lib.be_essence2_idle_frame(self.h, self.buf, self.size)
            if rc > 0:
                got += 1
            elif rc == -3:
                if stop_on_refusal:
                    return got, text(lib.be_essence2_last_error)
            elif rc == 0:
                time.sleep(0.0005)
            else:
                return got, f"rc {rc}: {text(lib.be_essence2_last_error)}"
        return got, None

    def destroy(self):
        lib.be_essence2_destroy(self.h)


# ---- the service: the reference one, or the stub -------------------------------------------------------

class Reference(ReferenceService):
    def __init__(self, python, workdir):
        # Reports every second (30 times the default), and 20 engines of one account at once: the account's request
        # rate is raised to match (the default, 20 a second, suits 30 s reports), so no report meets a 429.
        super().__init__(python, workdir, serve_options=["--report-interval", "1", "--rate", "200", "--burst", "400"])

    def account(self, name, entitled=True):
        self.admin("account", "create", name)
        if entitled:
            self.admin("entitle", name, "grace")
        return self.admin("secret", "create", name).splitlines()[0].strip()

    def setup(self):
        self.admin("avatar", "add", "grace", AVATAR)

    def revoke(self, secret):
        self.admin("secret", "revoke", secret)

    def sessions(self, account):
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10) as db:
            return db.execute("SELECT s.seconds, s.talking_seconds, s.idle_seconds, s.closed_at IS NOT NULL, "
                              "s.install_id, s.avatar_sha256 FROM sessions s JOIN accounts a ON a.id = s.account_id "
                              "WHERE a.name = ? ORDER BY s.started_at, s.rowid", (account,)).fetchall()


class Stub:
    """docs/service-protocol.md's sessions, in memory (only what the library uses)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.secrets, self.revoked, self.entitled = {}, set(), set()
        self.rows, self.server, self.port = {}, None, 0
        with open(AVATAR, "rb") as f:
            import hashlib
            self.sha = hashlib.sha256(f.read()).hexdigest()

    def setup(self):
        pass

    def account(self, name, entitled=True):
        secret = f"e2_{uuid.uuid4().hex[:12]}_{uuid.uuid4().hex}"
        with self.lock:
            self.secrets[secret] = name
            if entitled:
                self.entitled.add(name)
        return secret

    def revoke(self, secret):
        with self.lock:
            self.revoked.add(secret)

    def sessions(self, account):
        with self.lock:
            return [tuple(r[1:]) for r in sorted(self.rows.values(), key=lambda r: r[-1]) if r[0] == account]

    def start(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                secret = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                with stub.lock:
                    account = stub.secrets.get(secret) if secret not in stub.revoked else None
                    if account is None:
                        return self.answer(401, {"error": "INVALID_SECRET", "reason": "unknown or revoked secret"})
                    if self.path == "/v1/sessions":
                        if account not in stub.entitled or body.get("avatar_sha256") != stub.sha:
                            return self.answer(403, {"error": "AGENT_NOT_ENTITLED", "reason": "not entitled"})
                        sid = uuid.uuid4().hex
                        stub.rows[sid] = [account, 0, 0, 0, False, body["install_id"], body["avatar_sha256"],
                                          time.monotonic()]
                        return self.answer(201, {"session_id": sid, "report_interval_s": 1, "avatar_code": "grace"})
                    m = re.fullmatch(r"/v1/sessions/([0-9a-f]+)/usage", self.path)
                    row = stub.rows.get(m.group(1)) if m else None
                    if row is None or row[0] != account:
                        return self.answer(404, {"error": "NOT_FOUND", "reason": "no such session"})
                    if row[4]:
                        return self.answer(409, {"error": "SESSION_CLOSED", "reason": "closed"})
                    if body["seconds"] > row[1]:
                        row[1:4] = [body["seconds"], body["talking_seconds"], body["idle_seconds"]]
                    row[4] = bool(body["final"])
                    return self.answer(200, {"session_id": m.group(1), "billed_seconds": row[1], "closed": row[4]})

        ThreadingHTTPServer.allow_reuse_address = True
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def make_service(workdir):
    candidates = [os.environ.get("SERVICE_PYTHON"), str(ROOT / "build/venv-service/bin/python")]
    if os.environ.get("SESSIONS_STUB") != "1":
        for python in filter(None, candidates):
            if Path(python).exists() and subprocess.run([python, "-c", "import essence2_service"],
                                                        capture_output=True, timeout=60).returncode == 0:
                print(f"service: the reference service ({python})", flush=True)
                return Reference(python, workdir)
    print("service: the stub in this script (the reference service is not installed: set SERVICE_PYTHON)", flush=True)
    return Stub()


# ---- the checks ------------------------------------------------------------------------------------------

def open_sockets():
    """The sockets this process has open now."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return count


def no_service_child():
    """Runs in a child process (in a network namespace with no network when unshare works): with no service
    configured and a secret set, an engine renders; libcurl is never loaded and no socket is ever opened."""
    for name in ("ESSENCE2_SERVICE_URL", "ESSENCE2_METERING_URL"):
        os.environ.pop(name, None)
    lib.be_essence2_set_api_secret(b"e2_any_secret_with_no_service")
    sockets = 0
    rc, h = create()
    frames = 0
    if rc == 0:
        e = Engine(h)
        for _ in range(100):
            got, _why = e.pull(1, deadline_s=10)
            frames += got
            sockets = max(sockets, open_sockets())
        e.destroy()
    maps = Path("/proc/self/maps").read_text()
    print(json.dumps({"rc": rc, "frames": frames, "sockets": sockets, "libcurl": "libcurl" in maps}), flush=True)
    return 0


def main():
    if sys.argv[1:] == ["--no-service-child"]:
        return no_service_child()
    workdir = tempfile.mkdtemp(prefix="essence2-sessions-")
    os.environ["XDG_STATE_HOME"] = workdir + "/state"
    for name in ("ESSENCE2_API_SECRET", "BITHUMAN_API_SECRET", "ESSENCE2_SERVICE_URL", "ESSENCE2_METERING_URL"):
        os.environ.pop(name, None)
    os.environ["ESSENCE2_SERVICE_TIMEOUT_MS"] = "5000"
    print(f"libessence2 {lib.be_essence2_version().decode()}", flush=True)

    # no service configured: nothing changes, nothing leaves the machine
    command = [sys.executable, __file__, "--no-service-child"]
    isolated = subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    if isolated:
        command = ["unshare", "-n"] + command
    child = subprocess.run(command, capture_output=True, text=True, timeout=120)
    try:
        report = json.loads(child.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        report = {}
    check("no service configured: an engine renders 100 frames " + ("in a network namespace with no network"
          if isolated else "(unshare -n not permitted: without isolation)") + ", never loads libcurl, opens no socket",
          report.get("rc") == 0 and report.get("frames") == 100 and report.get("sockets") == 0
          and report.get("libcurl") is False, f"{report} {child.stderr.strip()[-300:]}")
    service = make_service(workdir)
    service.setup()
    alice = service.account("alice")
    bob = service.account("bob", entitled=False)
    carol = service.account("carol")
    many = service.account("many")
    crowd = service.account("crowd")
    service.start()
    lib.be_essence2_set_service_url(service.url.encode())

    # accepted
    lib.be_essence2_set_api_secret(alice.encode())
    rc, h = create()
    check("accepted: create returns 0", rc == 0, f"rc {rc}: {text(lib.be_essence2_last_refusal)}")
    if rc == 0:
        e = Engine(h)
        got, why = e.pull(300)
        check("accepted: 300 frames", got == 300, str(why))
        e.destroy()
        rows = service.sessions("alice")
        install = Path(workdir, "state/essence2/install-id").read_text().strip()
        check("accepted: billed 12 s, closed", len(rows) == 1 and tuple(rows[0][:4]) == (12, 0, 12, True), str(rows))
        check("accepted: the install id is a UUID stored under XDG_STATE_HOME and sent",
              re.fullmatch(r"[0-9a-f-]{36}", install) is not None and rows and rows[0][4] == install, install)

    # no secret, wrong secret, not entitled
    lib.be_essence2_set_api_secret(None)
    rc, _ = create()
    check("no secret: -3 naming the secret", rc == -3 and "no API secret" in text(lib.be_essence2_last_refusal),
          f"rc {rc}: {text(lib.be_essence2_last_refusal)}")
    lib.be_essence2_set_api_secret(b"e2_000000000000_wrongwrongwrongwrongwrongwrongwrongwron")
    rc, _ = create()
    check("wrong secret: -3 with 401", rc == -3 and "401" in text(lib.be_essence2_last_refusal),
          f"rc {rc}: {text(lib.be_essence2_last_refusal)}")
    lib.be_essence2_set_api_secret(bob.encode())
    rc, _ = create()
    check("not entitled: -3 naming AGENT_NOT_ENTITLED",
          rc == -3 and "AGENT_NOT_ENTITLED" in text(lib.be_essence2_last_refusal),
          f"rc {rc}: {text(lib.be_essence2_last_refusal)}")
    check("not entitled: nothing billed", service.sessions("bob") == [], str(service.sessions("bob")))

    # service down at start
    lib.be_essence2_set_api_secret(alice.encode())
    service.stop()
    t0 = time.monotonic()
    rc, _ = create()
    check("service down at start: -3 'unreachable' within the timeout",
          rc == -3 and "unreachable" in text(lib.be_essence2_last_refusal) and time.monotonic() - t0 < 6,
          f"rc {rc} after {time.monotonic() - t0:.1f} s: {text(lib.be_essence2_last_refusal)}")
    service.start()

    # stopped mid-session: 7500 frames, then -3; restarted: frames resume
    rc, h = create()
    check("drop: create", rc == 0, text(lib.be_essence2_last_refusal))
    if rc == 0:
        e = Engine(h)
        got, why = e.pull(100)
        service.stop()
        t0 = time.monotonic()
        after, why = e.pull(GRACE + 1000, deadline_s=300)
        check(f"drop: {GRACE} unpaced frames after the service stopped, then -3 ({after} in {time.monotonic() - t0:.0f} s)",
              why is not None and GRACE <= after <= GRACE + 300 and "unreachable since" in why, f"{after} frames, {why}")
        rc = lib.be_essence2_pull_frame(e.h, e.buf, e.size)
        check("drop: pull_frame is -3 too", rc == -3, f"rc {rc}")
        service.start()
        resumed, end = False, time.monotonic() + 20
        while time.monotonic() < end and not resumed:
            got, why = e.pull(1, deadline_s=1)
            resumed = got == 1
            if not resumed:
                time.sleep(0.1)
        check("drop: frames resume once the service is back", resumed)
        e.destroy()

    # revoked mid-session: final
    lib.be_essence2_set_api_secret(carol.encode())
    rc, h = create()
    check("revoked: create", rc == 0, text(lib.be_essence2_last_refusal))
    if rc == 0:
        e = Engine(h)
        e.pull(50)
        service.revoke(carol)
        got, why = e.pull(5000, deadline_s=60)
        check("revoked: -3 with 401, final", why is not None and "401" in why and "final" in why, f"{got}, {why}")
        time.sleep(2.5)
        got, why = e.pull(1, deadline_s=1)
        check("revoked: still -3 later", got == 0 and why is not None, f"{got}, {why}")
        e.destroy()

    # 10 sessions, each billed within 1 s
    lib.be_essence2_set_api_secret(many.encode())
    counts = [60 + 37 * i for i in range(10)]
    for n in counts:
        rc, h = create()
        if rc != 0:
            check("10 sessions: create", False, text(lib.be_essence2_last_refusal))
            break
        e = Engine(h)
        e.pull(n)
        e.destroy()
    rows = service.sessions("many")
    check("10 sessions: 10 closed sessions, each billed frames/25 rounded down (within 1 s)",
          len(rows) == 10 and all(r[3] for r in rows) and [r[0] for r in rows] == [n // 25 for n in counts]
          and all(abs(n * 0.04 - r[0]) < 1 for n, r in zip(counts, rows)), f"{[r[:4] for r in rows]} vs {counts}")

    # 20 concurrent engines
    lib.be_essence2_set_api_secret(crowd.encode())
    results = {}

    def one(i):
        rc, h = create()
        if rc != 0:
            results[i] = (rc, 0)
            return
        e = Engine(h)
        got, _ = e.pull(50 + 25 * i, deadline_s=240)
        e.destroy()
        results[i] = (0, got)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    rows = service.sessions("crowd")
    expected = sorted((50 + 25 * i) // 25 for i in range(20))
    check("20 concurrent engines: all created and pulled",
          all(results.get(i) == (0, 50 + 25 * i) for i in range(20)), str(results))
    check("20 concurrent engines: 20 closed sessions with the right seconds",
          len(rows) == 20 and all(r[3] for r in rows) and sorted(r[0] for r in rows) == expected,
          f"{sorted(r[0] for r in rows)} vs {expected}")

    # quiesce_all: the final reports go out; a stopped engine's pulls return 0, as without a service
    lib.be_essence2_set_api_secret(alice.encode())
    rc, h = create()
    if rc == 0:
        e = Engine(h)
        e.pull(130)
        stopped = lib.be_essence2_quiesce_all(3000)
        rc = lib.be_essence2_pull_frame(e.h, e.buf, e.size)
        rows = service.sessions("alice")
        check("quiesce_all: final report sent (5 s billed), later pulls return 0",
              stopped >= 1 and rc == 0 and tuple(rows[-1][:4]) == (5, 0, 5, True), f"{stopped}, rc {rc}, {rows[-1:]}")
        e.destroy()
    else:
        check("quiesce_all: create", False, text(lib.be_essence2_last_refusal))

    # 60 s without frames taken: the session closes (billed to then); the next frame opens a new one
    dora = None
    try:
        service.stop()
        dora = service.account("dora")
        service.start()
        lib.be_essence2_set_service_url(service.url.encode())
    except Exception as error:  # noqa: BLE001 - reported as a failed check
        check("idle close: set up an account", False, str(error))
    if dora is not None:
        lib.be_essence2_set_api_secret(dora.encode())
        rc, h = create()
        if rc == 0:
            e = Engine(h)
            e.pull(75)
            time.sleep(62)
            rows_idle = service.sessions("dora")
            got, why = e.pull(50, deadline_s=30)
            time.sleep(1.5)
            e.destroy()
            rows = service.sessions("dora")
            check("idle close: after 60 s without frames the session is closed and billed 3 s (75 frames)",
                  len(rows_idle) == 1 and tuple(rows_idle[0][:4]) == (3, 0, 3, True), str(rows_idle))
            check("idle close: the next frames open a new session (2 s for 50 frames)",
                  got == 50 and len(rows) == 2 and tuple(rows[1][:4]) == (2, 0, 2, True), f"{got} {why} {rows}")
        else:
            check("idle close: create", False, text(lib.be_essence2_last_refusal))

    service.stop()
    return check.summary("sessions-tests")


if __name__ == "__main__":
    sys.exit(main())
