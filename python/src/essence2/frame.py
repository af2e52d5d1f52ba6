"""One video frame handed out by an engine, with the engine's record of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

import numpy as np

FrameKind = Literal["idle", "speech", "ramp"]


@dataclass(frozen=True)
class Frame:
    """A 40 ms video frame and its record, as the engine handed it out (``be_essence2_take_frame``).

    Attributes:
        bgr: the picture, ``height x width x 3`` uint8 in B, G, R order (its own memory: the one copy out of the
            library).
        audio: the frame's own 40 ms of 16 kHz mono int16 audio (640 samples): for a speech frame the reply's
            ``audio_samples`` samples it covers (fewer than 640 only for a reply's last partial frame), then
            silence; silence for idle and ramp frames. Play it in step with the picture, or mux it with the video.
        kind: ``"speech"`` (lips following the audio), ``"ramp"`` (easing back to rest after a reply or an
            interrupt) or ``"idle"`` (idle motion between replies).
        index: frames handed out by this engine before this one (0, 1, 2, ...).
        reply: speech and ramp frames: the reply's number (1 for the engine's first); 0 for idle frames.
        reply_frame: speech and ramp frames: the frame's index within its reply; -1 for idle frames.
        audio_time: speech frames: seconds into the reply's audio where this frame's audio starts (0, 0.04, ...);
            None for idle and ramp frames.
        ends_reply: true on the first frame after a reply ended, once per reply (the idle frame after its ramp,
            the frame after an interrupt, or a speech frame that starts the next reply straight after a ramp).
        skipped: reply frames the engine skipped (late, or their audio already played) since the frame before.
        audio_samples: how many of ``audio``'s samples are the reply's speech (0 outside speech).
    """

    bgr: np.ndarray
    audio: np.ndarray
    kind: FrameKind
    index: int
    reply: int
    reply_frame: int
    audio_time: Optional[float]
    ends_reply: bool
    skipped: int
    audio_samples: int

    @property
    def is_speech(self) -> bool:
        """True for a frame whose lips follow speech audio."""
        return self.kind == "speech"

    @property
    def end_of_reply(self) -> bool:
        """``ends_reply`` (its name before 1.3)."""
        return self.ends_reply

    @property
    def reply_index(self) -> int:
        """``reply_frame`` (its name before 1.3)."""
        return self.reply_frame

    @property
    def width(self) -> int:
        return int(self.bgr.shape[1])

    @property
    def height(self) -> int:
        return int(self.bgr.shape[0])
