"""essence2.livekit against the LiveKit Agents framework's own types, in-process (no LiveKit server here)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

pytest.importorskip("livekit.agents", reason="LiveKit Agents is not installed (pip install livekit-agents)")

from livekit import rtc  # noqa: E402
from livekit.agents.voice.avatar import AudioSegmentEnd, AvatarOptions, VideoGenerator  # noqa: E402

from essence2.livekit import Essence2VideoGenerator  # noqa: E402
from test_engine import demo_pcm, upsample  # noqa: E402


def speech_frames(seconds: float, rate: int = 48000, ms: int = 20):
    pcm = demo_pcm(seconds)
    hi16 = np.round(upsample(pcm, rate) * 32768).clip(-32768, 32767).astype(np.int16)  # TTS-like int16 input
    step = rate * ms // 1000
    return [rtc.AudioFrame(hi16[i:i + step].tobytes(), rate, 1, len(hi16[i:i + step]))
            for i in range(0, len(hi16), step)], len(pcm)


async def collect(gen, until, limit=400):
    out = []
    async for item in gen:
        out.append(item)
        if until(out) or len(out) >= limit:
            break
    return out


def test_speech_in_gives_video_with_its_audio_and_a_segment_end():
    async def main():
        gen = Essence2VideoGenerator(avatar="grace-hopper", seed=1)
        assert isinstance(gen, VideoGenerator)
        opts = gen.avatar_options()
        assert isinstance(opts, AvatarOptions) and (opts.video_width, opts.video_height) == (512, 600)
        frames, n16 = speech_frames(1.5)
        for f in frames:
            await gen.push_audio(f)
        await gen.push_audio(AudioSegmentEnd())
        items = await collect(gen, lambda out: isinstance(out[-1], AudioSegmentEnd))
        await gen.aclose()
        return items, n16

    items, n16 = asyncio.run(main())
    assert isinstance(items[-1], AudioSegmentEnd)
    assert sum(isinstance(i, AudioSegmentEnd) for i in items) == 1
    video = [i for i in items if isinstance(i, rtc.VideoFrame)]
    audio = [i for i in items if isinstance(i, rtc.AudioFrame)]
    assert all(v.width == 512 and v.height == 600 and v.type == rtc.VideoBufferType.RGBA for v in video)
    assert all(a.sample_rate == 16000 and a.num_channels == 1 and a.samples_per_channel == 640 for a in audio)
    assert abs(len(audio) - n16 / 640) <= 3
    assert len(video) >= len(audio)


def test_clear_buffer_stops_the_speech_without_a_segment_end():
    async def main():
        gen = Essence2VideoGenerator(avatar="astronaut", seed=2)
        frames, n16 = speech_frames(4.0)
        for f in frames:
            await gen.push_audio(f)
        items = await collect(gen, lambda out: sum(isinstance(i, rtc.AudioFrame) for i in out) >= 10)
        gen.clear_buffer()
        after = await collect(gen, lambda out: sum(isinstance(i, rtc.VideoFrame) for i in out) >= 30)
        await gen.aclose()
        return items, after, n16

    items, after, n16 = asyncio.run(main())
    assert sum(isinstance(i, rtc.AudioFrame) for i in after) <= 3
    assert not any(isinstance(i, AudioSegmentEnd) for i in after)
    assert sum(isinstance(i, rtc.VideoFrame) for i in after) >= 30  # the face goes on, at rest


def test_clear_buffer_before_the_speech_shows_keeps_the_next_segment_end():
    """An interruption of speech not yet shown ends no reply in the frames: the next reply's end is reported."""
    async def main():
        gen = Essence2VideoGenerator(avatar="astronaut", seed=3)
        first, _ = speech_frames(1.0)
        for f in first:
            await gen.push_audio(f)
        gen.clear_buffer()  # before any frame was taken: the engine drops the audio, no reply started
        second, n16 = speech_frames(0.8)
        for f in second:
            await gen.push_audio(f)
        await gen.push_audio(AudioSegmentEnd())
        items = await collect(gen, lambda out: isinstance(out[-1], AudioSegmentEnd))
        await gen.aclose()
        return items, n16

    items, n16 = asyncio.run(main())
    assert isinstance(items[-1], AudioSegmentEnd)
    assert abs(sum(isinstance(i, rtc.AudioFrame) for i in items) - n16 / 640) <= 3  # the second reply only
