"""``avatar add`` checks the file with the library (``essence2 avatar inspect --json``): both kinds of avatar are
registered with the kind it finds, a file it refuses is refused with its reason, and without the command nothing
is registered. A file of a version the command does not read, or without the magic bytes, needs --format-version
(and is then unchecked).

The first tests use stand-ins for the command (``stub_essence2``); the last ones the real command
(``ESSENCE2_TEST_CLI``, else build/essence2) on the shipped avatars and damaged copies of them, and compare the
service's reason with what the command says of the same bytes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import imx_bytes, stub_essence2
from essence2_service.cli import main

REPO = Path(__file__).resolve().parents[2]
AVATARS = REPO / "avatars"
SHIPPED = {"grace-hopper": "photoreal", "astronaut": "photoreal", "squirrel": "character"}
CHARACTER = {"valid": True, "kind": "character", "name": "Squirrel"}


def add(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, *options: str,
        name: str = "avatar.imx") -> tuple[int, str]:
    """(exit status, stdout + stderr) of ``avatar add grace FILE`` with ``data`` as the file."""
    file = tmp_path / name
    file.write_bytes(data)
    code = main(["--db", str(tmp_path / "db.sqlite3"), "avatar", "add", "grace", str(file), *options])
    out, err = capsys.readouterr()
    return code, out + err


def stored_avatars(tmp_path: Path) -> list[str]:
    folder = tmp_path / "db.sqlite3.avatars"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def script(tmp_path: Path, name: str, body: str) -> Path:
    command = tmp_path / name
    command.write_text("#!/bin/sh\n" + body)
    command.chmod(0o755)
    return command


# -- with stand-ins for the command --------------------------------------------------------------------------


def test_the_kind_the_library_finds_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(stub_essence2(tmp_path, CHARACTER)))
    assert code == 0 and "format_version 1 kind character" in out, out
    assert len(stored_avatars(tmp_path)) == 1
    code, out = add(capsys, tmp_path, imx_bytes())  # the fixture's stand-in: photoreal
    assert code == 0 and "format_version 1 kind photoreal" in out, out


def test_a_file_the_library_refuses_is_refused_with_its_reason(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    refusal = {"valid": False, "error": "rig point 'left_eye' lies outside the 416x720 frame", "error_kind": "corrupt"}
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(stub_essence2(tmp_path, refusal)))
    assert code == 1 and out.startswith("error: ") and "Traceback" not in out, out
    assert (f"avatar.imx is not a valid .imx avatar: rig point 'left_eye' lies outside the 416x720 frame (corrupt)"
            in out), out
    assert stored_avatars(tmp_path) == []  # nothing left behind


def test_the_check_reads_the_copy_that_is_registered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "inspected"
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(stub_essence2(tmp_path, log=log)))
    assert code == 0, out
    inspected = Path(log.read_text().strip())
    assert inspected.parent == tmp_path / "db.sqlite3.avatars" and inspected != tmp_path / "avatar.imx"
    # The library names the path it read in some reasons: the operator is shown the file given.
    large = script(tmp_path, "large", "printf '{\"valid\": false, \"error\": \"%s has 300000000 bytes, more than "
                                      "the limit\", \"error_kind\": \"tooLarge\"}' \"$4\"\nexit 4\n")
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(large))
    assert code == 1 and f"{tmp_path / 'avatar.imx'} has 300000000 bytes, more than the limit (tooLarge)" in out, out
    assert len(stored_avatars(tmp_path)) == 1  # the first file only


def test_without_the_command_nothing_is_registered(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for value in (None, ""):  # unset, or empty: essence2 on PATH, and there is none
        if value is None:
            monkeypatch.delenv("ESSENCE2_CLI")
        else:
            monkeypatch.setenv("ESSENCE2_CLI", value)
        code, out = add(capsys, tmp_path, imx_bytes())
        assert code == 1 and "cannot check" in out and "no essence2 command" in out and "--inspect-with" in out \
            and "ESSENCE2_CLI" in out, out
        assert stored_avatars(tmp_path) == []


def test_where_the_command_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """--inspect-with, else $ESSENCE2_CLI (not empty), else essence2 on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    on_path = stub_essence2(bin_dir, {"valid": True, "kind": "on-path", "name": "x"})
    on_path.rename(bin_dir / "essence2")
    from_env = stub_essence2(tmp_path, {"valid": True, "kind": "from-env", "name": "x"})
    given = stub_essence2(tmp_path, {"valid": True, "kind": "given", "name": "x"})
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ESSENCE2_CLI", str(from_env))
    assert "kind given" in add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(given))[1]
    assert "kind from-env" in add(capsys, tmp_path, imx_bytes())[1]
    monkeypatch.setenv("ESSENCE2_CLI", "")
    assert "kind on-path" in add(capsys, tmp_path, imx_bytes())[1]
    monkeypatch.delenv("ESSENCE2_CLI")
    assert "kind on-path" in add(capsys, tmp_path, imx_bytes())[1]


@pytest.mark.parametrize(("body", "expected"), [
    ("echo 'cannot load libessence2.so.1' >&2\nexit 127\n", "exit 127: cannot load libessence2.so.1"),
    ("echo 'status: valid'\nexit 0\n", "did not answer with its verdict (exit 0: status: valid)"),
    ("echo '{\"valid\": true}'\nexit 4\n", "did not answer with its verdict (exit 4"),
    ("echo '[1, 2]'\nexit 0\n", "did not answer with its verdict"),
    ("echo 'essence2 avatar inspect: expects exactly one file' >&2\nexit 2\n", "essence2 1.4 and later"),
], ids=["exit-127", "text", "valid-but-exit-4", "not-an-object", "older-command"])
def test_a_command_that_gives_no_verdict_registers_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          body: str, expected: str) -> None:
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(script(tmp_path, "broken", body)))
    assert code == 1 and "cannot check" in out and expected in out and "Traceback" not in out, out
    assert stored_avatars(tmp_path) == []
    code, out = add(capsys, tmp_path, imx_bytes(), "--inspect-with", str(tmp_path / "nonexistent"))
    assert code == 1 and "cannot run" in out and "No such file" in out, out


def test_other_versions_need_format_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    newer = stub_essence2(tmp_path, {"valid": False, "error": "unsupported .imx version 2 (this library reads "
                                     "version 1): use a newer essence2", "error_kind": "version"})
    v2 = imx_bytes(2)
    code, out = add(capsys, tmp_path, v2, "--inspect-with", str(newer))
    assert code == 1 and "version 2" in out and "unsupported .imx version 2 (this library reads version 1)" in out \
        and "--format-version 2" in out, out
    code, out = add(capsys, tmp_path, v2, "--format-version", "3", "--inspect-with", str(newer))
    assert code == 1 and "not --format-version 3" in out, out
    code, out = add(capsys, tmp_path, v2, "--format-version", "2", "--inspect-with", str(newer))
    assert code == 0 and "format_version 2 unchecked" in out, out
    # A file the command reads is checked even with --format-version.
    corrupt = stub_essence2(tmp_path, {"valid": False, "error": "truncated", "error_kind": "truncated"})
    code, out = add(capsys, tmp_path, imx_bytes(), "--format-version", "1", "--inspect-with", str(corrupt))
    assert code == 1 and "not a valid .imx avatar: truncated (truncated)" in out, out
    # Not an .imx file at all: the library's reason, and only with --format-version (unchecked).
    not_avatar = stub_essence2(tmp_path, {"valid": False, "error": "not an .imx avatar file (wrong magic bytes)",
                                          "error_kind": "notAvatar"})
    code, out = add(capsys, tmp_path, b"something else entirely", "--inspect-with", str(not_avatar))
    assert code == 1 and "wrong magic bytes) (notAvatar)" in out and "--format-version" in out, out
    code, out = add(capsys, tmp_path, b"something else entirely", "--format-version", "7")
    assert code == 0 and "format_version 7 unchecked" in out, out


# -- with the real command -----------------------------------------------------------------------------------

REAL_CLI = os.environ.get("ESSENCE2_TEST_CLI") or str(REPO / "build" / "essence2")
real = pytest.mark.skipif(not shutil.which(REAL_CLI),
                          reason="no built essence2 command (make build, or ESSENCE2_TEST_CLI)")


def library_verdict(tmp_path: Path, data: bytes) -> dict[str, object]:
    """What ``essence2 avatar inspect --json`` says of ``data``, run here directly."""
    file = tmp_path / "direct.imx"
    file.write_bytes(data)
    run = subprocess.run([REAL_CLI, "avatar", "inspect", "--json", str(file)], capture_output=True, text=True,
                         timeout=60)
    answer = json.loads(run.stdout)
    assert isinstance(answer, dict)
    return answer


@real
@pytest.mark.parametrize("avatar", sorted(SHIPPED))
def test_the_shipped_avatars_are_registered_with_their_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            avatar: str) -> None:
    code, out = add(capsys, tmp_path, (AVATARS / f"{avatar}.imx").read_bytes(), "--inspect-with", REAL_CLI)
    assert code == 0 and f"format_version 1 kind {SHIPPED[avatar]}" in out, out
    assert len(stored_avatars(tmp_path)) == 1


def damage(data: bytes, how: str) -> bytes:
    """``data`` damaged as a transfer or a disk could: cut, a bit flipped, a byte added."""
    middle = len(data) // 2
    return {
        "cut-5000": data[:5000], "cut-40": data[:40], "cut-last-byte": data[:-1],
        "flip-in-table": data[:70] + bytes([data[70] ^ 1]) + data[71:],
        "flip-in-middle": data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1:],
        "flip-last-byte": data[:-1] + bytes([data[-1] ^ 1]), "byte-added": data + b"\0",
    }[how]


@real
@pytest.mark.parametrize("how", ["cut-5000", "cut-40", "cut-last-byte", "flip-in-table", "flip-in-middle",
                                 "flip-last-byte", "byte-added"])
@pytest.mark.parametrize("avatar", ["grace-hopper", "squirrel"])
def test_a_damaged_avatar_is_refused_with_the_library_s_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               avatar: str, how: str) -> None:
    data = damage((AVATARS / f"{avatar}.imx").read_bytes(), how)
    verdict = library_verdict(tmp_path, data)
    assert verdict["valid"] is False and verdict["error_kind"] in ("truncated", "checksum", "corrupt"), verdict
    code, out = add(capsys, tmp_path, data, "--inspect-with", REAL_CLI)
    assert code == 1 and "Traceback" not in out, out
    assert f"avatar.imx is not a valid .imx avatar: {verdict['error']} ({verdict['error_kind']})" in out, (out, verdict)
    assert stored_avatars(tmp_path) == []


@real
def test_the_library_s_reason_for_other_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for data in (b"", b"something else entirely"):
        verdict = library_verdict(tmp_path, data)
        code, out = add(capsys, tmp_path, data, "--inspect-with", REAL_CLI)
        assert code == 1 and f"{verdict['error']} ({verdict['error_kind']})" in out, (out, verdict)
    newer = bytearray((AVATARS / "squirrel.imx").read_bytes())
    newer[8:12] = (2).to_bytes(4, "little")  # the header's format version
    verdict = library_verdict(tmp_path, bytes(newer))
    assert verdict["error_kind"] == "version", verdict
    code, out = add(capsys, tmp_path, bytes(newer), "--inspect-with", REAL_CLI)
    assert code == 1 and f"{verdict['error']} (version)" in out and "--format-version 2" in out, out
    code, out = add(capsys, tmp_path, bytes(newer), "--inspect-with", REAL_CLI, "--format-version", "2")
    assert code == 0 and "format_version 2 unchecked" in out, out
