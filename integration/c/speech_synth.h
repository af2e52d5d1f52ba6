/*
 * speech_synth.h - deterministic speech-like test audio (16 kHz mono int16), no files needed.
 *
 * A voiced source (glottal pulse train as a sum of harmonics of a 110-150 Hz pitch with a slow vibrato)
 * shaped by two formants that move between the vowels /a/, /i/, /u/, /o/, cut into syllables of
 * 160-280 ms with attack and release ramps and 40-90 ms closures between them (like p, b, m), so the
 * mouth has something to follow. The same arguments always give the same samples.
 */
#ifndef ESSENCE2_TEST_SPEECH_SYNTH_H
#define ESSENCE2_TEST_SPEECH_SYNTH_H

#include <stdint.h>
#include <stdlib.h>

/* The functions are `static inline`: several .c files of one test program include this header. */

/* No libm: the test binaries link only the library and pthreads. */
#define SYNTH_RATE 16000.0
#define SYNTH_PI 3.14159265358979323846

/* synth_sin(x) to about 1e-6, for any finite x. */
static inline double synth_sin(double x) {
    double turns = x / (2.0 * SYNTH_PI);
    long k = (long)turns;
    if (turns < 0 && (double)k != turns) k -= 1;       /* floor */
    x -= (double)k * 2.0 * SYNTH_PI;                  /* [0, 2pi) */
    if (x > SYNTH_PI) x -= 2.0 * SYNTH_PI;            /* (-pi, pi] */
    if (x > SYNTH_PI / 2) x = SYNTH_PI - x;           /* [-pi/2, pi/2] */
    if (x < -SYNTH_PI / 2) x = -SYNTH_PI - x;
    double x2 = x * x;
    return x * (1.0 - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0 * (1.0 - x2 / 110.0)))));
}

/* Rounds and clamps to int16. */
static inline int16_t synth_clamp16(double x) {
    if (x > 32767.0) return 32767;
    if (x < -32768.0) return -32768;
    return (int16_t)(x >= 0 ? x + 0.5 : x - 0.5);
}

/* Small deterministic generator (xorshift32); `state` must not be 0. */
static inline uint32_t synth_next(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/* Resonance gain of a formant at frequency f (a simple band-pass magnitude). */
static inline double synth_formant(double f, double centre, double bandwidth) {
    double d = (f - centre) / bandwidth;
    return 1.0 / (1.0 + d * d);
}

/*
 * Fills out[0..n) with speech-like audio. `seed` varies syllable lengths and vowels; `peak` is the
 * loudest sample magnitude (for example 12000).
 */
static inline void synth_speech(int16_t *out, int32_t n, uint32_t seed, double peak) {
    static const double vowels[4][2] = {{730, 1090}, {270, 2290}, {300, 870}, {570, 840}}; /* a i u o */
    uint32_t rng = seed ? seed : 0x9E3779B9u;
    int32_t i = 0;
    double phase = 0.0;
    while (i < n) {
        int32_t syllable = (int32_t)((0.16 + 0.12 * (synth_next(&rng) % 1000) / 1000.0) * SYNTH_RATE);
        int32_t closure = (int32_t)((0.04 + 0.05 * (synth_next(&rng) % 1000) / 1000.0) * SYNTH_RATE);
        const double *v = vowels[synth_next(&rng) % 4];
        double f0_base = 110.0 + (double)(synth_next(&rng) % 40);
        double loud = 0.6 + 0.4 * (synth_next(&rng) % 1000) / 1000.0;
        int32_t attack = (int32_t)(0.03 * SYNTH_RATE), release = (int32_t)(0.04 * SYNTH_RATE);
        for (int32_t k = 0; k < syllable && i < n; k++, i++) {
            double t = (double)i / SYNTH_RATE;
            double f0 = f0_base * (1.0 + 0.03 * synth_sin(2.0 * SYNTH_PI * 5.0 * t));
            phase += 2.0 * SYNTH_PI * f0 / SYNTH_RATE;
            if (phase > 2.0 * SYNTH_PI) phase -= 2.0 * SYNTH_PI;
            double s = 0.0, norm = 0.0;
            for (int h = 1; h * f0 < 3800.0 && h <= 32; h++) {
                double f = h * f0;
                double g = (synth_formant(f, v[0], 90.0) + 0.7 * synth_formant(f, v[1], 120.0) + 0.05) / h;
                s += g * synth_sin(h * phase);
                norm += g;
            }
            double env = 1.0;
            if (k < attack) env = (double)k / attack;
            if (syllable - k < release) env = (double)(syllable - k) / release;
            double x = peak * loud * env * s / (norm > 0 ? norm * 0.5 : 1.0);
            out[i] = synth_clamp16(x);
        }
        for (int32_t k = 0; k < closure && i < n; k++, i++) {
            /* a closure: near silence with a faint breath noise */
            out[i] = (int16_t)((int32_t)(synth_next(&rng) % 61) - 30);
        }
    }
}

/* Fills out[0..n) with one steady open vowel /a/ (no closures): the mouth stays open. */
static inline void synth_open_vowel(int16_t *out, int32_t n, double peak) {
    double phase = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double t = (double)i / SYNTH_RATE;
        double f0 = 130.0 * (1.0 + 0.02 * synth_sin(2.0 * SYNTH_PI * 4.0 * t));
        phase += 2.0 * SYNTH_PI * f0 / SYNTH_RATE;
        if (phase > 2.0 * SYNTH_PI) phase -= 2.0 * SYNTH_PI;
        double s = 0.0, norm = 0.0;
        for (int h = 1; h * f0 < 3800.0 && h <= 32; h++) {
            double f = h * f0;
            double g = (synth_formant(f, 730.0, 90.0) + 0.7 * synth_formant(f, 1090.0, 120.0) + 0.05) / h;
            s += g * synth_sin(h * phase);
            norm += g;
        }
        double x = peak * s / (norm > 0 ? norm * 0.5 : 1.0);
        out[i] = synth_clamp16(x);
    }
}

/* Allocates and fills n samples of synth_speech(); the caller frees. NULL when out of memory. */
static inline int16_t *synth_speech_alloc(int32_t n, uint32_t seed) {
    int16_t *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    if (p) synth_speech(p, n, seed, 12000.0);
    return p;
}

#endif /* ESSENCE2_TEST_SPEECH_SYNTH_H */
