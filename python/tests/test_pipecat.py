"""essence2.pipecat in a real Pipecat pipeline, with Pipecat's own test helpers (offline)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

pytest.importorskip("pipecat", reason="Pipecat is not installed (pip install pipecat-ai)")

from pipecat.frames.frames import (InterruptionFrame, OutputAudioRawFrame, OutputImageRawFrame,  # noqa: E402
                                   TTSAudioRawFrame, TTSStartedFrame, TTSStoppedFrame)
from pipecat.tests.utils import SleepFrame, run_test  # noqa: E402

from essence2.pipecat import Essence2VideoProcessor  # noqa: E402
from test_engine import demo_pcm, upsample  # noqa: E402


def tts_frames(seconds: float, rate: int = 24000, chunk_ms: int = 100):
    pcm = demo_pcm(seconds)
    hi16 = np.round(upsample(pcm, rate) * 32768).clip(-32768, 32767).astype(np.int16)  # TTS-like int16 input
    step = rate * chunk_ms // 1000
    return [TTSAudioRawFrame(audio=hi16[i:i + step].tobytes(), sample_rate=rate, num_channels=1)
            for i in range(0, len(hi16), step)], len(pcm)


def test_tts_audio_becomes_25_images_a_second_with_the_audio_in_step():
    audio, n16 = tts_frames(1.5)
    sent = [TTSStartedFrame(), *audio, TTSStoppedFrame(), SleepFrame(sleep=2.5)]
    down, _ = asyncio.run(run_test(Essence2VideoProcessor(avatar="grace-hopper", seed=1), frames_to_send=sent))
    images = [f for f in down if isinstance(f, OutputImageRawFrame)]
    sound = [f for f in down if isinstance(f, OutputAudioRawFrame) and not isinstance(f, TTSAudioRawFrame)]
    assert not any(isinstance(f, TTSAudioRawFrame) for f in down)  # the TTS audio comes out with the video
    assert any(isinstance(f, TTSStartedFrame) for f in down) and any(isinstance(f, TTSStoppedFrame) for f in down)
    assert 50 <= len(images) <= 110  # about 2.5-4 s at 25 a second
    assert all(f.size == (512, 600) and f.format == "RGB" and len(f.image) == 512 * 600 * 3 for f in images)
    assert all(f.sample_rate == 16000 and len(f.audio) == 1280 for f in sound)
    assert abs(len(sound) - n16 / 640) <= 3  # every 40 ms of speech once, beside its image
    # each speech audio frame is followed by its image
    order = [type(f) for f in down if isinstance(f, (OutputImageRawFrame, OutputAudioRawFrame))]
    for k, t in enumerate(order[:-1]):
        if t is OutputAudioRawFrame:
            assert order[k + 1] is OutputImageRawFrame


def test_an_interruption_stops_the_speech_and_the_face_eases_to_rest():
    audio, n16 = tts_frames(4.0)
    sent = [TTSStartedFrame(), *audio, SleepFrame(sleep=0.8), InterruptionFrame(), SleepFrame(sleep=1.0)]
    down, _ = asyncio.run(run_test(Essence2VideoProcessor(avatar="astronaut", seed=2), frames_to_send=sent,
                                   send_end_frame=True))
    sound = [f for f in down if isinstance(f, OutputAudioRawFrame)]
    assert 5 <= len(sound) < n16 / 640 / 2  # speech stopped well before the 4 s were spoken
    k = next(i for i, f in enumerate(down) if isinstance(f, InterruptionFrame))
    assert len([f for f in down[k:] if isinstance(f, OutputAudioRawFrame)]) <= 3
    assert len([f for f in down[k:] if isinstance(f, OutputImageRawFrame)]) >= 15  # the face goes on
