"""LiveKit Agents: the avatar as a video generator for the agents framework's avatar runner.

``Essence2VideoGenerator`` takes the agent's speech (``rtc.AudioFrame`` at any rate, then ``AudioSegmentEnd``)
and yields the avatar's video (``rtc.VideoFrame``, RGBA, 25 a second) with the speech audio in step
(``rtc.AudioFrame``, 16 kHz mono, 40 ms each) and ``AudioSegmentEnd`` when a reply has been shown;
``clear_buffer()`` (an interruption) drops the queued speech and eases the face to rest::

    gen = Essence2VideoGenerator(avatar="grace-hopper")
    runner = AvatarRunner(room, audio_recv=DataStreamAudioReceiver(room), video_gen=gen,
                          options=gen.avatar_options())
    await runner.start()

See ``examples/python/livekit_avatar_worker.py`` for a whole worker. Needs ``livekit-agents``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import numpy as np

try:
    from livekit import rtc
    from livekit.agents.voice.avatar import AudioSegmentEnd, AvatarOptions, VideoGenerator
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("essence2.livekit needs LiveKit Agents: pip install livekit-agents") from e

from . import _native as N
from .engine import Essence2, LipSync, Mode


class Essence2VideoGenerator(VideoGenerator):
    """A ``VideoGenerator`` backed by an essence2 engine in realtime pacing (frames on the wall clock).

    Args:
        avatar: an ``.imx`` path or a shipped avatar's name.
        mode: ``"full"`` or ``"head"``.
        seed: the idle motion's seed.
        lipsync: ``"learned"`` or ``"v1"``.
    """

    def __init__(self, avatar: str = "grace-hopper", *, mode: Mode = "full", seed: int | None = None,
                 lipsync: LipSync = "learned") -> None:
        self._engine = Essence2(avatar, pacing="realtime", mode=mode, seed=seed, lipsync=lipsync)
        self._resampler: Any = None
        self._rate = N.SAMPLE_RATE
        self._speaking = False
        self._cleared = 0  # replies ended by clear_buffer, whose end is not reported as AudioSegmentEnd

    @property
    def engine(self) -> Essence2:
        return self._engine

    def avatar_options(self) -> AvatarOptions:
        """The ``AvatarOptions`` for ``AvatarRunner``: the avatar's size, 25 fps, 16 kHz mono audio."""
        return AvatarOptions(video_width=self._engine.width, video_height=self._engine.height,
                             video_fps=float(N.FPS), audio_sample_rate=N.SAMPLE_RATE, audio_channels=1)

    async def push_audio(self, frame: rtc.AudioFrame | AudioSegmentEnd) -> None:
        """The agent's speech: audio frames of a reply, then ``AudioSegmentEnd``."""
        if isinstance(frame, AudioSegmentEnd):
            self._end_segment()
        else:
            pcm = np.frombuffer(frame.data, dtype=np.int16)
            if frame.num_channels > 1:
                pcm = pcm.reshape(-1, frame.num_channels).mean(axis=1).astype(np.int16)
            if self._resampler is not None and frame.sample_rate != self._rate:
                self._end_segment()
            if frame.sample_rate != N.SAMPLE_RATE:
                if self._resampler is None:
                    import soxr
                    self._resampler = soxr.ResampleStream(frame.sample_rate, N.SAMPLE_RATE, 1, dtype="int16")
                    self._rate = frame.sample_rate
                pcm = self._resampler.resample_chunk(pcm)
            self._speaking = True
            self._engine.push_audio(pcm)

    def clear_buffer(self) -> None:
        """Interruption: the queued speech is dropped and the face eases to rest."""
        if self._speaking or self._engine.reply_pending:
            self._cleared += 1
        self._resampler = None
        self._rate = N.SAMPLE_RATE
        self._speaking = False
        self._engine.interrupt()

    def _end_segment(self) -> None:
        if self._resampler is not None:
            tail = self._resampler.resample_chunk(np.zeros(0, np.int16), last=True)
            if len(tail):
                self._engine.push_audio(tail)
            self._resampler = None
            self._rate = N.SAMPLE_RATE
        if self._speaking:
            self._engine.flush()
        self._speaking = False

    async def __aiter__(self) -> AsyncIterator[rtc.VideoFrame | rtc.AudioFrame | AudioSegmentEnd]:
        rgba = np.full((self._engine.height, self._engine.width, 4), 255, np.uint8)
        async for f in self._engine.frames():
            if f.end_of_reply:
                if self._cleared:
                    self._cleared -= 1
                else:
                    yield AudioSegmentEnd()
            if f.is_speech:
                yield rtc.AudioFrame(data=f.audio.tobytes(), sample_rate=N.SAMPLE_RATE, num_channels=1,
                                     samples_per_channel=N.SAMPLES_PER_FRAME)
            rgba[:, :, :3] = f.bgr[:, :, ::-1]
            yield rtc.VideoFrame(f.width, f.height, rtc.VideoBufferType.RGBA, rgba.tobytes())

    async def aclose(self) -> None:
        """Stops the engine."""
        self._engine.close()
