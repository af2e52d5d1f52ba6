"""Pipecat: the avatar as a frame processor.

Put it after the text-to-speech service; it takes the TTS audio (any rate), and sends on image frames 25 times a
second (``OutputImageRawFrame``, RGB) with the speech audio in step (``OutputAudioRawFrame``, 16 kHz mono: each
speech frame's own 40 ms, from the frame's record). Between replies it sends idle frames; an interruption eases the
face to rest::

    from essence2.pipecat import Essence2VideoProcessor

    pipeline = Pipeline([transport.input(), stt, llm, tts, Essence2VideoProcessor(avatar="grace-hopper"),
                         transport.output()])

Needs the ``pipecat`` extra (``pip install 'essence2[pipecat]'``: pipecat-ai).
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from ._extras import needs_extra

with needs_extra("pipecat", __name__):
    from pipecat.frames.frames import (CancelFrame, EndFrame, Frame, InterruptionFrame, OutputAudioRawFrame,
                                       OutputImageRawFrame, StartFrame, TTSAudioRawFrame, TTSStoppedFrame)
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from . import _native as N
from ._feed import ReplyFeed
from .engine import Essence2, LipSync, Mode
from .expression2 import open_avatar


class Essence2VideoProcessor(FrameProcessor):
    """Turns the pipeline's TTS audio into the avatar's video, with the audio passed on in step.

    Args:
        avatar: an ``.imx`` path or a shipped avatar's name.
        mode: ``"full"`` or ``"head"``.
        seed: the idle motion's seed.
        lipsync: ``"learned"`` or ``"v1"``.
        drain_seconds: on ``EndFrame``, how long to keep sending the reply still being shown before ending.

    TTS audio frames are consumed (their audio comes out again as ``OutputAudioRawFrame`` with the matching
    video); ``TTSStoppedFrame`` ends the reply; ``InterruptionFrame`` drops the queued speech and eases to rest;
    every other frame passes through.
    """

    def __init__(self, avatar: str = "grace-hopper", *, mode: Mode = "full", seed: int | None = None,
                 lipsync: LipSync = "learned", drain_seconds: float = 20.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._avatar, self._mode, self._seed, self._lipsync = avatar, mode, seed, lipsync
        self._drain = drain_seconds
        self._engine: Essence2 | None = None
        self._task: asyncio.Task[None] | None = None
        self._feed: ReplyFeed | None = None

    @property
    def engine(self) -> Essence2 | None:
        """The engine, while the pipeline runs."""
        return self._engine

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            self._engine = open_avatar(self._avatar, pacing="realtime", mode=self._mode, seed=self._seed,
                                    lipsync=self._lipsync)
            self._feed = ReplyFeed(self._engine)
            self._task = self.create_task(self._send_video())
        elif isinstance(frame, TTSAudioRawFrame) and self._feed is not None:
            self._feed.push(frame.audio, frame.sample_rate, frame.num_channels)
        elif isinstance(frame, TTSStoppedFrame):
            if self._feed is not None:
                self._feed.end()
            await self.push_frame(frame, direction)
        elif isinstance(frame, InterruptionFrame):
            if self._feed is not None:
                self._feed.clear()
            await self.push_frame(frame, direction)
        elif isinstance(frame, EndFrame):
            await self._finish(drain=True)
            await self.push_frame(frame, direction)
        elif isinstance(frame, CancelFrame):
            await self._finish(drain=False)
            await self.push_frame(frame, direction)
        else:
            await self.push_frame(frame, direction)

    # ---- video out ---------------------------------------------------------------------------------------

    async def _send_video(self) -> None:
        engine = self._engine
        assert engine is not None
        async for f in engine.frames():
            if f.is_speech:
                await self.push_frame(OutputAudioRawFrame(audio=f.audio.tobytes(), sample_rate=N.SAMPLE_RATE,
                                                          num_channels=1))
            image = OutputImageRawFrame(image=np.ascontiguousarray(f.bgr[:, :, ::-1]).tobytes(),
                                        size=(f.width, f.height), format="RGB")
            await self.push_frame(image)

    async def _finish(self, drain: bool) -> None:
        engine, task = self._engine, self._task
        if engine is None:
            return
        if drain and self._feed is not None:
            self._feed.end()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self._drain
            while engine.reply_pending and loop.time() < deadline:
                await asyncio.sleep(1 / engine.fps)
        self._engine = None
        self._feed = None
        if task is not None:
            await self.cancel_task(task)
            self._task = None
        engine.close()

    async def cleanup(self) -> None:
        await super().cleanup()
        await self._finish(drain=False)
