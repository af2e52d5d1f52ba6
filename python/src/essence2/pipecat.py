"""Pipecat: the avatar as a frame processor.

Put it after the text-to-speech service; it takes the TTS audio (any rate), and sends on image frames 25 times a
second (``OutputImageRawFrame``, RGB) with the speech audio in step (``OutputAudioRawFrame``, 16 kHz mono, 40 ms
per video frame). Between replies it sends idle frames; an interruption eases the face to rest::

    from essence2.pipecat import Essence2VideoProcessor

    pipeline = Pipeline([transport.input(), stt, llm, tts, Essence2VideoProcessor(avatar="grace-hopper"),
                         transport.output()])

Needs ``pipecat-ai`` (``pip install pipecat-ai``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

try:
    from pipecat.frames.frames import (CancelFrame, EndFrame, Frame, InterruptionFrame, OutputAudioRawFrame,
                                       OutputImageRawFrame, StartFrame, TTSAudioRawFrame, TTSStoppedFrame)
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("essence2.pipecat needs Pipecat: pip install pipecat-ai") from e

from . import _native as N
from .engine import Essence2, LipSync, Mode


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
        self._resampler: Any = None
        self._rate = N.SAMPLE_RATE
        self._speaking = False

    @property
    def engine(self) -> Essence2 | None:
        """The engine, while the pipeline runs."""
        return self._engine

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            self._engine = Essence2(self._avatar, pacing="realtime", mode=self._mode, seed=self._seed,
                                    lipsync=self._lipsync)
            self._task = self.create_task(self._send_video())
        elif isinstance(frame, TTSAudioRawFrame) and self._engine is not None:
            self._queue_audio(frame)
        elif isinstance(frame, TTSStoppedFrame):
            self._end_reply()
            await self.push_frame(frame, direction)
        elif isinstance(frame, InterruptionFrame):
            self._resampler = None
            self._speaking = False
            if self._engine is not None:
                self._engine.interrupt()
            await self.push_frame(frame, direction)
        elif isinstance(frame, EndFrame):
            await self._finish(drain=True)
            await self.push_frame(frame, direction)
        elif isinstance(frame, CancelFrame):
            await self._finish(drain=False)
            await self.push_frame(frame, direction)
        else:
            await self.push_frame(frame, direction)

    # ---- audio in ----------------------------------------------------------------------------------------

    def _queue_audio(self, frame: TTSAudioRawFrame) -> None:
        pcm = np.frombuffer(frame.audio, dtype="<i2")
        if frame.num_channels > 1:
            pcm = pcm.reshape(-1, frame.num_channels).mean(axis=1).astype(np.int16)
        if frame.sample_rate != self._rate and self._resampler is not None:
            self._end_reply()  # a new rate: the reply so far ends
        if frame.sample_rate != N.SAMPLE_RATE:
            if self._resampler is None:
                import soxr
                self._resampler = soxr.ResampleStream(frame.sample_rate, N.SAMPLE_RATE, 1, dtype="int16")
                self._rate = frame.sample_rate
            pcm = self._resampler.resample_chunk(pcm)
        self._speaking = True
        if self._engine is not None:
            self._engine.push_audio(pcm)

    def _end_reply(self) -> None:
        if self._resampler is not None:
            tail = self._resampler.resample_chunk(np.zeros(0, np.int16), last=True)
            if len(tail) and self._engine is not None:
                self._engine.push_audio(tail)
            self._resampler = None
            self._rate = N.SAMPLE_RATE
        if self._speaking and self._engine is not None:
            self._engine.flush()
        self._speaking = False

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
        if drain:
            self._end_reply()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self._drain
            while engine.reply_pending and loop.time() < deadline:
                await asyncio.sleep(0.04)
        self._engine = None
        if task is not None:
            await self.cancel_task(task)
            self._task = None
        engine.close()

    async def cleanup(self) -> None:
        await super().cleanup()
        await self._finish(drain=False)
