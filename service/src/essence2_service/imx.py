"""``.imx`` avatar files: checked by the library, through the ``essence2`` command (docs/imx-format.md).

The format is read by the runtime library only. ``avatar add`` asks ``essence2 avatar inspect --json FILE``,
which reads the file with the library's own reader, every check it makes before an engine opens the file, for
both kinds of avatar (photoreal portraits and characters), and the service takes its verdict as it is: the kind
of a valid file, the reason and the error kind of an invalid one.

The service itself reads the first 12 bytes only (``read_version``): the magic bytes and the format version. The
protocol's avatar metadata carries that version (a client refuses a file newer than it reads before downloading
it), and a file of a version the command at hand does not read can be told apart from a corrupt one only by its
header.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"\x89IMX\r\n\x1a\n"
INSPECT_TIMEOUT_S = 120
COMMAND_ENV = "ESSENCE2_CLI"


class ImxError(Exception):
    """The library's reader refused the file: ``reason`` and ``kind`` (its error kind: ``truncated``,
    ``corrupt``, ``checksum``, ``version``, ``notAvatar``, ``tooLarge``...) are the library's own words."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{reason} ({kind})")
        self.kind = kind
        self.reason = reason


class InspectFailed(Exception):
    """The command could not be run, or did not answer as ``avatar inspect --json`` does: nothing was checked."""


@dataclass(frozen=True)
class Verdict:
    """A file the library reads: which engine it is for (``character`` or ``photoreal``) and its name."""

    kind: str
    name: str


def read_version(path: Path) -> int | None:
    """The header's format version, or None when the file does not start with the magic bytes."""
    with open(path, "rb") as f:
        head = f.read(12)
    if len(head) < 12 or head[:8] != MAGIC:
        return None
    return int.from_bytes(head[8:12], "little")


def default_command() -> str | None:
    """The essence2 command to check avatars with when none is given: ``$ESSENCE2_CLI`` when set and not empty,
    else ``essence2`` on PATH; None when there is neither."""
    return os.environ.get(COMMAND_ENV) or shutil.which("essence2")


def inspect(command: str, path: Path) -> Verdict:
    """Runs ``command avatar inspect --json path``. Returns the verdict on a valid file; raises ``ImxError`` with
    the library's reason when the file is invalid, ``InspectFailed`` when the command gives no verdict."""
    argv = [command, "avatar", "inspect", "--json", str(path)]
    try:
        run = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=INSPECT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise InspectFailed(f"{command} avatar inspect --json gave no answer in {INSPECT_TIMEOUT_S} s") from None
    except OSError as exc:
        raise InspectFailed(f"cannot run {command}: {exc.strerror or exc}") from None
    answer: object = None
    if run.returncode in (0, 4):
        try:
            answer = json.loads(run.stdout)
        except ValueError:
            pass
    if not isinstance(answer, dict) or answer.get("valid") is not (run.returncode == 0):
        tail = (run.stderr.strip() or run.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise InspectFailed(f"{command} avatar inspect --json did not answer with its verdict (exit "
                            f"{run.returncode}: {tail[0]}); avatar inspect --json is in essence2 1.4 and later")
    if run.returncode == 0:
        return Verdict(str(answer.get("kind", "unknown")), str(answer.get("name", "")))
    raise ImxError(str(answer.get("error_kind", "invalid")), str(answer.get("error", "invalid avatar")))
