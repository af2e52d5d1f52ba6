"""Per-hop inputs of 16 kHz audio, exactly as the engine computes them (Sources/Essence2Runtime/Audio/:
LogMelAnalyzer.swift, SpeechPeakTracker.swift, PeriodicityAnalyzer.swift).

Hop h (10 ms, 100 Hz) is the 25 ms window of samples [160h - 120, 160h + 280): centred on the hop's own 160 samples.
Samples are int16 scaled by 1/32768; samples before the stream or after its end read as silence. Each window is
Hann-weighted (w[n] = 0.5 - 0.5 cos(2 pi (n + 0.5) / 400)), zero-padded to 512 points and transformed; the one-sided
power spectrum is scaled by 2 / (512 sum w^2) (mean power of the unwindowed signal) and summed through 32 triangular
mel filters (HTK mel scale, 60 Hz ... 7600 Hz, peak weight 1). Each band is 10 log10(max(energy, 1e-10)) dB.

Each hop also has a broadband level, 10 log10 of the sum of its floored band energies, and its *relative level*: that
level minus the loudest level heard recently in the stream (a peak that follows any louder hop at once and otherwise
falls 0.06 dB a hop, 6 dB/s; it starts at the level of pure silence, as if set by the hop before the stream), so 0 on
the stream's loudest sounds and about -20 dB on background speech 20 dB under the talker
(Sources/Essence2Runtime/Audio/SpeechPeakTracker.swift).

Each hop's *periodicity* (Sources/Essence2Runtime/Audio/PeriodicityAnalyzer.swift): the 512 samples that end where the
hop's 25 ms window ends, Hann-weighted (w[n] = 0.5 - 0.5 cos(2 pi (n + 0.5) / 512)); their autocorrelation (1024-point
FFT, power, inverse) divided by the window's own autocorrelation, both over their values at lag 0; the largest value
at lags 40 ... 200 (400 ... 80 Hz), clipped to 0 ... 1; 0 when the windowed energy is under 1e-7.

Frame k of the engine (40 ms, samples [640k, 640k + 640)) owns hops 4k ... 4k + 3; the model for frame k reads
hops 4k - PAST_HOPS ... 4k + 3 + AHEAD_HOPS. The last of them ends 1240 samples (77.5 ms) after the frame.

Development tool only; nothing in the engine runs Python.
"""
import numpy as np

SAMPLE_RATE = 16000
HOP = 160
WINDOW = 400
WINDOW_LEAD = (WINDOW - HOP) // 2  # 120: a hop's window starts this far before its own samples
NFFT = 512
N_MELS = 32
N_INPUTS = N_MELS + 2       # per hop: the bands, the relative level, the periodicity
MEL_LOW_HZ = 60.0
MEL_HIGH_HZ = 7600.0
FLOOR = 1e-10
FLOOR_DB = -100.0
LEVEL_DECAY_DB = 0.06                                 # fall of the peak per hop
SILENCE_LEVEL_DB = 10.0 * np.log10(N_MELS * FLOOR)    # broadband level of pure silence

PERIOD_WINDOW = 512
PERIOD_NFFT = 1024
PERIOD_LAGS = (40, 200)     # shortest and longest lag, samples
PERIOD_SILENT = 1e-7        # windowed energy below which a window reads 0

FRAME_SAMPLES = 640
HOPS_PER_FRAME = FRAME_SAMPLES // HOP  # 4
AHEAD_HOPS = 7   # hops after the frame's last hop
PAST_HOPS = 25   # hops before the frame's first hop
CONTEXT_HOPS = PAST_HOPS + HOPS_PER_FRAME + AHEAD_HOPS  # 36
LOOKAHEAD_SAMPLES = (HOPS_PER_FRAME + AHEAD_HOPS - 1) * HOP - WINDOW_LEAD + WINDOW - FRAME_SAMPLES  # 1240


def hann(length=WINDOW):
    n = np.arange(length, dtype=np.float64)
    return 0.5 - 0.5 * np.cos(2 * np.pi * (n + 0.5) / length)


def _mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def _hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def mel_filters():
    """(N_MELS, NFFT/2 + 1) triangular weights; the Swift side computes the same formula in Double."""
    edges = _hz(np.linspace(_mel(MEL_LOW_HZ), _mel(MEL_HIGH_HZ), N_MELS + 2))
    freqs = np.arange(NFFT // 2 + 1) * SAMPLE_RATE / NFFT
    w = np.zeros((N_MELS, NFFT // 2 + 1))
    for b in range(N_MELS):
        lo, c, hi = edges[b], edges[b + 1], edges[b + 2]
        rise = (freqs - lo) / (c - lo)
        fall = (hi - freqs) / (hi - c)
        w[b] = np.maximum(0.0, np.minimum(rise, fall))
    return w


_WINDOW = hann()
_PWINDOW = hann(PERIOD_WINDOW)
_PWINDOW_CORR = np.array([np.dot(_PWINDOW[:PERIOD_WINDOW - k], _PWINDOW[k:]) for k in range(PERIOD_LAGS[1] + 1)])
_PWINDOW_CORR /= _PWINDOW_CORR[0]
_POWER_SCALE = 2.0 / (NFFT * float(np.sum(_WINDOW * _WINDOW)))
_MEL = mel_filters()


def log_mel(samples, first_hop, n_hops):
    """(n_hops, N_MELS) float64 features of hops first_hop ... first_hop + n_hops - 1 of int16 `samples`."""
    return log_mel_and_level(samples, first_hop, n_hops)[0]


def log_mel_and_level(samples, first_hop, n_hops):
    """log_mel and the broadband level (n_hops,) in dB of the same hops."""
    x = np.asarray(samples, dtype=np.float64) / 32768.0
    start = first_hop * HOP - WINDOW_LEAD
    stop = (first_hop + n_hops - 1) * HOP - WINDOW_LEAD + WINDOW
    padded = np.zeros(stop - start)
    lo, hi = max(start, 0), min(stop, len(x))
    if hi > lo:
        padded[lo - start:hi - start] = x[lo:hi]
    idx = np.arange(n_hops)[:, None] * HOP + np.arange(WINDOW)[None, :]
    frames = padded[idx] * _WINDOW
    spectrum = np.fft.rfft(frames, n=NFFT, axis=1)
    power = (spectrum.real ** 2 + spectrum.imag ** 2) * _POWER_SCALE
    energy = np.maximum(power @ _MEL.T, FLOOR)
    return 10.0 * np.log10(energy), 10.0 * np.log10(energy.sum(axis=1))


def periodicity(samples, first_hop, n_hops):
    """(n_hops,) periodicity 0 ... 1 of hops first_hop ... first_hop + n_hops - 1 of int16 `samples`."""
    x = np.asarray(samples, dtype=np.float64) / 32768.0
    ends = (first_hop + np.arange(n_hops)) * HOP - WINDOW_LEAD + WINDOW
    start = int(ends[0]) - PERIOD_WINDOW
    padded = np.zeros(int(ends[-1]) - start)
    lo, hi = max(start, 0), min(int(ends[-1]), len(x))
    if hi > lo:
        padded[lo - start:hi - start] = x[lo:hi]
    idx = np.arange(n_hops)[:, None] * HOP + np.arange(PERIOD_WINDOW)[None, :]
    frames = padded[idx] * _PWINDOW
    spectrum = np.fft.rfft(frames, n=PERIOD_NFFT, axis=1)
    corr = np.fft.irfft(spectrum.real ** 2 + spectrum.imag ** 2, n=PERIOD_NFFT, axis=1)
    r0 = corr[:, 0]
    lags = slice(PERIOD_LAGS[0], PERIOD_LAGS[1] + 1)
    ratio = corr[:, lags] / np.maximum(r0, 1e-30)[:, None] / _PWINDOW_CORR[lags][None, :]
    out = np.clip(ratio.max(axis=1), 0.0, 1.0)
    out[r0 < PERIOD_SILENT] = 0.0
    return out


def relative_level(levels):
    """Each hop's level minus the decayed recent peak (dB, <= 0), for the hops of a stream in order from its
    first hop (or from hops before it, which are pure silence and read 0)."""
    out = np.zeros(len(levels))
    peak, age = SILENCE_LEVEL_DB, 0
    for t, level in enumerate(levels):
        age += 1
        decayed = peak - LEVEL_DECAY_DB * age
        if level >= decayed:
            peak, age = level, 0
        else:
            out[t] = level - decayed
    return out


def frame_count(n_samples):
    """Frames the engine gives for a whole utterance (the last partial frame included)."""
    return (n_samples + FRAME_SAMPLES - 1) // FRAME_SAMPLES


def utterance_features(samples):
    """Features of every hop any frame of the utterance reads: hops -PAST_HOPS ... 4(n-1) + 3 + AHEAD_HOPS,
    shape (4n + CONTEXT_HOPS - 4, N_INPUTS): the bands, the relative level and the periodicity; frame k reads rows
    4k ... 4k + CONTEXT_HOPS - 1. Hops before the stream are taken as the engine takes them: pure silence (every
    band at FLOOR_DB, relative level 0, periodicity 0), and the peak starts from silence at hop 0."""
    n = frame_count(len(samples))
    rows = HOPS_PER_FRAME * n + CONTEXT_HOPS - HOPS_PER_FRAME
    bands, level = log_mel_and_level(samples, 0, rows - PAST_HOPS)
    out = np.zeros((rows, N_INPUTS))
    out[:PAST_HOPS, :N_MELS] = FLOOR_DB
    out[PAST_HOPS:, :N_MELS] = bands
    out[PAST_HOPS:, N_MELS] = relative_level(level)
    out[PAST_HOPS:, N_MELS + 1] = periodicity(samples, 0, rows - PAST_HOPS)
    return out

