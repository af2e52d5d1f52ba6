"""The extras: the wheel's METADATA lists each integration's requirements under its extra, and an integration
whose dependencies cannot be imported says which extra to install in one line (no traceback, exit status 1).

Needs neither the native library nor any integration's dependencies: the wheel is built around a stand-in
library, and the dependencies are hidden from the subprocesses by stub modules that fail to import.
"""

from __future__ import annotations

import email.message
import email.parser
import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml needs Python 3.11+ or tomli")

PYTHON = Path(__file__).resolve().parents[1]
BUILD_WHEEL = PYTHON / "build_wheel.py"

# integration module, its extra, the third-party modules it imports (each hidden in turn), a distribution the
# extra must bring
INTEGRATIONS = [
    ("essence2.web", "web", ["aiohttp", "aiortc", "av"], "aiortc"),
    ("essence2.pipecat", "pipecat", ["pipecat"], "pipecat-ai"),
    ("essence2.livekit", "livekit", ["livekit"], "livekit-agents"),
    ("essence2.batch", "batch", ["ray", "av"], "ray"),
]


def project() -> dict[str, Any]:
    with open(PYTHON / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def package_root() -> Path:
    """The folder holding the essence2 package the tests run against: the installed wheel, else python/src."""
    spec = importlib.util.find_spec("essence2")
    if spec is not None and spec.origin:
        return Path(spec.origin).parents[1]
    return PYTHON / "src"


@pytest.fixture(scope="module")
def wheel_metadata(tmp_path_factory: pytest.TempPathFactory) -> email.message.Message:
    tmp = tmp_path_factory.mktemp("wheel")
    (tmp / "avatars").mkdir()
    (tmp / "avatars" / "stand-in.imx").write_bytes(b"not an avatar")
    (tmp / "libessence2.so").write_bytes(b"not a library")
    run = subprocess.run([sys.executable, str(BUILD_WHEEL), "--lib", str(tmp / "libessence2.so"),
                          "--avatars", str(tmp / "avatars"), "--out", str(tmp / "dist")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    (wheel,) = (tmp / "dist").glob("essence2-*.whl")
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(z.read(name).decode())


def test_metadata_lists_each_extra_with_lower_bounds(wheel_metadata: email.message.Message) -> None:
    extras = wheel_metadata.get_all("Provides-Extra") or []
    requires = wheel_metadata.get_all("Requires-Dist") or []
    assert {"web", "pipecat", "livekit", "batch"} <= set(extras)
    for _, extra, _, dist in INTEGRATIONS:
        reqs = [r.split(";")[0].strip() for r in requires if r.endswith(f'; extra == "{extra}"')]
        assert any(r.startswith(dist + ">=") for r in reqs), (extra, reqs)
        assert reqs and all(">=" in r for r in reqs), (extra, reqs)
    assert "numpy>=1.21" in requires  # the core's own, without a marker


def test_metadata_is_pyproject(wheel_metadata: email.message.Message) -> None:
    """build_wheel.py writes exactly pyproject.toml's dependencies and extras: one list of them."""
    proj = project()
    extras = proj["optional-dependencies"]
    expected = list(proj["dependencies"]) + [f'{r}; extra == "{e}"' for e, reqs in extras.items() for r in reqs]
    assert wheel_metadata.get_all("Requires-Dist") == expected
    assert wheel_metadata.get_all("Provides-Extra") == list(extras)
    assert wheel_metadata["Requires-Python"] == proj["requires-python"]
    assert wheel_metadata["Version"] == proj["version"]


def stubs(folder: Path, hidden: list[str]) -> Path:
    """A folder of modules named ``hidden`` that fail to import, to put first on the path."""
    folder.mkdir(exist_ok=True)
    for name in hidden:
        (folder / f"{name}.py").write_text(f"raise ImportError('{name} is hidden by test_extras')\n")
    return folder


def run_hidden(tmp_path: Path, hidden: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(stubs(tmp_path / "stubs", hidden)), str(package_root())]
                                        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)


@pytest.mark.parametrize("module,extra,hidden", [(m, e, [h]) for m, e, hs, _ in INTEGRATIONS for h in hs])
def test_run_without_the_extra_prints_one_line(tmp_path: Path, module: str, extra: str, hidden: list[str]) -> None:
    run = run_hidden(tmp_path, hidden, "-m", module)
    assert run.returncode == 1, run.stderr
    assert run.stderr.splitlines() == [f"{module} needs the '{extra}' extra: pip install 'essence2[{extra}]'"]
    assert run.stdout == ""


@pytest.mark.parametrize("module,extra,hidden", [(m, e, hs) for m, e, hs, _ in INTEGRATIONS])
def test_import_without_the_extra_raises_import_error(tmp_path: Path, module: str, extra: str,
                                                      hidden: list[str]) -> None:
    code = f"import sys\ntry:\n    import {module}\nexcept ImportError as e:\n    print(e)\n    sys.exit(3)\n"
    run = run_hidden(tmp_path, hidden, "-c", code)
    assert run.returncode == 3, run.stderr
    assert run.stdout.splitlines() == [f"{module} needs the '{extra}' extra: pip install 'essence2[{extra}]'"]


def test_one_helper_guards_every_integration() -> None:
    """The guard lives in essence2._extras alone; the integrations only call it."""
    src = package_root() / "essence2"
    for module, extra, _, _ in INTEGRATIONS:
        text = (src / (module.split(".")[1] + ".py")).read_text()
        assert f'with needs_extra("{extra}", __name__):' in text
        assert "except ImportError" not in text


def test_readme_table_is_pyproject() -> None:
    """python/README.md's table of extras says what pyproject.toml (so the wheel) brings."""
    rows = {}
    for line in (PYTHON / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 3:
            rows[cells[0].strip("`")] = [r.strip() for r in cells[1].split(",")]
    assert rows == {extra: reqs for extra, reqs in project()["optional-dependencies"].items() if extra != "test"}
