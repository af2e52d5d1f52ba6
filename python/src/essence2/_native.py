"""libessence2.so through ctypes, with the signatures of include/essence2.h.

The library is looked for, in order: the path in ``ESSENCE2_LIBRARY``; the copy shipped inside this package
(``essence2/_data/libessence2.so.1``, put there when the wheel is built); the system's ``libessence2.so.1``.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from .errors import LibraryNotFound

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"

OK = 0
FRAME_IDLE, FRAME_SPEECH, FRAME_RAMP = 0, 1, 2
MODE_FULL, MODE_HEAD = 0, 1
PACING_REALTIME, PACING_UNPACED = 0, 1
LIPSYNC_LEARNED, LIPSYNC_V1 = 0, 1
SAMPLE_RATE = 16000
FPS = 25
SAMPLES_PER_FRAME = 640
RING_SAMPLES = 256000

_lock = threading.Lock()
_library: ctypes.CDLL | None = None

_H = ctypes.c_void_p
_I32, _I64, _U64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
_P_I32, _P_I64 = ctypes.POINTER(_I32), ctypes.POINTER(_I64)
_SIGNATURES = {
    "be_essence2_create": (_I32, [ctypes.c_char_p, ctypes.c_char_p, _I32, ctypes.POINTER(_H)]),
    "be_essence2_destroy": (_I32, [_H]),
    "be_essence2_is_ready": (_I32, [_H]),
    "be_essence2_get_info": (_I32, [_H, _P_I32, _P_I32]),
    "be_essence2_set_pacing": (_I32, [_H, _I32]),
    "be_essence2_set_mode": (_I32, [_H, _I32]),
    "be_essence2_set_seed": (_I32, [_H, _U64]),
    "be_essence2_set_lipsync": (_I32, [_H, _I32]),
    "be_essence2_push_audio": (_I32, [_H, ctypes.c_void_p, _I32]),
    "be_essence2_end_utterance": (_I32, [_H]),
    "be_essence2_reset": (_I32, [_H]),
    "be_essence2_frames_available": (_I32, [_H]),
    "be_essence2_pull_frame": (_I32, [_H, ctypes.c_void_p, _I32]),
    "be_essence2_idle_frame": (_I32, [_H, ctypes.c_void_p, _I32]),
    "be_essence2_frame_fd": (_I32, [_H]),
    "be_essence2_reply_counts": (_I32, [_H, _P_I64, _P_I64]),
    "be_essence2_last_frame_kind": (_I32, [_H]),
    "be_essence2_last_frame_index": (_I64, [_H]),
    "be_essence2_last_error": (_I32, [ctypes.c_char_p, _I32]),
    "be_essence2_last_refusal": (_I32, [ctypes.c_char_p, _I32]),
    "be_essence2_set_api_secret": (_I32, [ctypes.c_char_p]),
    "be_essence2_set_service_url": (_I32, [ctypes.c_char_p]),
    "be_essence2_download_avatar": (_I32, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, _I32]),
    "be_essence2_version": (ctypes.c_char_p, []),
    "be_essence2_version_number": (_I32, []),
    "be_essence2_strerror": (ctypes.c_char_p, [_I32]),
}


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
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
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
    """The library's version string, for example ``"1.3.0"``."""
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
