"""Batch rendering on Ray: ``python -m essence2.batch MANIFEST.csv --out DIR [--address ADDR]``.

One Ray task per row of the manifest renders a speech file to an MP4 (H.264 + AAC through PyAV) with the avatar
speaking it. The manifest is CSV with a header; columns ``speech`` (required), ``avatar`` (an ``.imx`` path or a
shipped avatar's name; default ``--avatar``) and ``output`` (default ``DIR/<speech name>.mp4``); relative paths
are taken from the manifest's folder. Runs on a local Ray instance (``--num-cpus``), or unchanged against a
cluster (``--address ray://host:10001`` or ``auto``) where the workers have this package and the files.

Resumable: an output appears only when it is complete (written beside it and renamed), and a row whose output
exists is skipped. Progress is printed as tasks finish; failures are listed with their reason, and the whole run
is written to ``DIR/batch-report.csv``. Exit status: 0 when every row is rendered, 1 when some failed (or the
``batch`` extra is not installed), 2 for a bad manifest or arguments. Needs the ``batch`` extra
(``pip install 'essence2[batch]'``: Ray and PyAV).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ._extras import needs_extra

with needs_extra("batch", __name__):
    import av  # noqa: F401 - checked here; render() imports it where it runs (a Ray worker)
    import ray


@dataclass
class Job:
    row: int
    speech: str
    avatar: str
    output: str


def read_manifest(path: Path, out: Path, default_avatar: str) -> list[Job]:
    """The manifest's rows as jobs, paths made absolute. Raises ValueError naming the row at fault."""
    base = path.resolve().parent
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or "speech" not in [c.strip() for c in reader.fieldnames]:
            raise ValueError(f"{path}: the first line must be a header with a 'speech' column "
                             "(and optionally 'avatar' and 'output')")
        jobs, outputs = [], set()
        for k, raw in enumerate(reader, start=2):
            row = {(key or "").strip(): (value or "").strip() for key, value in raw.items()}
            if not row.get("speech"):
                raise ValueError(f"{path}:{k}: no speech file")
            speech = base / row["speech"]
            avatar = row.get("avatar") or default_avatar
            if avatar.endswith(".imx") or os.sep in avatar:
                avatar = str(base / avatar)
            output = Path(row["output"]) if row.get("output") else out / (speech.stem + ".mp4")
            output = output if output.is_absolute() else (base / output)
            if str(output) in outputs:
                raise ValueError(f"{path}:{k}: output {output} is also written by an earlier row")
            outputs.add(str(output))
            jobs.append(Job(k, str(speech), avatar, str(output)))
    return jobs


def render(job: Job, seed: int) -> dict[str, Any]:
    """Renders one job; returns its report row (never raises: a failure is reported with its reason)."""
    started = time.monotonic()
    tmp = job.output + ".part"
    try:
        import av  # noqa: F811 - in the worker: one without PyAV fails its rows, reported, not the batch

        from ._audio import decode_audio
        from .engine import Essence2
        from .expression2 import open_avatar
        from . import _native as N

        data = Path(job.speech).read_bytes()
        pcm, rate = decode_audio(data)
        if len(pcm) == 0:
            raise ValueError("the speech file holds no audio")
        Path(job.output).parent.mkdir(parents=True, exist_ok=True)
        frames = 0
        with open_avatar(job.avatar, pacing="unpaced", seed=seed) as engine, av.open(tmp, "w", format="mp4") as out:
            video = out.add_stream("libx264", rate=engine.fps)
            video.width, video.height, video.pix_fmt = engine.width, engine.height, "yuv420p"
            audio = out.add_stream("aac", rate=N.SAMPLE_RATE, layout="mono")
            engine.push_audio(pcm, sample_rate=rate)
            engine.flush()
            samples = 0
            for frame in engine.frames_until_idle():
                picture = av.VideoFrame.from_ndarray(frame.bgr, format="bgr24")
                picture.pts, picture.time_base = frame.index, Fraction(1, engine.fps)
                out.mux(video.encode(picture))
                sound = av.AudioFrame.from_ndarray(frame.audio.reshape(1, -1), format="s16", layout="mono")
                sound.sample_rate, sound.pts = N.SAMPLE_RATE, samples
                samples += len(frame.audio)
                out.mux(audio.encode(sound))
                frames += 1
            out.mux(video.encode())
            out.mux(audio.encode())
        os.replace(tmp, job.output)
        return {"row": job.row, "speech": job.speech, "output": job.output, "status": "done", "frames": frames,
                "seconds": round(time.monotonic() - started, 2), "reason": ""}
    except Exception as e:  # reported, never lost: the batch goes on
        try:
            os.unlink(tmp)
        except OSError:
            pass
        reason = str(e) or type(e).__name__
        return {"row": job.row, "speech": job.speech, "output": job.output, "status": "failed", "frames": 0,
                "seconds": round(time.monotonic() - started, 2), "reason": reason.splitlines()[0][:500]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m essence2.batch", description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest", help="CSV with a header: speech[,avatar][,output]")
    ap.add_argument("--out", required=True, help="folder for outputs without an 'output' column, and the report")
    ap.add_argument("--address", help="a Ray cluster to join (ray://host:10001, or 'auto'); default: start a "
                                      "local instance")
    ap.add_argument("--num-cpus", type=int, help="CPUs of the local instance (default: all)")
    ap.add_argument("--avatar", default="grace-hopper", help="avatar for rows without one")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    out = Path(a.out)
    try:
        jobs = read_manifest(Path(a.manifest), out, a.avatar)
    except (OSError, ValueError, csv.Error) as e:
        print(f"essence2.batch: {e}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    todo = [j for j in jobs if not os.path.exists(j.output)]
    done_before = len(jobs) - len(todo)
    print(f"essence2.batch: {len(jobs)} files, {done_before} already done, {len(todo)} to render", flush=True)
    results: list[dict[str, Any]] = [
        {"row": j.row, "speech": j.speech, "output": j.output, "status": "skipped", "frames": 0, "seconds": 0,
         "reason": "output exists"} for j in jobs if os.path.exists(j.output)]
    started = time.monotonic()
    if todo:
        ray.init(address=a.address, num_cpus=None if a.address else a.num_cpus, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
        try:
            task = ray.remote(num_cpus=1)(render)
            pending = [task.remote(j, a.seed) for j in todo]
            finished = failed = 0
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                r = ray.get(ready[0])
                results.append(r)
                finished += 1
                failed += r["status"] == "failed"
                rate = finished / max(time.monotonic() - started, 1e-9) * 60
                line = f"[{finished}/{len(todo)}] {r['status']}: {os.path.basename(r['speech'])}"
                if r["status"] == "failed":
                    line += f": {r['reason']}"
                print(f"{line} ({rate:.1f} files/min)", flush=True)
        finally:
            ray.shutdown()
    elapsed = time.monotonic() - started
    results.sort(key=lambda r: r["row"])
    report = out / "batch-report.csv"
    with open(str(report) + ".part", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["row", "speech", "output", "status", "frames", "seconds", "reason"])
        w.writeheader()
        w.writerows(results)
    os.replace(str(report) + ".part", report)
    failures = [r for r in results if r["status"] == "failed"]
    rendered = sum(r["status"] == "done" for r in results)
    print(f"essence2.batch: {rendered} rendered, {done_before} skipped, {len(failures)} failed in {elapsed:.1f} s"
          + (f" ({rendered / elapsed * 60:.1f} files/min)" if rendered and elapsed > 0 else "")
          + f"; report: {report}")
    for r in failures:
        print(f"  failed: row {r['row']} {r['speech']}: {r['reason']}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
