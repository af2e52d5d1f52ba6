"""The engine: speech in, lip-synced frames out."""

from __future__ import annotations

import asyncio
import ctypes
import os
import select
import time
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, Literal

import numpy as np

from . import _native as N
from .errors import Essence2Error, SessionRefused
from .frame import Frame, FrameKind

Pacing = Literal["realtime", "unpaced", "audio_clock"]
Mode = Literal["full", "head"]
LipSync = Literal["learned", "v1"]

_KINDS: dict[int, FrameKind] = {N.FRAME_IDLE: "idle", N.FRAME_SPEECH: "speech", N.FRAME_RAMP: "ramp"}
_PACINGS = {"realtime": N.PACING_REALTIME, "unpaced": N.PACING_UNPACED, "audio_clock": N.PACING_AUDIO_CLOCK}
_FEED_CHUNK = 1 << 22  # samples a feed call at most (its count is an int32); the library joins them seamlessly


# The C interface's integer widths (int32_t rates, int64_t sample counts): Python's integers are checked against
# them before a call, so that no value wraps silently into another.
_INT32_MAX = 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _samples(pcm: Any) -> np.ndarray:
    """int16 bytes, or a 1-D numpy array (int16, or float in -1..1), as a contiguous int16 or float32 array: what
    be_essence2_feed_audio / be_essence2_feed_float take (the library converts float with its one rule)."""
    if isinstance(pcm, (bytes, bytearray, memoryview)):
        raw = memoryview(pcm).cast("B")
        if len(raw) % 2:
            raise ValueError(f"int16 audio has an even number of bytes; got {len(raw)}")
        return np.frombuffer(raw, dtype="<i2").astype(np.int16, copy=False)
    arr = np.asarray(pcm)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"audio must be mono: a 1-D array (got shape {arr.shape}); mix the channels first")
    if arr.dtype == np.int16:
        return np.ascontiguousarray(arr)
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ValueError("audio holds NaN or infinite samples")
        with np.errstate(over="ignore"):
            out = np.ascontiguousarray(arr, dtype=np.float32)
        if not np.all(np.isfinite(out)):
            raise ValueError("audio holds samples beyond float32's range (about 3.4e38); float samples are -1 ... 1")
        return out
    raise TypeError(f"audio must be int16 bytes, or an int16 or float numpy array; got dtype {arr.dtype}")


class Essence2:
    """A talking-avatar engine on this machine's CPU: push speech, take lip-synced frames.

    ::

        with essence2.Essence2(avatar="grace-hopper", pacing="unpaced") as engine:
            engine.push_audio(pcm, sample_rate=24000)
            engine.flush()
            for frame in engine.frames_until_idle():
                ...  # frame.bgr (H x W x 3, B,G,R), frame.audio (640 samples at 16 kHz)

    Args:
        avatar: the path of an ``.imx`` avatar, or the name of one shipped in the package
            (``essence2.shipped_avatars()``).
        pacing: ``"realtime"`` hands out at most 25 frames a second on the wall clock, with idle motion between
            replies (for live use); ``"unpaced"`` hands them out as fast as they render (for files);
            ``"audio_clock"`` is realtime, except that a reply's speech frames follow the played position the
            host reports with ``set_playout_position()`` (for a host that plays the frames' audio itself).
        mode: ``"full"`` (the whole portrait) or ``"head"`` (a square crop around the head).
        seed: the idle motion's seed; the same audio and seed give the same frames (unpaced).
        lipsync: ``"learned"`` (default) or ``"v1"``.

    Raises:
        Essence2Error: the library refused (a missing or damaged avatar names the reason).
        SessionRefused: the credential check refused the session.
        FileNotFoundError: no shipped avatar has that name.

    An engine is used from one thread at a time (or one asyncio loop); several engines may run at once.
    """

    def __init__(self, avatar: str | os.PathLike[str] = "grace-hopper", *, pacing: Pacing = "realtime",
                 mode: Mode = "full", seed: int | None = None, lipsync: LipSync = "learned") -> None:
        self._lib = N.library()
        self._handle: int | None = None
        path = N.avatar_path(avatar)
        handle = ctypes.c_void_p()
        code = self._create(path, handle)
        if code != N.OK:
            self._raise(self._name("create"), code)
        self._handle = handle.value
        self.avatar = path
        try:
            self._set("set_pacing", _PACINGS, "pacing", pacing)
            self._set("set_mode", {"full": N.MODE_FULL, "head": N.MODE_HEAD}, "mode", mode)
            self._set("set_lipsync", {"learned": N.LIPSYNC_LEARNED, "v1": N.LIPSYNC_V1},
                      "lipsync", lipsync)
            if seed is not None:
                if not 0 <= int(seed) < 2 ** 64:
                    raise ValueError(f"seed must be 0 ... 2**64 - 1; got {seed}")
                self._check(self._name("set_seed"), self._fn("set_seed")(self._handle, int(seed)))
            w, h = ctypes.c_int32(), ctypes.c_int32()
            self._check(self._name("get_info"),
                        self._fn("get_info")(self._handle, ctypes.byref(w), ctypes.byref(h)))
        except BaseException:
            self.close()
            raise
        self.pacing: Pacing = pacing
        self.width, self.height = w.value, h.value
        self._frame_bytes = self.width * self.height * 3
        self._info = self._INFO()  # filled by each take_frame
        self._open = False    # audio pushed since the last flush() / interrupt(): the reply is still being fed
        self._unseen = False  # audio pushed after the last frame that showed speech or ended a reply

    # ---- the library's functions -----------------------------------------------------------------------

    #: The C family this class drives (``be_essence2``; ``Expression2`` drives ``be_expression2``).
    _FAMILY = "be_essence2"
    #: The frame record ``take_frame`` fills.
    _INFO: type[ctypes.Structure] = N.FrameInfo
    #: Frames a second, and 16 kHz samples a frame (Essence 2: 25 and 640; Expression 2: 20 and 800).
    fps: int = N.FPS
    samples_per_frame: int = N.SAMPLES_PER_FRAME

    def _create(self, path: str, handle: ctypes.c_void_p) -> int:
        return int(self._lib.be_essence2_create(path.encode(), None, 0, ctypes.byref(handle)))

    def _name(self, name: str) -> str:
        """The C function this engine calls for ``name``: its family's, else the shared ``be_essence2_`` one."""
        full = f"{self._FAMILY}_{name}"
        return full if full in N.SIGNATURES else f"be_essence2_{name}"

    def _fn(self, name: str) -> Any:
        return getattr(self._lib, self._name(name))

    # ---- errors ----------------------------------------------------------------------------------------

    def _raise(self, function: str, code: int) -> None:
        if code == -3:
            raise SessionRefused(function, code, N.last_refusal() or N.last_error())
        raise Essence2Error(function, code, N.last_error())

    def _check(self, function: str, code: int) -> int:
        if code < 0:
            self._raise(function, code)
        return code

    def _set(self, function: str, values: dict[str, int], name: str, value: str) -> None:
        if value not in values:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, values))}; got {value!r}")
        self._check(self._name(function), self._fn(function)(self._handle, values[value]))

    def _live(self) -> int:
        if self._handle is None:
            raise Essence2Error("essence2", -1, "the engine is closed")
        return self._handle

    # ---- audio -----------------------------------------------------------------------------------------

    def push_audio(self, pcm: Any, sample_rate: int = N.SAMPLE_RATE) -> None:
        """Queues speech of the current reply (or starts a new reply). Never blocks.

        Args:
            pcm: mono audio: int16 little-endian bytes, or a 1-D numpy array of int16 or float (-1 ... 1).
            sample_rate: its rate in Hz, 1000 ... 384000. The library resamples other rates than 16000 to 16 kHz
                (its one resampler, the filter carried from one push to the next, a new filter when the rate
                changes) and turns float samples into 16-bit ones by its one rule (``round(x * 32768)``, clipped).

        Audio beyond what the engine's ring holds (16 s not yet turned into frames) waits inside the engine, in
        order, and goes into the ring as frames are taken, so a whole file can be pushed at once (up to 10
        minutes waiting beyond the ring).

        Raises:
            ValueError, TypeError: audio that is not mono PCM, holds NaN, or a rate outside 1000 ... 384000.
            Essence2Error: more than 10 minutes would wait beyond the ring (take frames, then push the rest).
        """
        handle = self._live()
        if isinstance(sample_rate, bool) or not isinstance(sample_rate, (int, np.integer)) or sample_rate <= 0:
            raise ValueError(f"sample_rate must be a positive integer (Hz); got {sample_rate!r}")
        if sample_rate > _INT32_MAX:  # the C call takes 32 bits: never let a larger number wrap into a valid rate
            raise ValueError(f"sample_rate {sample_rate} Hz is out of range; rates are 1000 ... 384000 Hz")
        samples = _samples(pcm)
        if samples.dtype == np.int16:
            name, feed = self._name("feed_audio"), self._fn("feed_audio")
        else:
            name, feed = self._name("feed_float"), self._fn("feed_float")
        for start in range(0, len(samples), _FEED_CHUNK):
            part = samples[start:start + _FEED_CHUNK]
            code = feed(handle, part.ctypes.data, len(part), int(sample_rate))
            if code == -1:
                raise ValueError(N.last_error())
            self._check(name, code)
            self._open = self._unseen = True

    def flush(self) -> None:
        """Ends the current reply after the audio pushed so far: its last frames render (the last 40 ms padded
        with silence), then the face eases back to rest and idles. Audio pushed afterwards starts a new reply."""
        self._check(self._name("end_utterance"), self._fn("end_utterance")(self._live()))
        self._open = False

    def interrupt(self) -> None:
        """Barge-in: drops all queued audio and frames; a reply being shown eases to rest from its last frame
        (ramp frames) and ends."""
        self._check(self._name("reset"), self._fn("reset")(self._live()))
        self._open = self._unseen = False

    def set_playout_position(self, samples_played: int) -> None:
        """How many samples (16 kHz) of the current reply's audio the host has played: with
        ``pacing="audio_clock"`` speech frame k is handed out once sample ``k * 640`` has played; in the other
        pacings frames whose audio has all played are skipped. A new reply starts at 0."""
        if isinstance(samples_played, bool) or not isinstance(samples_played, (int, np.integer)):
            raise TypeError(f"samples_played must be an integer (samples at 16 kHz); got {samples_played!r}")
        if not _INT64_MIN <= samples_played <= _INT64_MAX:  # 64 bits in C: never wrap
            raise ValueError(f"samples_played {samples_played} does not fit a signed 64-bit count of samples")
        self._check(self._name("set_playout_position"),
                    self._fn("set_playout_position")(self._live(), int(samples_played)))

    @property
    def pending_samples(self) -> int:
        """Samples (16 kHz) pushed that still wait beyond the engine's ring."""
        return self._check(self._name("pending_samples"), self._fn("pending_samples")(self._live()))

    # ---- frames ----------------------------------------------------------------------------------------

    @property
    def reply_pending(self) -> bool:
        """True while pushed speech still has frames to come: the reply still open (not flushed), audio waiting
        beyond the ring or not yet shown, or a reply being shown (its end not yet handed out)."""
        # No copy of the engine's reply rules here: how the pushed audio splits into replies is the engine's (its
        # frames say it). `_unseen` only covers audio whose reply has not shown a frame yet; it ends at the next
        # speech frame or the idle frame that ends a reply.
        started, ended = self._reply_counts()
        return self._open or self._unseen or started > ended or self.pending_samples > 0

    def _reply_counts(self) -> tuple[int, int]:
        """Replies started and ended in the frames handed out (the engine's count)."""
        started, ended = ctypes.c_int64(), ctypes.c_int64()
        self._check(self._name("reply_counts"),
                    self._fn("reply_counts")(self._live(), ctypes.byref(started), ctypes.byref(ended)))
        return started.value, ended.value

    @property
    def ready(self) -> bool:
        """True once the engine has warmed up (its first idle frame rendered)."""
        return bool(self._fn("is_ready")(self._live()))

    def pull(self) -> Frame | None:
        """The next frame that is due, with its record, or None when none is (realtime: not yet time; unpaced:
        still rendering, or a reply is waiting for more audio). Never blocks."""
        handle = self._live()
        out = np.empty((self.height, self.width, 3), np.uint8)
        info = self._info
        info.size = ctypes.sizeof(self._INFO)
        n = self._fn("take_frame")(handle, out.ctypes.data, self._frame_bytes, ctypes.byref(info))
        if n == 0:
            return None
        self._check(self._name("take_frame"), n)
        frame = Frame(bgr=out, audio=np.ctypeslib.as_array(info.audio).copy(), kind=_KINDS.get(info.kind, "idle"),
                      index=info.index, reply=info.reply, reply_frame=info.reply_frame,
                      audio_time=info.audio_time if info.has_audio_time else None, ends_reply=bool(info.ends_reply),
                      skipped=info.skipped, audio_samples=info.audio_samples)
        if frame.is_speech or (frame.ends_reply and frame.kind == "idle"):
            self._unseen = False
        return frame

    def next_frame(self, timeout: float | None = None) -> Frame | None:
        """Waits for the next frame (on the engine's descriptor, no busy loop) and returns it; None when
        ``timeout`` seconds pass first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self._check(self._name("frame_fd"), self._fn("frame_fd")(self._live()))
        while True:
            frame = self.pull()
            if frame is not None:
                return frame
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if wait == 0.0:
                return None
            select.select([fd], [], [], 0.1 if wait is None else min(wait, 0.1))

    def __iter__(self) -> Iterator[Frame]:
        """Frames as they come, forever (until the engine is closed); blocks between them."""
        while self._handle is not None:
            frame = self.next_frame(timeout=0.5)
            if frame is not None:
                yield frame

    def frames_until_idle(self, timeout: float = 30.0) -> Iterator[Frame]:
        """The frames of the replies queued now, up to and including the first frame after the last one ends
        (``ends_reply`` with nothing pending); for rendering files. Call ``flush()`` first so the last reply ends
        at once.

        Raises:
            TimeoutError: no frame came for ``timeout`` seconds (a reply waiting for audio that never came).
        """
        while True:
            frame = self.next_frame(timeout=timeout)
            if frame is None:
                raise TimeoutError(f"no frame for {timeout} s: is a reply waiting for audio? call flush()")
            yield frame
            if frame.ends_reply and not self.reply_pending:
                return

    async def frames(self) -> AsyncIterator[Frame]:
        """Frames as they come, for asyncio: waits on the engine's descriptor in the running loop (no thread).
        Ends when the engine is closed; cancelling the consumer ends it too."""
        loop = asyncio.get_running_loop()
        fd = self._check(self._name("frame_fd"), self._fn("frame_fd")(self._live()))
        readable = asyncio.Event()
        loop.add_reader(fd, readable.set)
        try:
            while self._handle is not None:
                frame = self.pull()
                if frame is not None:
                    yield frame
                    continue
                readable.clear()
                try:
                    await asyncio.wait_for(readable.wait(), 0.1)
                except asyncio.TimeoutError:
                    pass
        finally:
            try:
                loop.remove_reader(fd)
            except (ValueError, OSError):
                pass

    # ---- lifetime --------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stops the engine and frees it. Safe to call twice."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._fn("destroy")(handle)

    def __enter__(self) -> Essence2:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else f"{self.width}x{self.height}, {self.pacing}"
        return f"Essence2({self.avatar!r}, {state})"
