"""Render a speech file to an MP4 with the avatar speaking it (H.264 + AAC, through PyAV).

    python examples/python/render_mp4.py speech.wav out.mp4 [--avatar grace-hopper] [--seed 7]

Needs the essence2 wheel (make python; pip install dist/essence2-*.whl) and PyAV (pip install av).
The speech may be any rate and mono or stereo WAV (the library resamples it); the video carries each frame's own
16 kHz audio, from the frame's record.
"""

from __future__ import annotations

import argparse
import sys
import wave
from fractions import Fraction

import numpy as np

import essence2


def read_wav(path: str) -> tuple[np.ndarray, int]:
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2:
            raise SystemExit(f"{path}: 16-bit PCM WAV only (convert with: essence2 audio {path} -o x.wav)")
        pcm = np.frombuffer(w.readframes(w.getnframes()), "<i2")
        if w.getnchannels() > 1:  # mixed as float (-1 ... 1): the library makes 16-bit samples of it, one rule
            pcm = pcm.reshape(-1, w.getnchannels()).astype(np.float32).mean(axis=1) / np.float32(32768)
        return pcm, w.getframerate()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("speech")
    ap.add_argument("output")
    ap.add_argument("--avatar", default="grace-hopper")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    try:
        import av
    except ImportError:
        print("render_mp4: needs PyAV: pip install av", file=sys.stderr)
        return 1
    pcm, rate = read_wav(a.speech)
    try:
        engine = essence2.Essence2(a.avatar, pacing="unpaced", seed=a.seed)
    except (essence2.Essence2Error, FileNotFoundError) as e:
        print(f"render_mp4: {e}", file=sys.stderr)
        return 1
    with engine, av.open(a.output, "w") as out:
        video = out.add_stream("libx264", rate=essence2.FPS)
        video.width, video.height, video.pix_fmt = engine.width, engine.height, "yuv420p"
        audio = out.add_stream("aac", rate=essence2.SAMPLE_RATE, layout="mono")
        samples = 0
        engine.push_audio(pcm, sample_rate=rate)  # any length: what the engine cannot hold yet waits
        engine.flush()
        for frame in engine.frames_until_idle():
            picture = av.VideoFrame.from_ndarray(frame.bgr, format="bgr24")
            picture.pts = frame.index
            picture.time_base = Fraction(1, essence2.FPS)
            out.mux(video.encode(picture))
            sound = av.AudioFrame.from_ndarray(frame.audio.reshape(1, -1), format="s16", layout="mono")
            sound.sample_rate, sound.pts = essence2.SAMPLE_RATE, samples
            samples += len(frame.audio)
            out.mux(audio.encode(sound))
        out.mux(video.encode())
        out.mux(audio.encode())
    print(f"wrote {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
