"""essence2: a talking-avatar engine on your own CPU.

Speech goes in (any rate, mono); lip-synced video frames of a portrait come out, 25 a second, each with the
engine's record of it (kind, place in its reply, audio time, its own 40 ms of audio)::

    import essence2

    with essence2.Essence2(avatar="grace-hopper", pacing="unpaced") as engine:
        engine.push_audio(pcm16_bytes, sample_rate=16000)
        engine.flush()
        for frame in engine.frames_until_idle():
            frame.bgr      # numpy uint8, height x width x 3 (B, G, R)
            frame.audio    # numpy int16, the frame's own 640 samples at 16 kHz
            frame.kind, frame.reply, frame.reply_frame, frame.audio_time, frame.ends_reply

Characters (Expression 2: a cartoon, an animal, a plush toy...) come out 20 a second with 800 samples a frame:
``essence2.Expression2("squirrel")``, or ``essence2.open_avatar(path)`` for whichever kind the file is.

A binding of ``libessence2.so`` (shipped inside the wheel) through ctypes.
"""

from ._native import SAMPLE_RATE, FPS, SAMPLES_PER_FRAME, shipped_avatars, version as library_version
from .engine import Essence2
from .expression2 import Expression2, avatar_kind, open_avatar
from .errors import Essence2Error, LibraryNotFound, SessionRefused
from .frame import Frame

__version__ = "1.4.0"

__all__ = [
    "Essence2", "Expression2", "open_avatar", "avatar_kind", "Frame", "Essence2Error", "SessionRefused", "LibraryNotFound",
    "shipped_avatars", "library_version", "SAMPLE_RATE", "FPS", "SAMPLES_PER_FRAME", "__version__",
]
