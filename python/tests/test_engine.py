"""The essence2 package through its public interface, against the library inside the installed wheel."""

from __future__ import annotations

import asyncio
import os
import time
import wave
from pathlib import Path

import numpy as np
import pytest

import essence2

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "audio" / "demo.wav"


def demo_pcm(seconds: float | None = None) -> np.ndarray:
    with wave.open(str(DEMO), "rb") as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1
        pcm = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.int16)
    return pcm if seconds is None else pcm[: int(seconds * 16000)]


def render(pcm, sample_rate=16000, seed=7, **kw):
    with essence2.Essence2("grace-hopper", pacing="unpaced", seed=seed, **kw) as engine:
        engine.push_audio(pcm, sample_rate=sample_rate)
        engine.flush()
        return list(engine.frames_until_idle())


def test_the_wheel_ships_the_library_and_the_avatars():
    assert essence2.library_version() == essence2.__version__
    assert {"grace-hopper", "astronaut"} <= set(essence2.shipped_avatars())
    assert "site-packages" in essence2.__file__ or os.environ.get("ESSENCE2_LIBRARY")


def test_a_reply_gives_one_speech_frame_per_40_ms_with_its_own_audio():
    pcm = demo_pcm(3.0)
    frames = render(pcm.tobytes())
    speech = [f for f in frames if f.is_speech]
    assert len(speech) == -(-len(pcm) // 640)
    assert [f.reply_index for f in speech] == list(range(len(speech)))
    audio = np.concatenate([f.audio for f in speech])
    assert np.array_equal(audio[: len(pcm)], pcm) and not audio[len(pcm):].any()
    assert all(f.bgr.shape == (600, 512, 3) and f.bgr.dtype == np.uint8 for f in frames)
    assert [f.index for f in frames] == list(range(len(frames)))
    assert frames[-1].end_of_reply and frames[-1].kind == "idle"
    assert sum(f.end_of_reply for f in frames) == 1
    assert any(f.kind == "ramp" for f in frames)
    assert all(not f.audio.any() for f in frames if not f.is_speech)


def test_bytes_int16_and_float_audio_give_the_same_frames():
    pcm = demo_pcm(1.2)
    a = render(pcm.tobytes())
    b = render(pcm)
    c = render(pcm.astype(np.float64) / 32767.0)
    assert len(a) == len(b) == len(c)
    assert all(np.array_equal(x.bgr, y.bgr) and np.array_equal(x.bgr, z.bgr) for x, y, z in zip(a, b, c))


def test_the_same_audio_and_seed_give_the_same_frames_and_another_seed_other_idle_motion():
    pcm = demo_pcm(1.0)
    a, b, c = render(pcm, seed=3), render(pcm, seed=3), render(pcm, seed=4)
    assert all(np.array_equal(x.bgr, y.bgr) for x, y in zip(a, b))
    assert any(not np.array_equal(x.bgr, z.bgr) for x, z in zip(a, c))


def test_audio_at_48_khz_is_resampled_across_pushes():
    soxr = pytest.importorskip("soxr")
    pcm = demo_pcm(2.0)
    hi = soxr.resample(pcm.astype(np.float32) / 32768, 16000, 48000)
    with essence2.Essence2("grace-hopper", pacing="unpaced", seed=1) as engine:
        for start in range(0, len(hi), 4800):  # 100 ms chunks
            engine.push_audio(hi[start:start + 4800], sample_rate=48000)
        engine.flush()
        frames = list(engine.frames_until_idle())
    speech = [f for f in frames if f.is_speech]
    assert abs(len(speech) - len(pcm) / 640) <= 2
    mouth = np.array([f.bgr[300:360, 210:300].astype(float).mean() for f in speech])
    assert mouth.std() > 1.0  # the mouth moves


def test_failures_raise_with_the_library_reason(tmp_path):
    with pytest.raises(essence2.Essence2Error) as e:
        essence2.Essence2(str(tmp_path / "none.imx"))
    assert e.value.code == -2 and "no such file" in e.value.reason
    src = Path(essence2.__file__).parent / "_data" / "avatars" / "grace-hopper.imx"
    broken = tmp_path / "broken.imx"
    broken.write_bytes(src.read_bytes()[: 5000])
    with pytest.raises(essence2.Essence2Error) as e:
        essence2.Essence2(str(broken))
    assert e.value.code == -2 and e.value.reason
    with pytest.raises(FileNotFoundError, match="grace-hopper"):
        essence2.Essence2("nobody")
    with pytest.raises(ValueError, match="pacing"):
        essence2.Essence2("grace-hopper", pacing="fast")  # type: ignore[arg-type]


def test_bad_audio_is_refused_before_it_reaches_the_engine():
    with essence2.Essence2("grace-hopper", pacing="unpaced") as engine:
        with pytest.raises(ValueError, match="NaN"):
            engine.push_audio(np.array([0.1, np.nan], np.float32))
        with pytest.raises(ValueError, match="mono"):
            engine.push_audio(np.zeros((100, 2), np.int16))
        with pytest.raises(ValueError, match="even"):
            engine.push_audio(b"\x00\x01\x02")
        with pytest.raises(TypeError):
            engine.push_audio(np.zeros(10, np.int32))
        with pytest.raises(ValueError, match="sample_rate"):
            engine.push_audio(np.zeros(10, np.int16), sample_rate=0)


def test_a_closed_engine_refuses_calls_and_closes_once():
    engine = essence2.Essence2("astronaut", pacing="unpaced")
    assert (engine.width, engine.height) == (512, 512)
    engine.close()
    engine.close()
    with pytest.raises(essence2.Essence2Error, match="closed"):
        engine.push_audio(np.zeros(640, np.int16))
    with pytest.raises(essence2.Essence2Error, match="closed"):
        engine.pull()


def test_interrupt_ends_the_reply_with_a_ramp_and_drops_its_audio():
    with essence2.Essence2("grace-hopper", pacing="unpaced", seed=2) as engine:
        engine.push_audio(demo_pcm(4.0))
        first = [engine.next_frame(timeout=10) for _ in range(10)]
        assert all(f is not None and f.is_speech for f in first)
        engine.interrupt()
        after = []
        while not after or after[-1].kind != "idle":
            frame = engine.next_frame(timeout=10)
            assert frame is not None
            after.append(frame)
        assert not any(f.is_speech for f in after)
        assert after[0].kind == "ramp"
        assert sum(f.end_of_reply for f in after) == 1  # the interrupt ends the reply


def test_realtime_frames_come_25_a_second_in_an_asyncio_loop():
    async def main():
        with essence2.Essence2("grace-hopper", pacing="realtime") as engine:
            got = []
            t0 = None
            async for frame in engine.frames():
                if t0 is None:
                    t0 = time.monotonic()
                got.append(frame)
                if len(got) == 1:
                    engine.push_audio(demo_pcm(1.0))
                    engine.flush()
                if len(got) >= 51:
                    break
            return got, time.monotonic() - t0

    frames, elapsed = asyncio.run(main())
    assert 1.7 <= elapsed <= 3.0  # 50 frame periods of 40 ms
    assert any(f.is_speech for f in frames)
    assert frames[0].kind == "idle"


def test_a_file_longer_than_the_engine_ring_can_be_pushed_at_once():
    pcm = np.tile(demo_pcm(), 3)  # about 25 s; the engine's ring holds 16 s
    with essence2.Essence2("astronaut", pacing="unpaced", seed=1) as engine:
        engine.push_audio(pcm)
        engine.flush()
        assert engine.reply_pending
        speech = [f for f in engine.frames_until_idle() if f.is_speech]
        assert not engine.reply_pending
    assert len(speech) == -(-len(pcm) // 640)
    assert np.array_equal(np.concatenate([f.audio for f in speech])[: len(pcm)], pcm)


def test_the_shipped_library_needs_no_swift_toolchain():
    import shutil
    import subprocess
    lib = Path(essence2.__file__).parent / "_data" / "libessence2.so.1"
    if shutil.which("ldd") is None:
        pytest.skip("ldd is not installed")
    needed = subprocess.run(["ldd", str(lib)], capture_output=True, text=True, check=True).stdout
    names = [line.split()[0] for line in needed.splitlines() if line.strip()]
    assert not [n for n in names if "swift" in n.lower() or "dispatch" in n.lower() or "Foundation" in n], names
