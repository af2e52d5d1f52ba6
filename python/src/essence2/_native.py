"""libessence2.so through ctypes, with the signatures of include/essence2.h: the one table of them.

The library is looked for, in order: the path in ``ESSENCE2_LIBRARY``; the copy shipped inside this package
(``essence2/_data/libessence2.so.1``, put there when the wheel is built); the system's ``libessence2.so.1``.

This module imports nothing but the standard library at import time, so the repository's scripts that drive the
library through ctypes (integration/service_e2e.py, tools/lipsync/eval.py) load this file by its path and bind
their library with ``bind()``: the signatures are declared here and nowhere else.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"

OK = 0
FRAME_IDLE, FRAME_SPEECH, FRAME_RAMP = 0, 1, 2
MODE_FULL, MODE_HEAD = 0, 1
PACING_REALTIME, PACING_UNPACED, PACING_AUDIO_CLOCK = 0, 1, 2
LIPSYNC_LEARNED, LIPSYNC_V1 = 0, 1
AVATAR_PHOTOREAL, AVATAR_CHARACTER = 0, 1
SAMPLE_RATE = 16000
FPS = 25
SAMPLES_PER_FRAME = 640
RING_SAMPLES = 256000
FRAME_AUDIO_SAMPLES = 640


class FrameInfo(ctypes.Structure):
    """``be_essence2_frame_info`` (1.3), filled by ``be_essence2_take_frame``; set ``size`` before each call."""

    _fields_ = [
        ("size", ctypes.c_uint32),
        ("kind", ctypes.c_int32),
        ("index", ctypes.c_int64),
        ("reply", ctypes.c_int64),
        ("reply_frame", ctypes.c_int64),
        ("audio_time", ctypes.c_double),
        ("has_audio_time", ctypes.c_int32),
        ("ends_reply", ctypes.c_int32),
        ("skipped", ctypes.c_int64),
        ("bytes", ctypes.c_int32),
        ("audio_samples", ctypes.c_int32),
        ("audio", ctypes.c_int16 * FRAME_AUDIO_SAMPLES),
    ]


# The layout integration/c/test_frame_record.c asserts for the C struct (1.3); checked at import, whatever -O says.
FRAME_INFO_SIZE = 1344
FRAME_INFO_OFFSETS = {"size": 0, "kind": 4, "index": 8, "reply": 16, "reply_frame": 24, "audio_time": 32,
                      "has_audio_time": 40, "ends_reply": 44, "skipped": 48, "bytes": 56, "audio_samples": 60,
                      "audio": 64}
if ctypes.sizeof(FrameInfo) != FRAME_INFO_SIZE or any(
        getattr(FrameInfo, name).offset != offset for name, offset in FRAME_INFO_OFFSETS.items()):
    raise AssertionError(f"FrameInfo is not be_essence2_frame_info: {ctypes.sizeof(FrameInfo)} bytes, offsets "
                         + str({name: getattr(FrameInfo, name).offset for name in FRAME_INFO_OFFSETS}))

EXPRESSION2_FPS = 20
EXPRESSION2_SAMPLES_PER_FRAME = 800


class Expression2FrameInfo(ctypes.Structure):
    """``be_expression2_frame_info`` (include/expression2.h, 1.4): the same fields, 800 samples of audio."""

    _fields_ = [(name, kind) for name, kind in FrameInfo._fields_ if name != "audio"] + [
        ("audio", ctypes.c_int16 * EXPRESSION2_SAMPLES_PER_FRAME)]


if ctypes.sizeof(Expression2FrameInfo) != 1664 or Expression2FrameInfo.audio.offset != 64:
    raise AssertionError("Expression2FrameInfo is not be_expression2_frame_info")

_lock = threading.Lock()
_library: ctypes.CDLL | None = None

_H = ctypes.c_void_p
_I32, _I64, _U64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
_P_I32, _P_I64 = ctypes.POINTER(_I32), ctypes.POINTER(_I64)
_BUF, _STR = ctypes.c_void_p, ctypes.c_char_p  # sample and pixel buffers (an address, array or pointer); text
SIGNATURES: dict[str, tuple[object, list[object]]] = {
    # credentials and downloads
    "be_essence2_set_api_secret": (_I32, [_STR]),
    "be_essence2_set_service_url": (_I32, [_STR]),
    "be_essence2_last_refusal": (_I32, [_STR, _I32]),
    "be_essence2_last_error": (_I32, [_STR, _I32]),
    "be_essence2_download_avatar": (_I32, [_STR, _STR, _STR, _I32]),
    # lifecycle
    "be_essence2_create": (_I32, [_STR, _STR, _I32, ctypes.POINTER(_H)]),
    "be_essence2_is_ready": (_I32, [_H]),
    "be_essence2_avatar_kind": (_I32, [_STR]),
    "be_essence2_destroy": (_I32, [_H]),
    "be_essence2_quiesce_all": (_I32, [_I32]),
    # audio and frames
    "be_essence2_push_audio": (_I32, [_H, _BUF, _I32]),
    "be_essence2_feed_audio": (_I32, [_H, _BUF, _I32, _I32]),
    "be_essence2_feed_float": (_I32, [_H, _BUF, _I32, _I32]),
    "be_essence2_pending_samples": (_I64, [_H]),
    "be_essence2_end_utterance": (_I32, [_H]),
    "be_essence2_frames_available": (_I32, [_H]),
    "be_essence2_pull_frame": (_I32, [_H, _BUF, _I32]),
    "be_essence2_take_frame": (_I32, [_H, _BUF, _I32, ctypes.POINTER(FrameInfo)]),
    "be_essence2_idle_frame": (_I32, [_H, _BUF, _I32]),
    "be_essence2_frame_fd": (_I32, [_H]),
    "be_essence2_reply_counts": (_I32, [_H, _P_I64, _P_I64]),
    "be_essence2_get_info": (_I32, [_H, _P_I32, _P_I32]),
    "be_essence2_reset": (_I32, [_H]),
    "be_essence2_last_frame_kind": (_I32, [_H]),
    # display and status
    "be_essence2_set_mode": (_I32, [_H, _I32]),
    "be_essence2_render_status": (_I32, [_H, _STR, _I32, _P_I64]),
    "be_essence2_pulled_speech_frames": (_I64, [_H]),
    "be_essence2_set_playout_anchor": (_I32, [_H, _I32]),
    "be_essence2_set_playout_position": (_I32, [_H, _I64]),
    "be_essence2_last_frame_index": (_I64, [_H]),
    "be_essence2_skipped_frames": (_I64, [_H]),
    "be_essence2_reanchor_slots": (_I64, [_H]),
    "be_essence2_anchor_slots": (_I64, [_H]),
    # ours
    "be_essence2_set_pacing": (_I32, [_H, _I32]),
    "be_essence2_set_lipsync": (_I32, [_H, _I32]),
    "be_essence2_set_seed": (_I32, [_H, _U64]),
    "be_essence2_version": (_STR, []),
    "be_essence2_version_number": (_I32, []),
    "be_essence2_strerror": (_STR, [_I32]),
    # Expression 2 (include/expression2.h, 1.4): character avatars, 20 frames a second
    "be_expression2_create": (_I32, [_STR, _STR, _STR, ctypes.POINTER(_H)]),
    "be_expression2_destroy": (_I32, [_H]),
    "be_expression2_is_ready": (_I32, [_H]),
    "be_expression2_push_audio": (_I32, [_H, _BUF, _I32]),
    "be_expression2_feed_audio": (_I32, [_H, _BUF, _I32, _I32]),
    "be_expression2_feed_float": (_I32, [_H, _BUF, _I32, _I32]),
    "be_expression2_pending_samples": (_I64, [_H]),
    "be_expression2_end_utterance": (_I32, [_H]),
    "be_expression2_reset": (_I32, [_H]),
    "be_expression2_frames_available": (_I32, [_H]),
    "be_expression2_take_frame": (_I32, [_H, _BUF, _I32, ctypes.POINTER(Expression2FrameInfo)]),
    "be_expression2_pull_frame": (_I32, [_H, _BUF, _I32]),
    "be_expression2_idle_frame": (_I32, [_H, _BUF, _I32]),
    "be_expression2_frame_fd": (_I32, [_H]),
    "be_expression2_get_info": (_I32, [_H, _P_I32, _P_I32]),
    "be_expression2_set_mode": (_I32, [_H, _I32]),
    "be_expression2_set_pacing": (_I32, [_H, _I32]),
    "be_expression2_set_playout_position": (_I32, [_H, _I64]),
    "be_expression2_set_seed": (_I32, [_H, _U64]),
    "be_expression2_skipped_frames": (_I64, [_H]),
    "be_expression2_reply_counts": (_I32, [_H, _P_I64, _P_I64]),
    "be_expression2_last_error": (_I32, [_STR, _I32]),
}


def bind(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Sets every function's ``restype`` and ``argtypes`` from ``SIGNATURES`` on a loaded libessence2; returns it.

    Raises:
        AttributeError: the library lacks functions of the table (it is older than 1.3); the message names them.
    """
    missing = [name for name in SIGNATURES if not hasattr(lib, name)]
    if missing:
        raise AttributeError(f"{getattr(lib, '_name', lib)} lacks {', '.join(missing)} (essence2.h 1.4 or newer "
                             "is needed)")
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


def load(path: str | os.PathLike[str]) -> ctypes.CDLL:
    """libessence2 at ``path``, with the signatures of the table (for scripts that name their library)."""
    return bind(ctypes.CDLL(os.fspath(path)))


def _candidates() -> list[str]:
    out = []
    env = os.environ.get("ESSENCE2_LIBRARY")
    if env:
        out.append(env)
    shipped = DATA / "libessence2.so.1"
    if shipped.exists():
        out.append(str(shipped))
    out.append("libessence2.so.1")
    return out


def library() -> ctypes.CDLL:
    """The loaded library (loaded once per process, with its function signatures set)."""
    global _library
    from .errors import LibraryNotFound  # here, so that this file loads by path outside the package

    with _lock:
        if _library is not None:
            return _library
        errors = []
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path)
                break
            except OSError as e:
                errors.append(f"{path}: {e}")
        else:
            raise LibraryNotFound(
                "libessence2 could not be loaded (" + "; ".join(errors) + "). Install the essence2 wheel, "
                "set ESSENCE2_LIBRARY to the library's path, or install the library (make install).")
        try:
            bind(lib)
        except AttributeError as e:
            raise LibraryNotFound(f"libessence2 from {path} is too old for this package: {e}") from None
        _library = lib
        return lib


def last_error() -> str:
    """The calling thread's reason for its last failed call."""
    buf = ctypes.create_string_buffer(1024)
    library().be_essence2_last_error(buf, len(buf))
    return buf.value.decode("utf-8", "replace")


def last_refusal() -> str:
    buf = ctypes.create_string_buffer(1024)
    library().be_essence2_last_refusal(buf, len(buf))
    return buf.value.decode("utf-8", "replace")


def version() -> str:
    """The library's version string, for example ``"1.4.0"``."""
    return library().be_essence2_version().decode()


def avatar_path(avatar: str | os.PathLike[str]) -> str:
    """A path to an ``.imx`` file, or the name of an avatar shipped in this package (``"grace-hopper"``,
    ``"astronaut"``)."""
    text = os.fspath(avatar)
    if os.sep not in text and not text.endswith(".imx"):
        shipped = DATA / "avatars" / f"{text}.imx"
        if shipped.exists():
            return str(shipped)
        names = sorted(p.stem for p in (DATA / "avatars").glob("*.imx")) if (DATA / "avatars").exists() else []
        raise FileNotFoundError(
            f"no avatar named {text!r}" + (f" (shipped: {', '.join(names)})" if names else "")
            + "; pass the path of an .imx file")
    return text


def shipped_avatars() -> list[str]:
    """Names of the avatars shipped in this package."""
    folder = DATA / "avatars"
    return sorted(p.stem for p in folder.glob("*.imx")) if folder.exists() else []
