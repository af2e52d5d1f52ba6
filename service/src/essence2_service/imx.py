"""Checks of an ``.imx`` avatar file before ``avatar add`` registers it (docs/imx-format.md).

``check_structure`` does, in Python, the reader's checks 1 to 8 and the structural part of 9: the header, the
section table within the file and its SHA-256, sections contiguous up to the end of the file, every section's
SHA-256, rle8 streams that decode to their declared length, the required sections with their lengths, and the
manifest (strict JSON object of format ``essence2-avatar``, version 1, the header's width and height, a name).
What it leaves to the engine's own reader is the content of the landmarks and the mesh (points inside the
portrait, triangle indices): ``inspect`` runs ``essence2 avatar inspect`` for that, where the command is
available.

Files of another format version are not checked here: this service knows the layout of version 1 only.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

MAGIC = b"\x89IMX\r\n\x1a\n"
VERSION = 1
HEADER_SIZE = 64
ENTRY_SIZE = 80
MAX_FILE = 256 * 1024 * 1024
MAX_SIDE = 16384
MAX_PIXELS = 8192 * 8192
MAX_SECTIONS = 32
MAX_SMALL_SECTION = 64 * 1024  # manifest, landmarks
REQUIRED = ("manifest", "image", "landmarks", "mesh")
MESH_POINTS = 478
MAX_TRIANGLES = 8192
_NAME = re.compile(rb"^[A-Za-z0-9_.-]{1,16}$")
_CHUNK = 1 << 20
INSPECT_TIMEOUT_S = 120


class ImxError(Exception):
    """The file is not a valid .imx avatar; ``kind`` is the reader's error kind (docs/imx-format.md)."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{reason} ({kind})")
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class Section:
    name: str
    encoding: int
    offset: int
    stored: int
    length: int
    sha256: bytes


@dataclass(frozen=True)
class Header:
    version: int
    width: int = 0
    height: int = 0
    sections: tuple[Section, ...] = ()


def read_version(path: Path) -> int | None:
    """The header's format version, or None when the file does not start with the magic bytes."""
    with open(path, "rb") as f:
        head = f.read(12)
    if len(head) < 12 or head[:8] != MAGIC:
        return None
    return int.from_bytes(head[8:12], "little")


def check_structure(path: Path) -> Header:
    """Checks a version 1 file; raises ``ImxError`` naming the first problem."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            return _check(f, size)
    except OSError as exc:
        raise ImxError("unreadable", f"cannot read the file: {exc.strerror or exc}") from None


def _check(f: BinaryIO, size: int) -> Header:
    if size > MAX_FILE:
        raise ImxError("tooLarge", f"the file is {size} bytes, over the limit of {MAX_FILE}")
    header = f.read(HEADER_SIZE)
    if not header:
        raise ImxError("truncated", "the file is empty")
    if not MAGIC.startswith(header[:8]):
        raise ImxError("notAvatar", "not an .imx avatar file (wrong magic bytes)")
    if len(header) < HEADER_SIZE:
        raise ImxError("truncated", f"truncated file: {len(header)} bytes, shorter than the 64-byte header")
    version, count, declared, width, height = struct.unpack_from("<IIQII", header, 8)
    if version != VERSION:
        return Header(version)
    if not 1 <= count <= MAX_SECTIONS:
        raise ImxError("corrupt", f"{count} sections: a file has 1 to {MAX_SECTIONS}")
    if declared > MAX_FILE:
        raise ImxError("tooLarge", f"the header declares {declared} bytes, over the limit of {MAX_FILE}")
    if declared > size:
        raise ImxError("truncated", f"truncated file: {size} bytes of the {declared} the header declares")
    if declared < size:
        raise ImxError("corrupt", f"{size - declared} bytes after the {declared} the header declares")
    table_end = HEADER_SIZE + ENTRY_SIZE * count
    if table_end > size:
        raise ImxError("corrupt", f"the section table ({count} sections) ends past the end of the file")
    table = f.read(ENTRY_SIZE * count)
    if hashlib.sha256(header[:32] + table).digest() != header[32:64]:
        raise ImxError("checksum", "checksum mismatch in the header and section table")
    if width == 0 or height == 0:
        raise ImxError("corrupt", f"portrait of {width}x{height} pixels")
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise ImxError("tooLarge", f"portrait of {width}x{height} pixels, over the limits")

    sections: list[Section] = []
    expected = table_end
    for i in range(count):
        raw_name, encoding, reserved, offset, stored, length, digest = struct.unpack_from(
            "<16sIIQQQ32s", table, ENTRY_SIZE * i)
        name_bytes, _, padding = raw_name.partition(b"\0")
        if not _NAME.match(name_bytes) or padding.strip(b"\0"):
            raise ImxError("corrupt", f"section {i} has a malformed name {raw_name!r}")
        name = name_bytes.decode("ascii")
        if any(s.name == name for s in sections):
            raise ImxError("corrupt", f"two sections are named '{name}'")
        if encoding not in (0, 1):
            raise ImxError("corrupt", f"section '{name}' has the unknown encoding {encoding}")
        if reserved != 0:
            raise ImxError("corrupt", f"section '{name}' has a non-zero reserved field")
        if offset + stored > size:
            raise ImxError("corrupt", f"section '{name}' ({stored} bytes at {offset}) extends past the end of the "
                                      f"file ({size} bytes)")
        if offset != expected:
            raise ImxError("corrupt", f"section '{name}' starts at {offset}, not at {expected}: a gap or an overlap")
        expected = offset + stored
        if length > MAX_FILE:
            raise ImxError("tooLarge", f"section '{name}' decodes to {length} bytes, over the limit")
        if encoding == 0 and length != stored:
            raise ImxError("corrupt", f"raw section '{name}' declares {length} bytes but stores {stored}")
        if encoding == 1 and length > 65 * stored:
            raise ImxError("corrupt", f"rle8 section '{name}' cannot decode to {length} bytes from {stored}")
        sections.append(Section(name, encoding, offset, stored, length, digest))
    if expected != size:
        raise ImxError("corrupt", f"{size - expected} bytes after the last section")

    small: dict[str, bytes] = {}
    for s in sections:
        digest = hashlib.sha256()
        rle = _Rle8() if s.encoding == 1 else None
        keep = s.name in ("manifest", "landmarks", "mesh") and s.length <= 2 * MAX_SMALL_SECTION
        kept = bytearray()
        f.seek(s.offset)
        left = s.stored
        while left:
            chunk = f.read(min(_CHUNK, left))
            if not chunk:
                raise ImxError("truncated", f"section '{s.name}' ends past the end of the file")
            left -= len(chunk)
            digest.update(chunk)
            if rle is not None:
                if not rle.feed(chunk, kept if keep else None, s.length):
                    raise ImxError("corrupt", f"rle8 section '{s.name}' decodes to more than {s.length} bytes")
            elif keep:
                kept += chunk
        if digest.digest() != s.sha256:
            raise ImxError("checksum", f"checksum mismatch in section '{s.name}'")
        if rle is not None and (rle.pending or rle.decoded != s.length):
            raise ImxError("corrupt", f"rle8 section '{s.name}' does not decode to exactly {s.length} bytes")
        if keep:
            small[s.name] = bytes(kept)

    by_name = {s.name: s for s in sections}
    for name in REQUIRED:
        if name not in by_name:
            raise ImxError("corrupt", f"the required section '{name}' is missing")
    if by_name["image"].length != width * height * 3:
        raise ImxError("corrupt", f"section 'image' decodes to {by_name['image'].length} bytes, not "
                                  f"{width}x{height}x3 = {width * height * 3}")
    mask = by_name.get("headMask")
    if mask is not None and mask.length not in (0, width * height):
        raise ImxError("corrupt", f"section 'headMask' decodes to {mask.length} bytes, not 0 or {width * height}")
    for name in ("manifest", "landmarks"):
        if by_name[name].length > MAX_SMALL_SECTION:
            raise ImxError("tooLarge", f"section '{name}' is {by_name[name].length} bytes, over {MAX_SMALL_SECTION}")
    _check_manifest(small["manifest"], width, height)
    _check_mesh(small.get("mesh"), by_name["mesh"].length)
    return Header(version, width, height, tuple(sections))


class _Rle8:
    """Walks an rle8 stream chunk by chunk (a control byte c < 128: c + 1 literal bytes; c >= 128: one byte
    repeated c - 125 times), counting what it decodes to and, when asked, decoding it."""

    def __init__(self) -> None:
        self.decoded = 0
        self.literal = 0  # literal bytes still to come
        self.repeat = 0  # a repeat whose byte is still to come
        self.pending = False

    def feed(self, chunk: bytes, out: bytearray | None, limit: int) -> bool:
        """Takes the next stored bytes; False as soon as the stream decodes to more than ``limit`` bytes."""
        i, n = 0, len(chunk)
        while i < n:
            if self.decoded + self.literal + self.repeat > limit:
                return False
            if self.literal:
                take = min(self.literal, n - i)
                if out is not None:
                    out += chunk[i:i + take]
                self.decoded += take
                self.literal -= take
                i += take
            elif self.repeat:
                if out is not None:
                    out += bytes([chunk[i]]) * self.repeat
                self.decoded += self.repeat
                self.repeat = 0
                i += 1
            else:
                c = chunk[i]
                i += 1
                if c < 128:
                    self.literal = c + 1
                else:
                    self.repeat = c - 125
        self.pending = bool(self.literal or self.repeat)
        return self.decoded + self.literal + self.repeat <= limit


def _check_manifest(data: bytes, width: int, height: int) -> None:
    def no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate keys")
        return dict(pairs)

    def no_constant(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    try:
        manifest = json.loads(data.decode("utf-8"), object_pairs_hook=no_duplicates, parse_constant=no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ImxError("corrupt", f"the manifest is not strict UTF-8 JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise ImxError("corrupt", "the manifest is not a JSON object")
    if manifest.get("format") != "essence2-avatar":
        raise ImxError("corrupt", "the manifest's format is not \"essence2-avatar\"")
    version = manifest.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ImxError("corrupt", "the manifest has no integer version")
    if version != VERSION:
        raise ImxError("version", f"the manifest says version {version}")
    if manifest.get("width") != width or manifest.get("height") != height:
        raise ImxError("corrupt", f"the manifest's size {manifest.get('width')}x{manifest.get('height')} is not "
                                  f"the header's {width}x{height}")
    name = manifest.get("name")
    if not isinstance(name, str) or not 1 <= len(name.encode("utf-8")) <= 256:
        raise ImxError("corrupt", "the manifest's name is not a string of 1 to 256 UTF-8 bytes")


def _check_mesh(data: bytes | None, length: int) -> None:
    if data is None or len(data) < 8:
        raise ImxError("corrupt", f"the mesh section is {length} bytes, not the size of a mesh")
    points, triangles = struct.unpack_from("<II", data)
    if points != MESH_POINTS or not 1 <= triangles <= MAX_TRIANGLES:
        raise ImxError("corrupt", f"the mesh has {points} points and {triangles} triangles (478 and 1 to 8192)")
    if length != 8 + 12 * points + 6 * triangles:
        raise ImxError("corrupt", f"the mesh section is {length} bytes, not 8 + 12 x {points} + 6 x {triangles}")


def inspect(command: str, path: Path) -> None:
    """Runs ``command avatar inspect path`` (the engine's own reader, every check); raises ``ImxError`` with its
    verdict when it finds the file invalid, or when it cannot be run."""
    try:
        run = subprocess.run([command, "avatar", "inspect", str(path)], capture_output=True, text=True,
                             timeout=INSPECT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImxError("inspect", f"could not run {command} avatar inspect: {exc}") from None
    if run.returncode == 0:
        return
    status = [line for line in run.stdout.splitlines() if line.startswith("status:")]
    if run.returncode == 4 and status:
        verdict = status[-1].removeprefix("status:").strip()
        match = re.match(r"INVALID \((\w+)\): (.*)", verdict)
        raise ImxError(match.group(1) if match else "invalid", match.group(2) if match else verdict)
    tail = (run.stderr.strip() or run.stdout.strip()).splitlines()[-1:] or ["no output"]
    raise ImxError("inspect", f"{command} avatar inspect failed (exit {run.returncode}): {tail[0]}")
