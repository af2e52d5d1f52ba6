/*
 * minimal_loop.c - the minimal realtime loop of essence2: a live audio source feeds the engine in 20 ms
 * chunks, the host pulls frames at 25 a second and shows (here: writes) every frame it is handed. It waits
 * without sleeping: in poll() on be_essence2_frame_fd(), which becomes readable when a frame is due, with a
 * timeout for the next audio chunk; and it sees the end of the reply in be_essence2_reply_counts().
 *
 * Usage: minimal_loop AVATAR.imx SPEECH OUT.y4m
 *
 * SPEECH is 16 kHz mono audio in any file format libsndfile reads (WAV, FLAC, Ogg...); make one from any
 * audio with `essence2 audio IN -o speech16k.wav` (it resamples and downmixes).
 * OUT.y4m is YUV4MPEG2 with 4:4:4 chroma (`C444`: no chroma subsampling, so the conversion from the
 * engine's B,G,R frames is per pixel and exact to BT.601 limited range); ffmpeg and mpv read it, e.g.
 * `ffmpeg -i OUT.y4m -i SPEECH.wav -pix_fmt yuv420p out.mp4`.
 *
 * Build: cc -std=c11 -Iinclude examples/minimal_loop.c -o minimal_loop -Lpath/to/lib -lessence2 -lsndfile
 * Exit status: 0 on success, 1 on any failure (the reason goes to stderr).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "essence2.h"
#include "example_files.h"

#define CHUNK_SAMPLES 320 /* 20 ms at 16 kHz: what a live source (microphone, network) delivers */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prints why an essence2 call failed: the library's reason on this thread (the code's general meaning when
   there is none). */
static void report(const char *what, int32_t code) {
    char reason[512] = "";
    be_essence2_last_error(reason, (int32_t)sizeof reason);
    fprintf(stderr, "minimal_loop: %s failed (%d): %s\n", what, code, reason[0] ? reason : be_essence2_strerror(code));
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: minimal_loop AVATAR.imx SPEECH OUT.y4m\n"
                        "  plays SPEECH (16 kHz mono, WAV/FLAC/Ogg...; `essence2 audio IN -o speech16k.wav` makes\n"
                        "  one from any audio) into the engine like a live source and writes every frame handed\n"
                        "  out, at 25 fps, to OUT.y4m (YUV4MPEG2, 4:4:4).\n");
        return 2;
    }
    const char *avatar = argv[1], *speech = argv[2], *out_path = argv[3];
    int status = 1;
    be_essence2_handle h = NULL;
    int16_t *audio = NULL;
    uint8_t *frame = NULL, *planes = NULL;
    FILE *out = NULL;
    int32_t nsamples = 0;

    audio = example_read_speech("minimal_loop", speech, 0, "", &nsamples);
    if (!audio) goto done;

    int32_t rc = be_essence2_create(avatar, NULL, 0, &h);
    if (rc != 0) {
        report("be_essence2_create", rc);
        if (rc == BE_ESSENCE2_ERR_REFUSED) {
            char why[512] = "";
            be_essence2_last_refusal(why, (int32_t)sizeof why);
            fprintf(stderr, "minimal_loop: refused: %s\n", why);
        }
        goto done;
    }
    int32_t w = 0, ht = 0;
    if ((rc = be_essence2_get_info(h, &w, &ht)) != 0) {
        report("be_essence2_get_info", rc);
        goto done;
    }
    int32_t frame_bytes = w * ht * 3;
    frame = malloc((size_t)frame_bytes);
    planes = malloc((size_t)frame_bytes);
    if (!frame || !planes) {
        fprintf(stderr, "minimal_loop: out of memory\n");
        goto done;
    }
    out = fopen(out_path, "wb");
    if (!out) {
        fprintf(stderr, "minimal_loop: cannot write %s: %s\n", out_path, strerror(errno));
        goto done;
    }
    if (fprintf(out, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C444\n", w, ht) < 0) {
        fprintf(stderr, "minimal_loop: cannot write %s: %s\n", out_path, strerror(errno));
        goto done;
    }

    int fd = be_essence2_frame_fd(h);
    if (fd < 0) {
        report("be_essence2_frame_fd", fd);
        goto done;
    }
    int64_t replies_ended = 0;
    if ((rc = be_essence2_reply_counts(h, NULL, &replies_ended)) != 0) {
        report("be_essence2_reply_counts", rc);
        goto done;
    }
    long frames = 0, speech_frames = 0;
    int32_t pushed = 0;
    int audio_done = 0;
    double start = now_s();
    double give_up = start + nsamples / (double)BE_ESSENCE2_SAMPLE_RATE + 15.0;
    for (;;) {
        /* the live source: one 20 ms chunk every 20 ms; on -2 (ring full) keep it and try again later */
        if (!audio_done && now_s() >= start + (double)pushed / BE_ESSENCE2_SAMPLE_RATE) {
            int32_t n = nsamples - pushed < CHUNK_SAMPLES ? nsamples - pushed : CHUNK_SAMPLES;
            rc = be_essence2_push_audio(h, audio + pushed, n);
            if (rc == 0) {
                pushed += n;
                if (pushed == nsamples) {
                    audio_done = 1;
                    if ((rc = be_essence2_end_utterance(h)) != 0) {
                        report("be_essence2_end_utterance", rc);
                        goto done;
                    }
                }
            } else if (rc != BE_ESSENCE2_ERR_FULL) {
                report("be_essence2_push_audio", rc);
                goto done;
            }
        }
        /* the display: take the frame that is due, if any */
        int32_t got = be_essence2_pull_frame(h, frame, frame_bytes);
        if (got < 0) {
            report("be_essence2_pull_frame", got);
            goto done;
        }
        if (got > 0) {
            frames++;
            if (be_essence2_last_frame_kind(h) == BE_ESSENCE2_FRAME_SPEECH) speech_frames++;
            if (example_write_y4m_frame(out, frame, w, ht, planes) != 0) {
                fprintf(stderr, "minimal_loop: cannot write %s: %s\n", out_path, strerror(errno));
                goto done;
            }
            /* the reply is over when the count of ended replies grows (an idle frame followed its speech) */
            int64_t ended = 0;
            if ((rc = be_essence2_reply_counts(h, NULL, &ended)) != 0) {
                report("be_essence2_reply_counts", rc);
                goto done;
            }
            if (ended > replies_ended) break;
        }
        double now = now_s();
        if (now > give_up) {
            fprintf(stderr, "minimal_loop: the reply did not end within %.0f s\n", give_up - start);
            goto done;
        }
        /* wait for the next frame, or until the next audio chunk is due */
        double next_chunk = audio_done ? give_up : start + (double)pushed / BE_ESSENCE2_SAMPLE_RATE;
        int timeout_ms = (int)((next_chunk - now) * 1000.0 + 0.999);
        if (timeout_ms < 0) timeout_ms = 0;
        if (timeout_ms > 100) timeout_ms = 100;
        struct pollfd wait_for_frame = {.fd = fd, .events = POLLIN};
        if (poll(&wait_for_frame, 1, timeout_ms) < 0 && errno != EINTR) {
            fprintf(stderr, "minimal_loop: poll: %s\n", strerror(errno));
            goto done;
        }
    }
    if (fclose(out) != 0) {
        out = NULL;
        fprintf(stderr, "minimal_loop: cannot write %s: %s\n", out_path, strerror(errno));
        goto done;
    }
    out = NULL;
    int64_t skipped = be_essence2_skipped_frames(h);
    printf("minimal_loop: %ld frames (%ld speech, %lld skipped) for %.2f s of audio in %.2f s -> %s\n", frames,
           speech_frames, (long long)skipped, nsamples / (double)BE_ESSENCE2_SAMPLE_RATE, now_s() - start, out_path);
    status = 0;

done:
    if (out) fclose(out);
    if (h) {
        /* at process exit: stop the engine and wait (at most 1 s) for its render thread, then release it */
        be_essence2_quiesce_all(1000);
        be_essence2_destroy(h);
    }
    free(frame);
    free(planes);
    free(audio);
    return status;
}
