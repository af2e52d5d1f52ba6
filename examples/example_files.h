/*
 * example_files.h - the file helpers the C examples share (header only, static inline): reading a whole 16 kHz
 * mono speech file with libsndfile, and writing B,G,R frames as YUV4MPEG2 4:4:4. Include it after essence2.h
 * (or expression2.h); take it along when you copy an example.
 */
#ifndef ESSENCE2_EXAMPLE_FILES_H
#define ESSENCE2_EXAMPLE_FILES_H

#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads all of `path` (16 kHz mono, any format libsndfile reads, at most `max_samples` samples; 0: up to
 * INT32_MAX / 2). Returns the samples (the caller frees them) and their count in *count, or NULL after printing
 * why, each line starting with `program`; `hint` (may be "") follows the advice to convert other audio. */
static inline int16_t *example_read_speech(const char *program, const char *path, int32_t max_samples,
                                           const char *hint, int32_t *count) {
    SF_INFO info;
    memset(&info, 0, sizeof info);
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (!sf) {
        fprintf(stderr, "%s: cannot read %s: %s\n", program, path, sf_strerror(NULL));
        return NULL;
    }
    if (info.samplerate != BE_ESSENCE2_SAMPLE_RATE || info.channels != 1) {
        fprintf(stderr,
                "%s: %s is %d Hz with %d channel(s); the engine takes 16 kHz mono (16000 Hz, 1 channel).\n"
                "  Convert it first: essence2 audio %s -o speech16k.wav%s\n",
                program, path, info.samplerate, info.channels, path, hint);
        sf_close(sf);
        return NULL;
    }
    sf_count_t limit = max_samples > 0 ? max_samples : INT32_MAX / 2;
    if (info.frames <= 0 || info.frames > limit) {
        if (info.frames <= 0) {
            fprintf(stderr, "%s: %s: no audio\n", program, path);
        } else {
            fprintf(stderr, "%s: %s: too long (%.1f s of audio, at most %.1f s): give a shorter file\n", program, path,
                    (double)info.frames / BE_ESSENCE2_SAMPLE_RATE, (double)limit / BE_ESSENCE2_SAMPLE_RATE);
        }
        sf_close(sf);
        return NULL;
    }
    int16_t *samples = malloc((size_t)info.frames * sizeof *samples);
    if (!samples) {
        fprintf(stderr, "%s: out of memory\n", program);
        sf_close(sf);
        return NULL;
    }
    sf_count_t got = sf_readf_short(sf, samples, info.frames);
    sf_close(sf);
    if (got <= 0) {
        fprintf(stderr, "%s: %s: read error\n", program, path);
        free(samples);
        return NULL;
    }
    *count = (int32_t)got;
    return samples;
}

static inline uint8_t example_clamp_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* Writes one B,G,R frame of w x h pixels as a YUV4MPEG2 4:4:4 frame (BT.601, limited range); `planes` is
 * scratch of 3 x w x h bytes. Returns 0, or -1 when the write fails. */
static inline int example_write_y4m_frame(FILE *out, const uint8_t *bgr, int32_t w, int32_t h, uint8_t *planes) {
    size_t n = (size_t)w * (size_t)h;
    uint8_t *y = planes, *u = planes + n, *v = planes + 2 * n;
    for (size_t i = 0; i < n; i++) {
        int b = bgr[3 * i], g = bgr[3 * i + 1], r = bgr[3 * i + 2];
        y[i] = example_clamp_u8(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
        u[i] = example_clamp_u8(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
        v[i] = example_clamp_u8(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
    }
    if (fputs("FRAME\n", out) < 0) return -1;
    return fwrite(planes, 1, 3 * n, out) == 3 * n ? 0 : -1;
}

#endif
