#!/usr/bin/env python3
"""integration/downloads/run.py - avatar downloads end to end (docs/sessions.md, Downloads): the C interface
(ctypes on libessence2, be_essence2_download_avatar) and `essence2 avatar get`, against the reference service
(service/, started here on loopback with `python -m essence2_service --db PATH serve --port 0 --access-log`) and
a stub of the protocol in the standard library for what the reference never does (wrong bytes, a newer format).

Checks: a good download (the file's sha256 is the service's), a character avatar registered with its kind and
fetched by the command, the library and the Python package (`essence2.sessions.download_avatar`; a damaged copy
refused by `avatar add` with the library's reason), a cached second call makes no file request
(the service's access log), a newer version registered under the same code is picked up by the background
revalidation, a secret not entitled is not handed the cached avatar (the reference service answers it 404, as
for an unknown code, so that codes do not leak), offline with a cached copy
(returned) and without (error), a file whose sha256 is not the metadata's is refused with nothing written,
a newer format_version is refused, and the command's exit statuses (0, 1, 2, 4, 6).

Environment: ESSENCE2_LIB (default build/lib/libessence2.so.1, else .build/debug/libessence2.so), ESSENCE2_CLI
(default build/essence2, else .build/debug/essence2-cli; the service's `avatar add` checks with it too),
SERVICE_PYTHON (default
build/venv-service/bin/python). Every wait is bounded; prints one line per check and ends with
"downloads-tests: N passed, M failed"; exits 1 when anything failed.
"""
import ctypes
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from service_e2e import (ROOT, Checks, ReferenceService, essence2_command, first_existing,  # noqa: E402
                         load_library, text)

LIB = first_existing("ESSENCE2_LIB", "build/lib/libessence2.so.1", ".build/debug/libessence2.so")
CLI = essence2_command()
PYTHON = first_existing("SERVICE_PYTHON", "build/venv-service/bin/python")
GRACE = ROOT / "avatars/grace-hopper.imx"
ASTRONAUT = ROOT / "avatars/astronaut.imx"
SQUIRREL = ROOT / "avatars/squirrel.imx"

check = Checks()


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ---- the library ---------------------------------------------------------------------------------------

for name in ("ESSENCE2_API_SECRET", "BITHUMAN_API_SECRET", "ESSENCE2_SERVICE_URL", "ESSENCE2_METERING_URL"):
    os.environ.pop(name, None)
lib = load_library(LIB)


def download(url, secret, code, directory):
    """(rc, path or reason) of be_essence2_download_avatar."""
    lib.be_essence2_set_service_url(url.encode())
    lib.be_essence2_set_api_secret(secret.encode() if secret else None)
    buf = ctypes.create_string_buffer(4096)
    rc = lib.be_essence2_download_avatar(code.encode(), str(directory).encode(), buf, len(buf))
    return rc, (buf.value.decode() if rc > 0 else text(lib.be_essence2_last_error))


def cli(url, secret, *args):
    env = dict(os.environ, ESSENCE2_SERVICE_URL=url, ESSENCE2_API_SECRET=secret or "")
    out = subprocess.run([CLI, "avatar", "get", *args], capture_output=True, text=True, timeout=60, env=env)
    return out.returncode, out.stdout.strip(), out.stderr.strip()


def inspect(path):
    """What `essence2 avatar inspect --json` says of the file (the library's reader)."""
    out = subprocess.run([CLI, "avatar", "inspect", "--json", str(path)], capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


def python_package_download(url, secret, code, directory):
    """(exit status, output) of the Python package's `essence2.sessions.download_avatar` and `avatar_kind` on the
    file it returns, in a child process with python/src on its path and this library."""
    program = ("import sys, essence2\nfrom essence2 import sessions\n"
               "path = sessions.download_avatar(sys.argv[1], sys.argv[2])\n"
               "print(path)\nprint(essence2.avatar_kind(path))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python/src"), ESSENCE2_LIBRARY=LIB, ESSENCE2_SERVICE_URL=url,
               ESSENCE2_API_SECRET=secret)
    out = subprocess.run([sys.executable, "-c", program, code, str(directory)], capture_output=True, text=True,
                         timeout=60, env=env)
    return out.returncode, (out.stdout + out.stderr).strip()


# ---- the reference service ----------------------------------------------------------------------------

class Reference(ReferenceService):
    def __init__(self, workdir):
        self.log = Path(workdir) / "access.log"
        super().__init__(PYTHON, workdir, serve_options=["--access-log"], stderr=self.log)

    def file_requests(self):
        return len(re.findall(r"GET /v1/avatars/[^ ]+/file ", self.log.read_text(errors="replace")))

    def metadata(self, secret, code):
        request = urllib.request.Request(f"{self.url}/v1/avatars/{code}",
                                         headers={"Authorization": f"Bearer {secret}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)


# ---- the stub: wrong bytes, or a newer format ---------------------------------------------------------

class Stub:
    def __init__(self):
        self.requests = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                stub.requests.append(self.path)
                real = GRACE.read_bytes()
                if self.path.endswith("/file"):
                    body = real[:-1] + bytes([real[-1] ^ 1])  # the right size, the wrong bytes
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                else:
                    version = 99 if "newer" in self.path else 1
                    body = json.dumps({"code": "x", "name": "x", "sha256": hashlib.sha256(real).hexdigest(),
                                       "size": len(real), "format_version": version}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def main():
    work = tempfile.mkdtemp(prefix="essence2-downloads-")
    service = Reference(work)
    service.admin("account", "create", "acme")
    service.admin("account", "create", "other")
    service.admin("avatar", "add", "grace", str(GRACE))
    service.admin("entitle", "acme", "grace")
    # A character avatar, checked by the library as the photoreal one is; a damaged copy refused with its reason.
    added_character = service.admin("avatar", "add", "pup", str(SQUIRREL))
    service.admin("entitle", "acme", "pup")
    damaged = Path(work) / "damaged-squirrel.imx"
    damaged.write_bytes(SQUIRREL.read_bytes()[:5000])
    try:
        refused_character = service.admin("avatar", "add", "broken", str(damaged))
    except RuntimeError as exc:
        refused_character = str(exc)
    secret = service.admin("secret", "create", "acme").splitlines()[0].strip()
    stranger = service.admin("secret", "create", "other").splitlines()[0].strip()
    service.start()
    cache = Path(work) / "cache"
    try:
        # A good download.
        rc, path = download(service.url, secret, "grace", cache)
        expected = service.metadata(secret, "grace")["sha256"]
        check("download: the path of the file", rc == len(path) and Path(path).is_file(), (rc, path))
        check("download: its sha256 is the service's", rc > 0 and sha256(path) == expected == sha256(GRACE))
        check("download: cached as <sha256>.imx", rc > 0 and Path(path) == cache / f"{expected}.imx", path)
        # Cached: no second file request (the background revalidation asks for the metadata only).
        files_before = service.file_requests()
        check("the access log counts file requests", files_before == 1, files_before)
        rc2, path2 = download(service.url, secret, "grace", cache)
        time.sleep(1.0)
        check("cached second call: the same path", rc2 > 0 and path2 == path, path2)
        check("cached second call: no file request", service.file_requests() == files_before,
              (files_before, service.file_requests()))
        # A short buffer: the full length back, a truncated NUL-terminated copy.
        small = ctypes.create_string_buffer(8)
        rc3 = lib.be_essence2_download_avatar(b"grace", str(cache).encode(), small, 8)
        check("short buffer: full length, truncated copy", rc3 == len(path) and small.value == path[:7].encode(),
              (rc3, small.value))
        check("NULL code: -1", lib.be_essence2_download_avatar(None, None, None, 0) == -1)
        # The command: the same cache, exit 0 with the path.
        status, out, err = cli(service.url, secret, "grace", "--cache", str(cache))
        check("avatar get: exit 0 and the path", status == 0 and out == path, (status, out, err))
        status, out, err = cli(service.url, secret)
        check("avatar get without CODE: exit 2", status == 2, (status, err))
        status, out, err = cli(service.url, secret, "nobody", "--cache", str(cache))
        check("avatar get of an unknown code: exit 1", status == 1 and "no avatar" in err, (status, err))
        # A character: registered with its kind, fetched by the command, the library's download (the function
        # Essence2Kit's and Expression2's downloads call too) and the Python package.
        check("avatar add of a character: registered, kind character", "kind character" in added_character,
              added_character)
        reason = inspect(damaged)
        check("avatar add of a damaged character: refused with the library's reason",
              f"is not a valid .imx avatar: {reason['error']} ({reason['error_kind']})" in refused_character,
              (refused_character, reason))
        stored = sorted(p.name for p in Path(service.db + ".avatars").iterdir())
        check("nothing of the damaged character stored (no file, no temporary)",
              stored == sorted([sha256(GRACE), sha256(SQUIRREL)]), stored)
        pup = service.metadata(secret, "pup")
        check("character metadata: its sha256 and format version 1",
              pup["sha256"] == sha256(SQUIRREL) and pup["format_version"] == 1, pup)
        status, out, err = cli(service.url, secret, "pup", "--cache", str(cache))
        check("avatar get of a character: exit 0, its sha256",
              status == 0 and Path(out).is_file() and sha256(out) == sha256(SQUIRREL), (status, out, err))
        check("avatar get of a character: the library reads it as a character",
              status == 0 and inspect(out).get("kind") == "character", out)
        rc, got = download(service.url, secret, "pup", Path(work) / "cache-c")
        check("download of a character: its sha256, a character to be_essence2_avatar_kind",
              rc > 0 and sha256(got) == sha256(SQUIRREL) and lib.be_essence2_avatar_kind(got.encode()) == 1,
              (rc, got))
        status, out = python_package_download(service.url, secret, "pup", Path(work) / "cache-python")
        lines = out.splitlines()
        check("essence2.sessions.download_avatar of a character: its sha256, avatar_kind character",
              status == 0 and len(lines) == 2 and sha256(lines[0]) == sha256(SQUIRREL) and lines[1] == "character",
              out[-500:])
        status, out, err = cli(service.url, stranger, "pup", "--cache", str(Path(work) / "cache-stranger"))
        check("avatar get of a character, not entitled: exit 1", status == 1 and "no avatar" in err, (status, err))
        # Not entitled: not handed the cached copy. The reference service answers 404 NOT_FOUND, as for a code
        # that does not exist (docs/service-protocol.md), so the library says "no avatar" (-2, exit 1).
        rc, reason = download(service.url, stranger, "grace", cache)
        check("not entitled: -2, no avatar for it although cached", rc == -2 and "no avatar" in reason, (rc, reason))
        status, out, err = cli(service.url, stranger, "grace", "--cache", str(cache))
        check("avatar get, not entitled: exit 1 as for an unknown code", status == 1 and "no avatar" in err,
              (status, err))
        status, out, err = cli(service.url, "e2_000000000000_wrong", "grace", "--cache", str(cache))
        check("avatar get, wrong secret: exit 6", status == 6 and "401" in err, (status, err))
        # A newer version under the same code: picked up in the background for the next call.
        service.admin("avatar", "add", "grace", str(ASTRONAUT))
        newer = sha256(ASTRONAUT)
        rc, first = download(service.url, secret, "grace", cache)
        check("newer version: the cached copy at once", rc > 0 and first == path, first)
        got, deadline = None, time.monotonic() + 20
        while time.monotonic() < deadline:
            rc, got = download(service.url, secret, "grace", cache)
            if rc > 0 and Path(got).name == f"{newer}.imx":
                break
            time.sleep(0.5)
        check("newer version: revalidated in the background", got and Path(got).name == f"{newer}.imx"
              and sha256(got) == newer, got)
        # A secret revoked: the cached copy at once, refused once the background check has seen the 401.
        revoked = service.admin("secret", "create", "acme").splitlines()[0].strip()
        rc, _ = download(service.url, revoked, "grace", cache)
        service.admin("secret", "revoke", revoked)
        rc_at_once, _ = download(service.url, revoked, "grace", cache)
        rc, deadline = rc_at_once, time.monotonic() + 20
        while rc > 0 and time.monotonic() < deadline:
            time.sleep(0.3)
            rc, _ = download(service.url, revoked, "grace", cache)
        check("revoked secret: cached at once, then -3 (permission forgotten)", rc_at_once > 0 and rc == -3
              and "INVALID_SECRET" in text(lib.be_essence2_last_refusal), (rc_at_once, rc))
        # Offline.
        service.stop()
        rc, offline = download(service.url, secret, "grace", cache)
        check("offline with a cached copy: returned", rc > 0 and Path(offline).is_file(), (rc, offline))
        status, out, err = cli(service.url, secret, "grace", "--cache", str(cache))
        check("avatar get offline with a cached copy: exit 0", status == 0 and Path(out).is_file(), (status, err))
        rc, reason = download(service.url, stranger, "grace", cache)
        check("offline, a secret never allowed: -2", rc == -2 and "did not answer" in reason, (rc, reason))
        empty = Path(work) / "empty"
        rc, reason = download(service.url, secret, "grace", empty)
        check("offline without a cached copy: -2 with the reason", rc == -2 and "did not answer" in reason, (rc, reason))
        status, out, err = cli(service.url, secret, "grace", "--cache", str(empty))
        check("avatar get offline without a cached copy: exit 1", status == 1 and err, (status, err))
        # Wrong bytes, and a newer format (the stub).
        stub = Stub()
        wrong = Path(work) / "wrong"
        rc, reason = download(stub.url, secret, "grace", wrong)
        leftovers = [p.name for p in wrong.iterdir() if p.name.endswith(".imx") or ".tmp." in p.name] \
            if wrong.exists() else []
        check("sha256 mismatch: -2, nothing written", rc == -2 and "nothing written" in reason and not leftovers,
              (rc, reason, leftovers))
        status, out, err = cli(stub.url, secret, "grace", "--cache", str(wrong))
        check("avatar get, sha256 mismatch: exit 4", status == 4 and "sha256" in err, (status, err))
        before = len(stub.requests)
        rc, reason = download(stub.url, secret, "newer", wrong)
        check("newer format_version: -2, outdated, no file request",
              rc == -2 and "outdated" in reason and not any(r.endswith("/file") for r in stub.requests[before:]),
              (rc, reason))
        status, out, err = cli(stub.url, secret, "newer", "--cache", str(wrong))
        check("avatar get, newer format: exit 4", status == 4 and "format version" in err, (status, err))
    finally:
        if service.proc and service.proc.poll() is None:
            service.stop()
        shutil.rmtree(work, ignore_errors=True)
    return check.summary("downloads-tests")


if __name__ == "__main__":
    sys.exit(main())
