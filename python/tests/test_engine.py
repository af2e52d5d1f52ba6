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


def upsample(pcm: np.ndarray, rate: int) -> np.ndarray:
    """16 kHz int16 speech as float (-1 ... 1) at ``rate`` Hz, by linear interpolation (test input only)."""
    n = len(pcm) * rate // 16000
    return np.interp(np.arange(n) * 16000 / rate, np.arange(len(pcm)), pcm.astype(np.float64) / 32768).astype(
        np.float32)


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
    assert [f.reply_frame for f in speech] == list(range(len(speech)))
    assert [f.reply_index for f in speech] == [f.reply_frame for f in speech]  # the name before 1.3
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
    c = render(pcm.astype(np.float64) / 32768.0)  # the library's rule: round(x * 32768)
    assert len(a) == len(b) == len(c)
    assert all(np.array_equal(x.bgr, y.bgr) and np.array_equal(x.bgr, z.bgr) for x, y, z in zip(a, b, c))


def test_the_same_audio_and_seed_give_the_same_frames_and_another_seed_other_idle_motion():
    pcm = demo_pcm(1.0)
    a, b, c = render(pcm, seed=3), render(pcm, seed=3), render(pcm, seed=4)
    assert all(np.array_equal(x.bgr, y.bgr) for x, y in zip(a, b))
    assert any(not np.array_equal(x.bgr, z.bgr) for x, z in zip(a, c))


def test_audio_at_48_khz_is_resampled_by_the_library_across_pushes():
    hi = upsample(demo_pcm(2.0), 48000)
    with essence2.Essence2("grace-hopper", pacing="unpaced", seed=1) as engine:
        for start in range(0, len(hi), 4800):  # 100 ms chunks of float audio
            engine.push_audio(hi[start:start + 4800], sample_rate=48000)
        engine.flush()
        frames = list(engine.frames_until_idle())
    speech = [f for f in frames if f.is_speech]
    assert len(speech) == -(-len(hi) // 3 // 640)  # ceil(n / 3 / 640): 48 kHz is 3 samples per 16 kHz sample
    assert sum(f.audio_samples for f in speech) == len(hi) // 3
    mouth = np.array([f.bgr[300:360, 210:300].astype(float).mean() for f in speech])
    assert mouth.std() > 1.0  # the mouth moves
    heard = np.concatenate([f.audio[:f.audio_samples] for f in speech]).astype(float)
    assert np.corrcoef(heard, demo_pcm(2.0)[: len(heard)].astype(float))[0, 1] > 0.95  # the speech, resampled


def test_other_rates_and_float_audio_need_nothing_but_the_library(tmp_path):
    """No soxr (hidden here by a module that fails to import): the library resamples and converts."""
    import subprocess
    import sys
    (tmp_path / "soxr.py").write_text("raise ImportError('soxr is hidden')\n")
    code = ("import numpy as np, essence2\n"
            "with essence2.Essence2('astronaut', pacing='unpaced') as e:\n"
            "    e.push_audio(np.sin(np.arange(22050) / 10).astype(np.float32) * 0.3, sample_rate=22050)\n"
            "    e.flush()\n"
            "    print(sum(f.is_speech for f in e.frames_until_idle()))\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["25"]  # 1 s at 22.05 kHz: 16000 samples, 25 frames


def test_frames_carry_their_record():
    pcm = demo_pcm(1.0)
    frames = render(pcm)
    speech = [f for f in frames if f.is_speech]
    assert [f.index for f in frames] == list(range(len(frames)))
    assert {f.reply for f in frames if f.kind != "idle"} == {1}
    assert all(f.reply == 0 and f.reply_frame == -1 for f in frames if f.kind == "idle")
    assert [f.audio_time for f in speech] == pytest.approx([k * 0.04 for k in range(len(speech))])
    assert all(f.audio_time is None for f in frames if not f.is_speech)
    assert all(f.audio_samples == 640 for f in speech[:-1]) and speech[-1].audio_samples == len(pcm) - 640 * (
        len(speech) - 1)
    assert all(f.audio_samples == 0 for f in frames if not f.is_speech)
    assert all(f.skipped == 0 for f in frames)  # unpaced: nothing is late
    assert all(f.audio.dtype == np.int16 and f.audio.shape == (640,) for f in frames)
    assert not speech[-1].audio[speech[-1].audio_samples:].any()  # the last frame's rest is silence


def test_the_speech_frames_of_each_reply_give_back_its_audio_exactly_and_end_it_once():
    first, second = demo_pcm(2.0), demo_pcm()[40000:52000]
    with essence2.Essence2("astronaut", pacing="unpaced", seed=5) as engine:
        engine.push_audio(first)
        engine.flush()
        engine.push_audio(second.tobytes())
        engine.flush()
        frames = list(engine.frames_until_idle())
        assert not engine.reply_pending
    for number, pcm in ((1, first), (2, second)):
        speech = [f for f in frames if f.is_speech and f.reply == number]
        assert len(speech) == -(-len(pcm) // 640)
        assert np.array_equal(np.concatenate([f.audio[:f.audio_samples] for f in speech]), pcm)  # int16 exact
    assert sum(f.ends_reply for f in frames) == 2
    assert frames[-1].ends_reply and frames[-1].kind == "idle"
    ends = [f for f in frames if f.ends_reply]
    assert ends[0].kind == "speech" and ends[0].reply == 2  # the second reply starts straight after the first
    assert all(f.audio_time is None and not f.audio.any() for f in frames if f.kind == "idle")


def test_frame_info_is_the_c_struct():
    """essence2._native.FrameInfo has the size and offsets the library's C module asserts (Sources/Essence2/essence2_layout.c)."""
    import ctypes
    import re

    from essence2 import _native as N
    text = (REPO / "Sources" / "Essence2" / "essence2_layout.c").read_text()
    size = int(re.search(r"sizeof\(be_essence2_frame_info\) == (\d+)", text).group(1))
    offsets = {m.group(1): int(m.group(2))
               for m in re.finditer(r"offsetof\(be_essence2_frame_info, (\w+)\) == (\d+)", text)}
    assert ctypes.sizeof(N.FrameInfo) == size == 1344
    assert len(offsets) == 11
    assert {name: getattr(N.FrameInfo, name).offset for name in offsets} == offsets
    assert N.FRAME_AUDIO_SAMPLES == 640 and N.PACING_AUDIO_CLOCK == 2


def test_one_table_of_signatures():
    """No Python file of the repository but essence2/_native.py declares a be_essence2_* signature."""
    declaring = []
    for path in REPO.rglob("*.py"):
        if path == Path(__file__).resolve() or any(
                part in ("build", "node_modules") or part.startswith(".") for part in path.relative_to(REPO).parts):
            continue
        text = path.read_text(errors="replace")
        if "be_essence2_" in text and ("argtypes" in text or "restype" in text):
            declaring.append(str(path.relative_to(REPO)))
    assert declaring == ["python/src/essence2/_native.py"]


def test_audio_clock_pacing_waits_for_the_played_position():
    with essence2.Essence2("astronaut", pacing="audio_clock", seed=3) as engine:
        engine.push_audio(demo_pcm(2.0))
        engine.flush()
        first = None
        deadline = time.monotonic() + 20
        while first is None or not first.is_speech:
            first = engine.next_frame(timeout=max(0.1, deadline - time.monotonic()))
            assert time.monotonic() < deadline
        assert first.reply_frame == 0 and first.audio_time == 0.0
        assert engine.next_frame(timeout=0.4) is None  # nothing played yet: the next speech frame waits
        engine.set_playout_position(640)
        second = engine.next_frame(timeout=5)
        assert second is not None and second.is_speech and second.reply_frame == 1


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


def test_bad_audio_is_refused():
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
        with pytest.raises(ValueError, match="sample_rate 500"):  # the library's range: 1000 ... 384000 Hz
            engine.push_audio(np.zeros(10, np.int16), sample_rate=500)
        # Numbers beyond the C types never wrap into valid ones: 2**32 + 16000 is not 16 kHz.
        with pytest.raises(ValueError, match="sample_rate 4294983296"):
            engine.push_audio(np.zeros(10, np.int16), sample_rate=2**32 + 16000)
        with pytest.raises(ValueError, match="float32's range"):
            engine.push_audio(np.array([0.1, 1e308]))
        with pytest.raises(ValueError, match="64-bit"):
            engine.set_playout_position(2**64 + 5)
        with pytest.raises(TypeError, match="integer"):
            engine.set_playout_position(1.5)
        assert not engine.reply_pending


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
        assert 0 < engine.pending_samples <= len(pcm) - 256000  # what the ring cannot hold waits in the engine
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
