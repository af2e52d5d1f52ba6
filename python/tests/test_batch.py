"""python -m essence2.batch on a local Ray instance (ray.init with 2 CPUs): 20 short files and one corrupt input
that fails alone; a second run skips what is done."""

from __future__ import annotations

import csv
import subprocess
import sys
import wave
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install ray)")
av = pytest.importorskip("av", reason="PyAV is not installed (pip install av)")

from test_engine import demo_pcm  # noqa: E402


def run_batch(manifest: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "essence2.batch", str(manifest), "--out", str(out),
                           "--num-cpus", "2"], capture_output=True, text=True, timeout=600)


def test_twenty_files_render_on_ray_a_corrupt_one_fails_alone_and_a_rerun_resumes(tmp_path):
    pcm = demo_pcm()
    speech = tmp_path / "speech"
    speech.mkdir()
    rows = []
    for k in range(20):
        part = pcm[k * 3000:k * 3000 + 8000 + 400 * k]  # 0.5 ... 1.0 s
        path = speech / f"clip{k:02d}.wav"
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(part.tobytes())
        rows.append({"speech": f"speech/{path.name}", "avatar": "astronaut" if k % 2 else ""})
    (speech / "broken.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt garbage")
    rows.insert(7, {"speech": "speech/broken.wav", "avatar": ""})
    manifest = tmp_path / "manifest.csv"
    with open(manifest, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["speech", "avatar"])
        w.writeheader()
        w.writerows(rows)
    out = tmp_path / "out"

    first = run_batch(manifest, out)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "20 rendered, 0 skipped, 1 failed" in first.stdout
    assert "failed: row 9" in first.stdout and "broken.wav" in first.stdout
    outputs = sorted(out.glob("*.mp4"))
    assert len(outputs) == 20 and not list(out.glob("*.part"))
    with av.open(str(outputs[0])) as f:
        kinds = {s.type for s in f.streams}
        assert kinds == {"video", "audio"} and f.streams.video[0].frames >= 12
    with open(out / "batch-report.csv") as f:
        report = list(csv.DictReader(f))
    assert [r["status"] for r in report].count("done") == 20
    bad = [r for r in report if r["status"] == "failed"]
    assert len(bad) == 1 and bad[0]["reason"]

    again = run_batch(manifest, out)
    assert again.returncode == 1
    assert "20 already done, 1 to render" in again.stdout
    assert "0 rendered, 20 skipped, 1 failed" in again.stdout


def test_a_manifest_without_a_speech_column_is_refused(tmp_path):
    manifest = tmp_path / "m.csv"
    manifest.write_text("file,avatar\nx.wav,\n")
    run = run_batch(manifest, tmp_path / "out")
    assert run.returncode == 2 and "'speech' column" in run.stderr
