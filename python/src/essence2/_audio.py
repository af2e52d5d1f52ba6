"""Reading speech files (shared by the page and the batch renderer)."""

from __future__ import annotations

import io
import shutil
import subprocess
import wave

import numpy as np

from . import _native as N


def decode_audio(data: bytes) -> tuple[np.ndarray, int]:
    """A WAV file's 16-bit samples (mixed to mono) and rate; other formats through ffmpeg, to 16 kHz mono."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        try:
            with wave.open(io.BytesIO(data), "rb") as w:
                if w.getsampwidth() == 2:
                    pcm = np.frombuffer(w.readframes(w.getnframes()), "<i2")
                    if w.getnchannels() > 1:
                        pcm = pcm.reshape(-1, w.getnchannels()).mean(axis=1).astype(np.int16)
                    return pcm, w.getframerate()
        except (wave.Error, EOFError):
            pass
    if shutil.which("ffmpeg") is None:
        raise ValueError("only 16-bit WAV files can be read without ffmpeg (install ffmpeg for other formats)")
    run = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-f", "s16le", "-ac",
                          "1", "-ar", str(N.SAMPLE_RATE), "pipe:1"], input=data, capture_output=True, timeout=60)
    if run.returncode != 0 or not run.stdout:
        raise ValueError("not an audio file ffmpeg can read: " + run.stderr.decode("utf-8", "replace").strip())
    return np.frombuffer(run.stdout, "<i2").astype(np.int16), N.SAMPLE_RATE
