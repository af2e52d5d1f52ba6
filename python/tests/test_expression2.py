"""Expression 2 (character avatars) through the package: essence2.Expression2, open_avatar and avatar_kind,
against the library inside the installed wheel."""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest

import essence2

from test_engine import REPO, demo_pcm


def test_the_wheel_ships_the_sample_character():
    assert "squirrel" in essence2.shipped_avatars()
    assert essence2.avatar_kind("squirrel") == "character"
    assert essence2.avatar_kind("grace-hopper") == "photoreal"


def test_a_character_speaks_20_frames_a_second_with_800_samples_each():
    pcm = demo_pcm(2.0)
    with essence2.Expression2("squirrel", pacing="unpaced", seed=3) as engine:
        assert (engine.width, engine.height) == (416, 720)
        assert (engine.fps, engine.samples_per_frame) == (20, 800)
        engine.push_audio(pcm.tobytes())
        engine.flush()
        frames = list(engine.frames_until_idle())
    speech = [f for f in frames if f.is_speech]
    assert len(speech) == 40
    assert [round(f.audio_time, 6) for f in speech] == [round(0.05 * k, 6) for k in range(40)]
    assert all(len(f.audio) == 800 and f.audio_samples == 800 for f in speech)
    assert np.array_equal(np.concatenate([f.audio for f in speech]), pcm)
    assert sum(f.ends_reply for f in frames) == 1
    assert speech[0].bgr.shape == (720, 416, 3)


def test_open_avatar_picks_the_engine_for_the_file():
    with essence2.open_avatar("squirrel", pacing="unpaced") as engine:
        assert isinstance(engine, essence2.Expression2) and engine.fps == 20
    with essence2.open_avatar("grace-hopper", pacing="unpaced") as engine:
        assert type(engine) is essence2.Essence2 and engine.fps == 25


def test_each_engine_refuses_the_other_kind_with_the_library_reason():
    with pytest.raises(essence2.Essence2Error, match="be_essence2_create"):
        essence2.Expression2("grace-hopper")
    with pytest.raises(essence2.Essence2Error, match="be_expression2_create"):
        essence2.Essence2("squirrel")
    with pytest.raises(essence2.Essence2Error):
        essence2.avatar_kind(str(REPO / "README.md"))


def test_a_shared_engine_container_is_loaded_and_staged(tmp_path):
    import subprocess
    container = tmp_path / "shared.engine"
    subprocess.run([str(REPO / "build" / "essence2"), "engine", "export", "-o", str(container)], check=True,
                   capture_output=True)
    staging = tmp_path / "staging"
    with essence2.Expression2("squirrel", pacing="unpaced", engine=container, staging_dir=staging) as engine:
        engine.push_audio(demo_pcm(0.5).tobytes())
        engine.flush()
        assert sum(f.is_speech for f in engine.frames_until_idle()) == 10
    assert (staging / "engine" / "lipsync.e2nw").stat().st_size > 1000
    with pytest.raises(essence2.Essence2Error, match="engine container"):
        essence2.Expression2("squirrel", engine=tmp_path / "missing.engine")


def test_realtime_character_frames_come_20_a_second_in_an_asyncio_loop():
    async def run() -> list[float]:
        times = []
        with essence2.Expression2("squirrel") as engine:
            async for _ in engine.frames():
                times.append(time.monotonic())
                if len(times) == 41:
                    break
        return times
    times = asyncio.run(run())
    rate = (len(times) - 1) / (times[-1] - times[0])
    assert 18.5 < rate < 21.5, f"{rate:.1f} frames a second"
