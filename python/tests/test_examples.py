"""examples/python run as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_render_mp4_writes_a_video_with_the_speech():
    av = pytest.importorskip("av", reason="PyAV is not installed (pip install av)")
    out = Path(__file__).parent / "_render_test.mp4"
    try:
        run = subprocess.run([sys.executable, str(REPO / "examples/python/render_mp4.py"),
                              str(REPO / "examples/audio/demo.wav"), str(out)], capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stderr
        with av.open(str(out)) as f:
            kinds = {s.type: s for s in f.streams}
            assert kinds["video"].codec_context.name == "h264" and kinds["video"].width == 512
            assert kinds["audio"].codec_context.name == "aac"
            assert float(f.duration) / 1e6 > 8.0
    finally:
        out.unlink(missing_ok=True)


def test_render_mp4_reports_a_missing_avatar():
    pytest.importorskip("av")
    run = subprocess.run([sys.executable, str(REPO / "examples/python/render_mp4.py"),
                          str(REPO / "examples/audio/demo.wav"), "/tmp/never.mp4", "--avatar", "nobody"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "nobody" in run.stderr
