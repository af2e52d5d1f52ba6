"""Builds the essence2 wheel with libessence2 and the shipped avatars inside (``make python``).

    python3 python/build_wheel.py --lib build/lib/libessence2.so.1.4.0 --avatars avatars --out dist

Writes ``dist/essence2-<version>-py3-none-linux_<arch>.whl``: the pure-Python package from ``python/src``, the
library as ``essence2/_data/libessence2.so.1`` (it links only libc, libm, libstdc++ and libgcc_s: the Swift
runtime is inside it), the ``.imx`` avatars under ``essence2/_data/avatars/``, and the licence. A wheel is a zip
file with its metadata and a RECORD of sha256 digests (PEP 427); this script writes one directly with the
standard library, so building needs no network and no build backend. Entries are sorted and dated 1980-01-01,
so the same inputs give the same bytes. The metadata's summary, Python version, dependencies and extras
(``Requires-Dist``, ``Provides-Extra``) are read from ``python/pyproject.toml``, their one list.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import platform
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ImportError:
        tomllib = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
SRC = HERE / "src" / "essence2"
PYPROJECT = HERE / "pyproject.toml"


def version() -> str:
    text = (SRC / "__init__.py").read_text()
    m = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if not m:
        raise SystemExit("no __version__ in essence2/__init__.py")
    return m.group(1)


def project(path: Path = PYPROJECT) -> dict[str, Any]:
    """The ``[project]`` table of pyproject.toml."""
    if tomllib is None:
        raise SystemExit("build_wheel.py reads pyproject.toml with tomllib: run it with Python 3.11+ "
                         "(or pip install tomli)")
    with open(path, "rb") as f:
        return tomllib.load(f)["project"]


def requirements(proj: dict[str, Any]) -> list[str]:
    """``Provides-Extra`` and ``Requires-Dist`` lines: the dependencies, then each extra's with its marker."""
    lines = [f"Requires-Dist: {req}" for req in proj.get("dependencies", [])]
    for extra, reqs in proj.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {req}; extra == "{extra}"' for req in reqs]
    return lines


def pinned(proj: dict[str, Any], extras: list[str]) -> list[str]:
    """The requirements of the package and of `extras` (pip's syntax), for installing a test environment."""
    known = proj.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in known]
    if unknown:
        raise SystemExit(f"no extra named {', '.join(unknown)} in pyproject.toml (there are: {', '.join(known)})")
    reqs = list(proj.get("dependencies", []))
    for extra in extras:
        reqs += [r for r in known[extra] if r not in reqs]
    return reqs


def metadata(ver: str, readme: str, proj: dict[str, Any] | None = None) -> str:
    """The wheel's METADATA (core metadata 2.1) for version ``ver``, with ``readme`` as its description."""
    proj = project() if proj is None else proj
    return "\n".join([
        "Metadata-Version: 2.1", f"Name: {proj['name']}", f"Version: {ver}", f"Summary: {proj['description']}",
        f"Requires-Python: {proj['requires-python']}", *requirements(proj),
        "Description-Content-Type: text/markdown", "", readme])


def digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", help="libessence2.so built by `make`")
    ap.add_argument("--avatars", help="directory of .imx avatars to ship")
    ap.add_argument("--license", default=str(HERE.parent / "LICENSE"))
    ap.add_argument("--out", default="dist")
    ap.add_argument("--requirements", metavar="EXTRA,EXTRA",
                    help="print the requirements of the package and these extras, one a line, and build nothing")
    a = ap.parse_args(argv)
    if a.requirements is not None:
        print("\n".join(pinned(project(), [e for e in a.requirements.split(",") if e])))
        return 0
    if not a.lib or not a.avatars:
        ap.error("--lib and --avatars are needed to build the wheel")
    lib = Path(a.lib)
    if not lib.is_file():
        raise SystemExit(f"{lib}: no such library (run make first)")
    avatars = sorted(Path(a.avatars).glob("*.imx"))
    if not avatars:
        raise SystemExit(f"{a.avatars}: no .imx avatars")
    ver = version()
    proj = project()
    if proj["version"] != ver:
        raise SystemExit(f"pyproject.toml says version {proj['version']}, essence2/__init__.py {ver}")
    arch = platform.machine()
    tag = f"py3-none-linux_{arch}"
    dist_info = f"essence2-{ver}.dist-info"
    files: list[tuple[str, bytes, int]] = []
    for path in sorted(SRC.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and "_data" not in path.parts:
            files.append((f"essence2/{path.relative_to(SRC).as_posix()}", path.read_bytes(), 0o644))
    files.append(("essence2/_data/libessence2.so.1", lib.read_bytes(), 0o755))
    for av in avatars:
        files.append((f"essence2/_data/avatars/{av.name}", av.read_bytes(), 0o644))
    meta = metadata(ver, (HERE / "README.md").read_text(), proj)
    wheel = "\n".join(["Wheel-Version: 1.0", "Generator: essence2 build_wheel.py", "Root-Is-Purelib: false",
                       f"Tag: {tag}", ""])
    files += [(f"{dist_info}/METADATA", meta.encode(), 0o644),
              (f"{dist_info}/WHEEL", wheel.encode(), 0o644),
              (f"{dist_info}/top_level.txt", b"essence2\n", 0o644)]
    if Path(a.license).is_file():
        files.append((f"{dist_info}/LICENSE", Path(a.license).read_bytes(), 0o644))
    record = "".join(f"{name},{digest(data)},{len(data)}\n" for name, data, _ in files)
    record += f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode(), 0o644))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"essence2-{ver}-{tag}.whl"
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, target)
    print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
