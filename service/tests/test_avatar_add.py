"""``avatar add`` checks the file (docs/imx-format.md): the header, the section table within the file, every
checksum, the sections' lengths and the manifest; with an essence2 command, its ``avatar inspect`` too. A file
of another version, or without the magic bytes, needs --format-version (and is then unchecked)."""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import stat
import struct
from pathlib import Path

import pytest

from conftest import imx_bytes, imx_file, imx_sections
from essence2_service.cli import main

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "avatars" / "grace-hopper.imx"


def add(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, *options: str) -> tuple[int, str]:
    """(exit status, stdout + stderr) of ``avatar add grace FILE`` with ``data`` as the file."""
    file = tmp_path / "avatar.imx"
    file.write_bytes(data)
    code = main(["--db", str(tmp_path / "db.sqlite3"), "avatar", "add", "grace", str(file), *options])
    out, err = capsys.readouterr()
    return code, out + err


def redigest(data: bytes) -> bytes:
    """``data`` with the header's tableDigest made right again (after a change to the header or the table)."""
    count = struct.unpack_from("<I", data, 12)[0]
    return data[:32] + hashlib.sha256(data[:32] + data[64:64 + 80 * count]).digest() + data[64:]


def stored_avatars(tmp_path: Path) -> list[str]:
    folder = tmp_path / "db.sqlite3.avatars"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_valid_file_is_registered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = add(capsys, tmp_path, imx_bytes())
    assert code == 0 and "format_version 1" in out, out


def test_the_shipped_avatar_is_registered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = add(capsys, tmp_path, SHIPPED.read_bytes())
    assert code == 0 and "format_version 1" in out, out


@pytest.mark.parametrize("cut", [5000, 100, 40])
def test_a_truncated_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: int) -> None:
    code, out = add(capsys, tmp_path, SHIPPED.read_bytes()[:cut])
    assert code == 1 and "error: " in out and "not a valid .imx avatar" in out and "truncated" in out, out
    assert "Traceback" not in out and stored_avatars(tmp_path) == []  # nothing left behind


@pytest.mark.parametrize(("field", "value"), [(24, 10**7), (32, 10**6)], ids=["offset", "stored-length"])
def test_a_section_table_pointing_past_the_end_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          field: int, value: int) -> None:
    data = bytearray(SHIPPED.read_bytes())
    struct.pack_into("<Q", data, 64 + 80 * 4 + field, value)  # the last section (headMask)
    code, out = add(capsys, tmp_path, redigest(bytes(data)))
    assert code == 1 and "past the end of the file" in out and "(corrupt)" in out, out
    assert stored_avatars(tmp_path) == []


@pytest.mark.parametrize(("change", "expected"), [
    ("table-count", "section table"),
    ("flip-table", "checksum mismatch in the header and section table"),
    ("flip-image", "checksum mismatch in section 'image'"),
    ("trailing", "bytes after"),
    ("gap", "a gap or an overlap"),
    ("no-mesh", "'mesh' is missing"),
    ("image-size", "section 'image' decodes to"),
    ("manifest", "manifest's size"),
    ("rle8", "does not decode to exactly"),
])
def test_other_malformed_files_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str,
                                           expected: str) -> None:
    sections = imx_sections()
    data = imx_file(sections, 4, 4)
    if change == "table-count":  # a small file whose header announces 32 sections: the table cannot fit
        small = imx_file([("manifest", 0, b"{}", 2)], 4, 4)
        data = redigest(small[:12] + struct.pack("<I", 32) + small[16:])
    elif change == "flip-table":
        data = data[:70] + bytes([data[70] ^ 1]) + data[71:]
    elif change == "flip-image":
        image_at = struct.unpack_from("<Q", data, 64 + 80 + 24)[0]
        data = data[:image_at] + bytes([data[image_at] ^ 1]) + data[image_at + 1:]
    elif change == "trailing":
        data += b"\0"
    elif change == "gap":
        data = bytearray(data)
        struct.pack_into("<Q", data, 64 + 24, struct.unpack_from("<Q", data, 64 + 24)[0] + 1)
        data = redigest(bytes(data))
    elif change == "no-mesh":
        data = imx_file([s for s in sections if s[0] != "mesh"], 4, 4)
    elif change == "image-size":
        data = imx_file([s if s[0] != "image" else ("image", 0, s[2][:-3], len(s[2]) - 3) for s in sections], 4, 4)
    elif change == "manifest":  # the header says 4x4, the manifest 4x4 too, but the header is made 8x2
        data = redigest(data[:24] + struct.pack("<II", 8, 2) + data[32:])
    elif change == "rle8":  # a headMask stream one byte short
        data = imx_file([s if s[0] != "headMask" else ("headMask", 1, s[2], s[3] + 1) for s in sections], 4, 4)
    code, out = add(capsys, tmp_path, data)
    assert code == 1 and "not a valid .imx avatar" in out and expected in out, out
    assert stored_avatars(tmp_path) == []


def test_other_versions_need_format_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    v2 = imx_bytes(2)
    code, out = add(capsys, tmp_path, v2)
    assert code == 1 and "version 2" in out and "--format-version 2" in out, out
    code, out = add(capsys, tmp_path, v2, "--format-version", "3")
    assert code == 1 and "not --format-version 3" in out, out
    code, out = add(capsys, tmp_path, v2, "--format-version", "2")
    assert code == 0 and "format_version 2" in out, out
    # A version 1 file is checked even with --format-version 1.
    code, out = add(capsys, tmp_path, SHIPPED.read_bytes()[:5000], "--format-version", "1")
    assert code == 1 and "truncated" in out, out
    # Not an .imx file at all: only with --format-version (unchecked), as before.
    code, out = add(capsys, tmp_path, b"something else entirely")
    assert code == 1 and "not an .imx file" in out, out
    assert add(capsys, tmp_path, b"something else entirely", "--format-version", "7")[0] == 0


def fake_essence2(tmp_path: Path, status: int, line: str) -> Path:
    command = tmp_path / "essence2"
    command.write_text(f"#!/bin/sh\n[ \"$1 $2\" = 'avatar inspect' ] || exit 2\necho \"file: $3\"\n"
                       f"echo {shlex.quote(line)}\nexit {status}\n")
    command.chmod(command.stat().st_mode | stat.S_IXUSR)
    return command


def test_the_essence2_command_inspects_the_file_too(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    invalid = fake_essence2(tmp_path, 4, "status: INVALID (corrupt): landmark 'chin' lies outside the portrait")
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(invalid))
    assert code == 1 and "landmark 'chin' lies outside the portrait (corrupt)" in out, out
    monkeypatch.setenv("ESSENCE2_CLI", str(invalid))  # the default command
    assert add(capsys, tmp_path, imx_bytes())[0] == 1
    assert add(capsys, tmp_path, imx_bytes(), "--no-inspect")[0] == 0
    monkeypatch.setenv("ESSENCE2_CLI", "")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")  # empty: not even from PATH
    assert add(capsys, tmp_path, imx_bytes())[0] == 0
    monkeypatch.delenv("ESSENCE2_CLI")  # then essence2 on PATH
    assert add(capsys, tmp_path, imx_bytes())[0] == 1
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\necho 'cannot load libessence2' >&2\nexit 127\n")
    broken.chmod(0o755)
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(broken))
    assert code == 1 and "exit 127" in out and "cannot load libessence2" in out, out
    valid = fake_essence2(tmp_path, 0, "status: valid")
    assert add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(valid))[0] == 0


REAL_CLI = os.environ.get("ESSENCE2_TEST_CLI") or str(REPO / "build" / "essence2")


@pytest.mark.skipif(not shutil.which(REAL_CLI), reason="no built essence2 command (make build, or ESSENCE2_TEST_CLI)")
def test_the_real_essence2_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = add(capsys, tmp_path, SHIPPED.read_bytes(), "--inspect-with", REAL_CLI)
    assert code == 0, out
    # Valid in structure, but its landmarks are zeros: the engine's reader refuses it.
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", REAL_CLI)
    assert code == 1 and "not a valid .imx avatar" in out, out
