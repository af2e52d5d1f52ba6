"""Shared by the end-to-end scripts against the reference service (integration/sessions/run.py,
integration/downloads/run.py): the tally of checks, libessence2 through ctypes with the signatures of the Python
package's one table (python/src/essence2/_native.py), and the reference service (service/) started on loopback."""
import ctypes
import importlib.util
import os
import re
import signal
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def first_existing(variable, *candidates):
    """The environment variable's value when set, else the first candidate (relative to ROOT) that exists, else
    the first one."""
    if os.environ.get(variable):
        return os.environ[variable]
    for candidate in candidates:
        if (ROOT / candidate).exists():
            return str(ROOT / candidate)
    return str(ROOT / candidates[0])


def essence2_command():
    """The essence2 command: ESSENCE2_CLI, else build/essence2, else .build/debug/essence2-cli."""
    return first_existing("ESSENCE2_CLI", "build/essence2", ".build/debug/essence2-cli")


class Checks:
    """Prints one line per check ("ok   NAME" or "FAIL NAME: DETAIL") and counts them."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok   {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {name}{': ' + str(detail) if detail else ''}", flush=True)

    def summary(self, label):
        """Prints "LABEL: N passed, M failed"; the exit status (1 when anything failed)."""
        print(f"{label}: {self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


def native():
    """python/src/essence2/_native.py, loaded by its path (no install, no numpy): the one table of the library's
    signatures (``SIGNATURES``, ``bind``), its constants and the frame record's struct."""
    path = ROOT / "python" / "src" / "essence2" / "_native.py"
    spec = importlib.util.spec_from_file_location("essence2_native", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_library(path):
    """libessence2 at `path`, with the signatures of the package's table."""
    return native().load(path)


def text(function):
    """The sentence a be_essence2_last_error-like function copies out."""
    buf = ctypes.create_string_buffer(2048)
    function(buf, len(buf))
    return buf.value.decode()


class ReferenceService:
    """`python -m essence2_service` with its own database in `workdir`: `admin(...)` runs its command (its `avatar
    add` checks files with the `essence2` command, default `essence2_command()`), `start()` serves it on a free
    loopback port (`url`; a restart keeps the port), `stop()` ends it with SIGTERM."""

    def __init__(self, python, workdir, serve_options=(), stderr=None, essence2=None):
        self.python, self.db = python, str(Path(workdir) / "service.sqlite3")
        self.serve_options, self.stderr = list(serve_options), stderr
        self.essence2 = essence2 or essence2_command()
        self.proc, self.port, self.url = None, 0, None

    def admin(self, *args):
        out = subprocess.run([self.python, "-m", "essence2_service", "--db", self.db, *args], capture_output=True,
                             text=True, timeout=60, env=dict(os.environ, ESSENCE2_CLI=self.essence2))
        if out.returncode != 0:
            raise RuntimeError(f"essence2_service {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def start(self):
        stderr = open(self.stderr, "a") if self.stderr else None
        try:
            self.proc = subprocess.Popen([self.python, "-m", "essence2_service", "--db", self.db, "serve", "--port",
                                          str(self.port), *self.serve_options], stdout=subprocess.PIPE,
                                         stderr=stderr, text=True)
        finally:
            if stderr:
                stderr.close()
        line = self.proc.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        if not match:
            raise RuntimeError(f"the service did not start: {line!r}")
        self.url = match.group(1)
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=20)
