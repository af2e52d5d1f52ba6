"""The engine: speech in, lip-synced frames out."""

from __future__ import annotations

import asyncio
import ctypes
import math
import os
import select
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, Literal

import numpy as np

from . import _native as N
from .errors import Essence2Error, SessionRefused
from .frame import Frame, FrameKind

Pacing = Literal["realtime", "unpaced"]
Mode = Literal["full", "head"]
LipSync = Literal["learned", "v1"]

_KINDS: dict[int, FrameKind] = {N.FRAME_IDLE: "idle", N.FRAME_SPEECH: "speech", N.FRAME_RAMP: "ramp"}
_SILENCE_TIMEOUT = 0.6  # seconds without audio that end a reply (as the engine counts them)


class _ReplyAudio:
    """The 16 kHz audio of one reply, in order, grown as it is pushed; frame k shows [640k, 640k + 640)."""

    def __init__(self) -> None:
        self.samples = np.zeros(16000, np.int16)
        self.length = 0

    def append(self, pcm: np.ndarray) -> None:
        need = self.length + len(pcm)
        if need > len(self.samples):
            grown = np.zeros(max(need, 2 * len(self.samples)), np.int16)
            grown[: self.length] = self.samples[: self.length]
            self.samples = grown
        self.samples[self.length:need] = pcm
        self.length = need

    def frame(self, index: int) -> np.ndarray:
        out = np.zeros(N.SAMPLES_PER_FRAME, np.int16)
        start = index * N.SAMPLES_PER_FRAME
        if 0 <= start < self.length:
            part = self.samples[start:min(start + N.SAMPLES_PER_FRAME, self.length)]
            out[: len(part)] = part
        return out


def _to_int16(pcm: Any) -> np.ndarray:
    """int16 bytes, or a 1-D numpy array (int16, or float in -1..1), as an int16 array."""
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
        return arr
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ValueError("audio holds NaN or infinite samples")
        return np.clip(np.round(arr * 32767.0), -32768, 32767).astype(np.int16)
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
            replies (for live use); ``"unpaced"`` hands them out as fast as they render (for files).
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
        code = self._lib.be_essence2_create(path.encode(), None, 0, ctypes.byref(handle))
        if code != N.OK:
            self._raise("be_essence2_create", code)
        self._handle = handle.value
        self.avatar = path
        try:
            self._set("be_essence2_set_pacing", {"realtime": N.PACING_REALTIME, "unpaced": N.PACING_UNPACED},
                      "pacing", pacing)
            self._set("be_essence2_set_mode", {"full": N.MODE_FULL, "head": N.MODE_HEAD}, "mode", mode)
            self._set("be_essence2_set_lipsync", {"learned": N.LIPSYNC_LEARNED, "v1": N.LIPSYNC_V1},
                      "lipsync", lipsync)
            if seed is not None:
                if not 0 <= int(seed) < 2 ** 64:
                    raise ValueError(f"seed must be 0 ... 2**64 - 1; got {seed}")
                self._check("be_essence2_set_seed", self._lib.be_essence2_set_seed(self._handle, int(seed)))
            w, h = ctypes.c_int32(), ctypes.c_int32()
            self._check("be_essence2_get_info",
                        self._lib.be_essence2_get_info(self._handle, ctypes.byref(w), ctypes.byref(h)))
        except BaseException:
            self.close()
            raise
        self.pacing: Pacing = pacing
        self.width, self.height = w.value, h.value
        self._frame_bytes = self.width * self.height * 3
        self._replies: deque[_ReplyAudio] = deque()  # pushed, not yet started in the frames
        self._filling: _ReplyAudio | None = None     # the reply new audio goes to
        self._current: _ReplyAudio | None = None     # the reply whose frames are being handed out
        self._last_push = -math.inf
        self._started = self._ended = 0
        self._index = 0
        self._resampler: Any = None
        self._resample_rate = N.SAMPLE_RATE
        self._overflow: deque[np.ndarray] = deque()  # 16 kHz audio waiting for room in the engine's ring
        self._flush_waiting = False                  # flush() once the waiting audio is in

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
        self._check(function, getattr(self._lib, function)(self._handle, values[value]))

    def _live(self) -> int:
        if self._handle is None:
            raise Essence2Error("essence2", -1, "the engine is closed")
        return self._handle

    # ---- audio -----------------------------------------------------------------------------------------

    def push_audio(self, pcm: Any, sample_rate: int = N.SAMPLE_RATE) -> None:
        """Queues speech of the current reply (or starts a new reply). Never blocks.

        Args:
            pcm: mono audio: int16 little-endian bytes, or a 1-D numpy array of int16 or float (-1 ... 1).
            sample_rate: its rate in Hz; other rates than 16000 are resampled (PyPI ``soxr``), continuously
                across the pushes of a reply.

        Audio beyond what the engine's ring holds (16 s not yet turned into frames) waits here, in order, and is
        handed over as frames are taken, so a whole file can be pushed at once.

        Raises:
            ValueError, TypeError: audio that is not mono PCM, holds NaN, or a rate that is not positive.
        """
        self._live()
        if not isinstance(sample_rate, (int, np.integer)) or sample_rate <= 0:
            raise ValueError(f"sample_rate must be a positive integer (Hz); got {sample_rate!r}")
        pcm16 = _to_int16(pcm)
        if sample_rate != N.SAMPLE_RATE or self._resampler is not None:
            pcm16 = self._resample(pcm16, int(sample_rate))
        self._queue(np.array(pcm16, np.int16))

    def _queue(self, pcm16: np.ndarray) -> None:
        if len(pcm16) == 0:
            return
        now = time.monotonic()
        if self._filling is None or (now - self._last_push >= _SILENCE_TIMEOUT and not self._overflow):
            self._filling = _ReplyAudio()
            self._replies.append(self._filling)
        self._filling.append(pcm16)
        self._last_push = now
        for start in range(0, len(pcm16), N.RING_SAMPLES):
            self._overflow.append(pcm16[start:start + N.RING_SAMPLES])
        self._drain()

    def _drain(self) -> None:
        """Hands waiting audio to the engine while its ring has room; then a waiting flush."""
        handle = self._live()
        while self._overflow:
            part = self._overflow[0]
            code = self._lib.be_essence2_push_audio(handle, part.ctypes.data, len(part))
            if code == -2 and "full" in N.last_error():
                return
            self._check("be_essence2_push_audio", code)
            self._overflow.popleft()
        if self._flush_waiting:
            self._flush_waiting = False
            self._check("be_essence2_end_utterance", self._lib.be_essence2_end_utterance(handle))

    def _resample(self, pcm16: np.ndarray, rate: int) -> np.ndarray:
        if self._resampler is not None and rate != self._resample_rate:
            raise ValueError(f"a reply's audio keeps one rate ({self._resample_rate} Hz); call flush() before "
                             f"pushing {rate} Hz")
        if self._resampler is None:
            try:
                import soxr
            except ImportError as e:
                raise ImportError("audio at other rates than 16000 Hz is resampled with soxr: "
                                  "pip install soxr (or resample to 16 kHz yourself)") from e
            self._resampler = soxr.ResampleStream(rate, N.SAMPLE_RATE, 1, dtype="int16", quality="HQ")
            self._resample_rate = rate
        return self._resampler.resample_chunk(pcm16)

    def flush(self) -> None:
        """Ends the current reply: its last frames render (the last 40 ms padded with silence), then the face
        eases back to rest and idles. Audio pushed afterwards starts a new reply."""
        self._live()
        if self._resampler is not None:
            tail = self._resampler.resample_chunk(np.zeros(0, np.int16), last=True)
            self._resampler = None
            self._resample_rate = N.SAMPLE_RATE
            self._queue(np.array(tail, np.int16))
        self._filling = None
        self._flush_waiting = True
        self._drain()

    def interrupt(self) -> None:
        """Barge-in: drops all queued audio and frames; a reply being shown eases to rest from its last frame
        (ramp frames) and ends."""
        handle = self._live()
        self._check("be_essence2_reset", self._lib.be_essence2_reset(handle))
        self._overflow.clear()
        self._flush_waiting = False
        self._replies.clear()
        self._filling = None
        self._resampler = None
        self._resample_rate = N.SAMPLE_RATE

    # ---- frames ----------------------------------------------------------------------------------------

    @property
    def reply_pending(self) -> bool:
        """True while pushed speech still has frames to come: a reply queued, still open (not flushed), or
        being shown (its end not yet handed out)."""
        return (bool(self._replies) or bool(self._overflow) or self._filling is not None
                or self._started > self._ended)

    @property
    def ready(self) -> bool:
        """True once the engine has warmed up (its first idle frame rendered)."""
        return bool(self._lib.be_essence2_is_ready(self._live()))

    def pull(self) -> Frame | None:
        """The next frame that is due, or None when none is (realtime: not yet time; unpaced: still rendering,
        or a reply is waiting for more audio). Never blocks."""
        handle = self._live()
        if self._overflow or self._flush_waiting:
            self._drain()
        out = np.empty((self.height, self.width, 3), np.uint8)
        n = self._lib.be_essence2_pull_frame(handle, out.ctypes.data, self._frame_bytes)
        if n == 0:
            return None
        self._check("be_essence2_pull_frame", n)
        return self._describe(handle, out)

    def _describe(self, handle: int, picture: np.ndarray) -> Frame:
        kind = _KINDS.get(self._lib.be_essence2_last_frame_kind(handle), "idle")
        started, ended = ctypes.c_int64(), ctypes.c_int64()
        self._check("be_essence2_reply_counts",
                    self._lib.be_essence2_reply_counts(handle, ctypes.byref(started), ctypes.byref(ended)))
        while self._started < started.value:
            self._started += 1
            self._current = self._replies.popleft() if self._replies else None
        end_of_reply = ended.value > self._ended
        self._ended = ended.value
        reply_index = int(self._lib.be_essence2_last_frame_index(handle)) if kind != "idle" else -1
        if kind == "speech" and self._current is not None:
            audio = self._current.frame(reply_index)
        else:
            audio = np.zeros(N.SAMPLES_PER_FRAME, np.int16)
        frame = Frame(bgr=picture, audio=audio, kind=kind, end_of_reply=end_of_reply, index=self._index,
                      reply_index=reply_index)
        self._index += 1
        return frame

    def next_frame(self, timeout: float | None = None) -> Frame | None:
        """Waits for the next frame (on the engine's descriptor, no busy loop) and returns it; None when
        ``timeout`` seconds pass first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self._check("be_essence2_frame_fd", self._lib.be_essence2_frame_fd(self._live()))
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
        (``end_of_reply``); for rendering files. Call ``flush()`` first so the last reply ends at once.

        Raises:
            TimeoutError: no frame came for ``timeout`` seconds (a reply waiting for audio that never came).
        """
        while True:
            frame = self.next_frame(timeout=timeout)
            if frame is None:
                raise TimeoutError(f"no frame for {timeout} s: is a reply waiting for audio? call flush()")
            yield frame
            if frame.end_of_reply and not self._replies and self._filling is None:
                return

    async def frames(self) -> AsyncIterator[Frame]:
        """Frames as they come, for asyncio: waits on the engine's descriptor in the running loop (no thread).
        Ends when the engine is closed; cancelling the consumer ends it too."""
        loop = asyncio.get_running_loop()
        fd = self._check("be_essence2_frame_fd", self._lib.be_essence2_frame_fd(self._live()))
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
            self._lib.be_essence2_destroy(handle)

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
