"""One video frame handed out by an engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

FrameKind = Literal["idle", "speech", "ramp"]


@dataclass(frozen=True)
class Frame:
    """A 40 ms video frame and the audio it shows.

    Attributes:
        bgr: the picture, ``height x width x 3`` uint8 in B, G, R order (its own memory: the one copy out of the
            library).
        audio: the 40 ms of 16 kHz mono int16 audio this frame belongs to (640 samples): the reply's speech for
            a speech frame (the last one padded with silence), silence for idle and ramp frames. Play it in step
            with the picture, or mux it with the video.
        kind: ``"speech"`` (lips following the audio), ``"ramp"`` (easing back to rest after a reply or an
            interrupt) or ``"idle"`` (idle motion between replies).
        end_of_reply: true on the first frame after a reply has ended (its speech and ramp frames are all out).
        index: frames handed out by this engine before this one (0, 1, 2, ...).
        reply_index: the frame's index within its reply (speech and ramp frames), -1 for idle frames.
    """

    bgr: np.ndarray
    audio: np.ndarray
    kind: FrameKind
    end_of_reply: bool
    index: int
    reply_index: int

    @property
    def is_speech(self) -> bool:
        """True for a frame whose lips follow speech audio."""
        return self.kind == "speech"

    @property
    def width(self) -> int:
        return int(self.bgr.shape[1])

    @property
    def height(self) -> int:
        return int(self.bgr.shape[0])
