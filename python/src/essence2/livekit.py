"""LiveKit Agents: the avatar as a video generator for the agents framework's avatar runner.

``Essence2VideoGenerator`` takes the agent's speech (``rtc.AudioFrame`` at any rate, then ``AudioSegmentEnd``)
and yields the avatar's video (``rtc.VideoFrame``, RGBA, 25 a second) with each speech frame's own audio in step
(``rtc.AudioFrame``, 16 kHz mono, 40 ms each, from the frame's record) and ``AudioSegmentEnd`` when a reply has
been shown; ``clear_buffer()`` (an interruption) drops the queued speech and eases the face to rest::

    gen = Essence2VideoGenerator(avatar="grace-hopper")
    runner = AvatarRunner(room, audio_recv=DataStreamAudioReceiver(room), video_gen=gen,
                          options=gen.avatar_options())
    await runner.start()

See ``examples/python/livekit_avatar_worker.py`` for a whole worker. Needs the ``livekit`` extra
(``pip install 'essence2[livekit]'``: livekit-agents).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import numpy as np

from ._extras import needs_extra

with needs_extra("livekit", __name__):
    from livekit import rtc
    from livekit.agents.voice.avatar import AudioSegmentEnd, AvatarOptions, VideoGenerator

from . import _native as N
from ._feed import ReplyFeed
from .engine import Essence2, LipSync, Mode
from .expression2 import open_avatar


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
        self._engine = open_avatar(avatar, pacing="realtime", mode=mode, seed=seed, lipsync=lipsync)
        self._feed = ReplyFeed(self._engine)
        self._cleared = 0  # replies ended by clear_buffer, whose end is not reported as AudioSegmentEnd

    @property
    def engine(self) -> Essence2:
        return self._engine

    def avatar_options(self) -> AvatarOptions:
        """The ``AvatarOptions`` for ``AvatarRunner``: the avatar's size and rate (25 fps, or 20 for a character),
        16 kHz mono audio."""
        return AvatarOptions(video_width=self._engine.width, video_height=self._engine.height,
                             video_fps=float(self._engine.fps), audio_sample_rate=N.SAMPLE_RATE, audio_channels=1)

    async def push_audio(self, frame: rtc.AudioFrame | AudioSegmentEnd) -> None:
        """The agent's speech: audio frames of a reply, then ``AudioSegmentEnd``."""
        if isinstance(frame, AudioSegmentEnd):
            self._feed.end()
        else:
            self._feed.push(frame.data, frame.sample_rate, frame.num_channels)

    def clear_buffer(self) -> None:
        """Interruption: the queued speech is dropped and the face eases to rest."""
        started, ended = self._engine._reply_counts()
        self._cleared += started - ended  # the reply being shown ends at the interrupt, unreported
        self._feed.clear()

    async def __aiter__(self) -> AsyncIterator[rtc.VideoFrame | rtc.AudioFrame | AudioSegmentEnd]:
        rgba = np.full((self._engine.height, self._engine.width, 4), 255, np.uint8)
        async for f in self._engine.frames():
            if f.ends_reply:
                if self._cleared:
                    self._cleared -= 1
                else:
                    yield AudioSegmentEnd()
            if f.is_speech:
                yield rtc.AudioFrame(data=f.audio.tobytes(), sample_rate=N.SAMPLE_RATE, num_channels=1,
                                     samples_per_channel=len(f.audio))
            rgba[:, :, :3] = f.bgr[:, :, ::-1]
            yield rtc.VideoFrame(f.width, f.height, rtc.VideoBufferType.RGBA, rgba.tobytes())

    async def aclose(self) -> None:
        """Stops the engine."""
        self._engine.close()
