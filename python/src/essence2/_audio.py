"""Speech as the engine takes it: files read (the page, the batch renderer) and channels mixed (the integrations).
Rates and float samples go to the library as they are: it resamples and converts them itself."""

from __future__ import annotations

import io
import shutil
import subprocess
import wave

import numpy as np



def mono(pcm: np.ndarray, channels: int) -> np.ndarray:
    """Interleaved int16 samples of ``channels`` channels as mono: the samples themselves for one channel, else
    the channels' mean as float32 (-1 ... 1), which the library turns into 16-bit samples by its one rule."""
    if channels <= 1:
        return pcm
    frames = pcm[: len(pcm) - len(pcm) % channels].reshape(-1, channels)
    return (frames.astype(np.float32).mean(axis=1) / np.float32(32768)).astype(np.float32)


def decode_audio(data: bytes) -> tuple[np.ndarray, int]:
    """A speech file's mono samples and their rate, as the file has them (the library resamples): a 16-bit WAV's
    samples as int16 (more channels mixed to float32, ``mono``); other formats through ffmpeg, as float32."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        try:
            with wave.open(io.BytesIO(data), "rb") as w:
                if w.getsampwidth() == 2:
                    pcm = np.frombuffer(w.readframes(w.getnframes()), "<i2")
                    return mono(pcm, w.getnchannels()), w.getframerate()
        except (wave.Error, EOFError):
            pass
    if shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None:
        raise ValueError("only 16-bit WAV files can be read without ffmpeg (install ffmpeg for other formats)")
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate",
                            "-of", "csv=p=0", "pipe:0"], input=data, capture_output=True, timeout=60)
    rate = probe.stdout.decode("ascii", "replace").strip().split("\n")[0]
    # Decoded at the file's own rate, mixed to mono, as float: the library resamples and converts it.
    run = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-f", "f32le", "-ac", "1",
                          "pipe:1"], input=data, capture_output=True, timeout=60) if rate.isdigit() else probe
    if run.returncode != 0 or not rate.isdigit() or not run.stdout:
        raise ValueError("not an audio file ffmpeg can read: " + run.stderr.decode("utf-8", "replace").strip())
    return np.frombuffer(run.stdout, "<f4").astype(np.float32), int(rate)
