#!/usr/bin/env python3
"""Make a small speech fixture for the lip-sync tests: 16 kHz mono int16 WAV plus espeak-ng phoneme timing.

Synthesises TEXT with libespeak-ng (through ctypes, so the phoneme events and the audio come from the same run),
writes PREFIX.wav (resampled to 16 kHz with sox, without dither, so reruns give identical files) and PREFIX.phn:
one line per phoneme, "start_sample name", where start_sample is the phoneme's start in the 16 kHz file as
espeak-ng reports it (for stops, espeak-ng marks unvoiced stops at their release and voiced ones at the start of
their closure).

    tools/make_speech_fixture.py "Bob bought a map" Tests/Essence2Tests/Fixtures/speech_bilabial
    tools/make_speech_fixture.py --phonemes --rate 100 "A:: _:_: i::" out/vowels

Needs libespeak-ng.so.1 and sox. Development tool only; nothing in the engine runs it.
"""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
import wave

EVENT_LIST_TERMINATED = 0
EVENT_PHONEME = 7
AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_PHONEME_EVENTS = 1
POS_CHARACTER = 1
FLAG_PHONEMES = 0x100
PARAM_RATE = 1


class EventId(ctypes.Union):
    _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]


class Event(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int), ("unique_identifier", ctypes.c_uint), ("text_position", ctypes.c_int),
        ("length", ctypes.c_int), ("audio_position", ctypes.c_int), ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p), ("id", EventId),
    ]


Callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(Event))


def synthesise(text, voice, rate, phonemes):
    lib = ctypes.CDLL("libespeak-ng.so.1")
    sample_rate = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, INITIALIZE_PHONEME_EVENTS)
    if sample_rate <= 0:
        sys.exit("espeak_Initialize failed")
    audio, events = [], []

    def on_audio(wav, count, event):
        if wav and count > 0:
            audio.extend(wav[:count])
        i = 0
        while event[i].type != EVENT_LIST_TERMINATED:
            if event[i].type == EVENT_PHONEME:
                name = bytes(event[i].id.string).split(b"\0")[0].decode()
                events.append((event[i].sample, name))
            i += 1
        return 0

    keep = Callback(on_audio)
    lib.espeak_SetSynthCallback(keep)
    if lib.espeak_SetVoiceByName(voice.encode()) != 0:
        sys.exit(f"unknown voice {voice}")
    lib.espeak_SetParameter(PARAM_RATE, rate, 0)
    data = (f"[[{text}]]" if phonemes else text).encode()
    flags = FLAG_PHONEMES if phonemes else 0
    lib.espeak_Synth(data, len(data) + 1, 0, POS_CHARACTER, 0, flags, None, None)
    lib.espeak_Synchronize()
    return sample_rate, audio, events


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("text")
    parser.add_argument("prefix", help="output path without extension")
    parser.add_argument("--voice", default="en")
    parser.add_argument("--rate", type=int, default=150, help="words a minute")
    parser.add_argument("--phonemes", action="store_true", help="TEXT is espeak-ng phoneme input")
    args = parser.parse_args()

    sample_rate, audio, events = synthesise(args.text, args.voice, args.rate, args.phonemes)
    os.makedirs(os.path.dirname(os.path.abspath(args.prefix)), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.wav")
        with wave.open(raw, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(sample_rate)
            w.writeframes(b"".join(int(s).to_bytes(2, "little", signed=True) for s in audio))
        subprocess.run(["sox", "-D", raw, "-r", "16000", "-c", "1", "-b", "16", args.prefix + ".wav"], check=True)
    with open(args.prefix + ".phn", "w") as out:
        for sample, name in events:
            out.write(f"{round(sample * 16000 / sample_rate)} {name}\n")


if __name__ == "__main__":
    main()
