"""A framework's speech stream into an engine (shared by the Pipecat and LiveKit integrations)."""

from __future__ import annotations

import numpy as np

from .engine import Essence2


class ReplyFeed:
    """Speech audio as voice-agent frameworks deliver it: int16 chunks of any rate and channel count, a reply at
    a time. Channels are mixed to mono; the engine resamples each reply continuously; a change of rate ends the
    reply so far; ``end()`` ends the reply; ``clear()`` is an interruption."""

    def __init__(self, engine: Essence2) -> None:
        self.engine = engine
        self.rate: int | None = None  # the running reply's rate; None between replies

    @property
    def speaking(self) -> bool:
        """True while a reply is being fed (not yet ended)."""
        return self.rate is not None

    def push(self, data: bytes | memoryview, sample_rate: int, channels: int) -> None:
        pcm = np.frombuffer(data, dtype="<i2")
        if channels > 1:
            pcm = pcm[: len(pcm) - len(pcm) % channels].reshape(-1, channels).mean(axis=1).astype(np.int16)
        if self.rate is not None and sample_rate != self.rate:
            self.end()
        self.rate = sample_rate
        self.engine.push_audio(pcm, sample_rate=sample_rate)

    def end(self) -> None:
        if self.rate is not None:
            self.engine.flush()
            self.rate = None

    def clear(self) -> None:
        self.rate = None
        self.engine.interrupt()
