"""A framework's speech stream into an engine (shared by the Pipecat and LiveKit integrations)."""

from __future__ import annotations

import numpy as np

from ._audio import mono
from .engine import Essence2


class ReplyFeed:
    """Speech audio as voice-agent frameworks deliver it: int16 chunks of any rate and channel count, a reply at
    a time. Channels are mixed to mono; the library resamples (its filter carried across chunks, a new one when
    the rate changes); ``end()`` ends the reply; ``clear()`` is an interruption."""

    def __init__(self, engine: Essence2) -> None:
        self.engine = engine
        self.speaking = False  # a reply is being fed (not yet ended)

    def push(self, data: bytes | memoryview, sample_rate: int, channels: int) -> None:
        self.engine.push_audio(mono(np.frombuffer(data, dtype="<i2"), channels), sample_rate=sample_rate)
        self.speaking = True

    def end(self) -> None:
        if self.speaking:
            self.engine.flush()
            self.speaking = False

    def clear(self) -> None:
        self.speaking = False
        self.engine.interrupt()
