"""Expression 2: any character (a cartoon, an animal, a mascot, a plush toy, a drawing) talking from one picture.

::

    import essence2

    with essence2.Expression2("squirrel", pacing="unpaced") as engine:   # a character .imx, or a shipped name
        engine.push_audio(pcm16_bytes, sample_rate=16000)
        engine.flush()
        for frame in engine.frames_until_idle():
            frame.bgr      # numpy uint8, 720 x 416 x 3 (B, G, R)
            frame.audio    # numpy int16, the frame's own 800 samples at 16 kHz (20 frames a second)

The same engine as ``Essence2`` (the same methods, frames and records), through include/expression2.h.
``essence2.open_avatar(path)`` picks the engine an avatar file is for.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

from . import _native as N
from .engine import Essence2, LipSync, Mode, Pacing
from .errors import Essence2Error


class Expression2(Essence2):
    """A talking character: push speech, take lip-synced frames, 20 a second (800 samples each).

    Args:
        avatar: a character ``.imx`` (``essence2 avatar build PICTURE --character``) or the name of one shipped
            in the package (``"squirrel"``).
        pacing, mode, seed, lipsync: as ``Essence2``.
        engine: a shared engine container (``essence2 engine export -o FILE.engine``); None: the built-in models.
        staging_dir: where the container's checked weights are kept for later starts (with ``engine``).

    Raises:
        Essence2Error: the library refused (a photoreal avatar goes to ``Essence2``; the message says so).
        SessionRefused: the credential check refused the session.
    """

    _FAMILY = "be_expression2"
    _INFO = N.Expression2FrameInfo
    fps = N.EXPRESSION2_FPS
    samples_per_frame = N.EXPRESSION2_SAMPLES_PER_FRAME

    def __init__(self, avatar: str | os.PathLike[str] = "squirrel", *, pacing: Pacing = "realtime",
                 mode: Mode = "full", seed: int | None = None, lipsync: LipSync = "learned",
                 engine: str | os.PathLike[str] | None = None,
                 staging_dir: str | os.PathLike[str] | None = None) -> None:
        self._engine_path = None if engine is None else os.fspath(engine)
        self._staging_dir = None if staging_dir is None else os.fspath(staging_dir)
        super().__init__(avatar, pacing=pacing, mode=mode, seed=seed, lipsync=lipsync)

    def _create(self, path: str, handle: ctypes.c_void_p) -> int:
        def text(value: str | None) -> bytes | None:
            return None if value is None else value.encode()
        return int(self._lib.be_expression2_create(path.encode(), text(self._engine_path), text(self._staging_dir),
                                                   ctypes.byref(handle)))

    def __repr__(self) -> str:
        return "Expression2" + super().__repr__().removeprefix("Essence2")


def avatar_kind(avatar: str | os.PathLike[str]) -> str:
    """``"character"`` or ``"photoreal"``: which engine the avatar file is for (it is read and checked).

    Raises:
        Essence2Error: the file is missing or invalid (the message says why).
    """
    path = N.avatar_path(avatar)
    code = N.library().be_essence2_avatar_kind(path.encode())
    if code < 0:
        raise Essence2Error("be_essence2_avatar_kind", code, N.last_error())
    return "character" if code == N.AVATAR_CHARACTER else "photoreal"


def open_avatar(avatar: str | os.PathLike[str], **options: Any) -> Essence2:
    """The engine for ``avatar``: an ``Expression2`` for a character, an ``Essence2`` for a photoreal portrait,
    with ``options`` (pacing, mode, seed, lipsync). Use ``engine.fps`` and ``engine.samples_per_frame``."""
    kind = avatar_kind(avatar)
    return Expression2(avatar, **options) if kind == "character" else Essence2(avatar, **options)
