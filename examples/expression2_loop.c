/*
 * expression2_loop.c - the minimal realtime loop of Expression 2 (include/expression2.h): a character avatar
 * (avatars/squirrel.imx by default) speaks a 16 kHz mono file. The program queues the speech as the engine's
 * 16 s ring takes it, takes frames at 20 a second with their records (kind, audio time, the frame's own 800
 * samples), and writes every frame it is handed to OUT.y4m, or only counts them when no OUT is given. It waits
 * in poll() on be_expression2_frame_fd(), which becomes readable when a frame is due, and stops at the frame
 * whose record says the reply ended.
 *
 * Usage: expression2_loop SPEECH [OUT.y4m [AVATAR.imx]]
 *
 * SPEECH is 16 kHz mono audio in any file format libsndfile reads (WAV, FLAC, Ogg...); make one from any
 * audio with `essence2 audio IN -o speech16k.wav`. OUT.y4m is YUV4MPEG2 at 20 fps with 4:4:4 chroma (BT.601,
 * limited range); "-" or nothing writes no file. AVATAR is a character .imx (`essence2 avatar build PICTURE
 * --character`); a photoreal one is refused by be_expression2_create() (use examples/minimal_loop.c for it).
 *
 * Build: cc -std=c11 -Iinclude examples/expression2_loop.c -o expression2_loop -Lpath/to/lib -lessence2 -lsndfile
 * Exit status: 0 on success, 1 on any failure (the library's reason goes to stderr), 2 on bad usage.
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

#include "expression2.h"
#include "example_files.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prints why a call failed: the library's reason on this thread (the code's general meaning when there is
   none), and for a refused session (-3) the refusal's sentence. */
static void report(const char *what, int32_t code) {
    char reason[512] = "";
    be_expression2_last_error(reason, (int32_t)sizeof reason);
    fprintf(stderr, "expression2_loop: %s failed (%d): %s\n", what, code, reason[0] ? reason : be_essence2_strerror(code));
    if (code == BE_ESSENCE2_ERR_REFUSED) {
        char why[512] = "";
        if (be_essence2_last_refusal(why, (int32_t)sizeof why) > 0) fprintf(stderr, "expression2_loop: refused: %s\n", why);
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: expression2_loop SPEECH [OUT.y4m [AVATAR.imx]]\n"
                        "  plays SPEECH (16 kHz mono, WAV/FLAC/Ogg...; `essence2 audio IN -o speech16k.wav` makes one\n"
                        "  from any audio) into an Expression 2 engine for a character avatar (default\n"
                        "  avatars/squirrel.imx) and takes its frames at 20 a second; writes them to OUT.y4m\n"
                        "  (YUV4MPEG2, 4:4:4) unless OUT is - or left out, and prints how many there were.\n");
        return 2;
    }
    const char *speech = argv[1];
    const char *out_path = argc >= 3 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
    const char *avatar = argc >= 4 ? argv[3] : "avatars/squirrel.imx";
    int status = 1;
    be_expression2_handle h = NULL;
    int16_t *audio = NULL;
    uint8_t *pixels = NULL, *planes = NULL;
    be_expression2_frame_info *info = NULL;
    FILE *out = NULL;
    int32_t nsamples = 0, rc;

    audio = example_read_speech("expression2_loop", speech, 0, " (or feed any rate with be_expression2_feed_audio)",
                                &nsamples);
    if (!audio) goto done;

    if ((rc = be_expression2_create(avatar, NULL, NULL, &h)) != 0) {
        report("be_expression2_create", rc);
        goto done;
    }
    int32_t w = 0, ht = 0;
    if ((rc = be_expression2_get_info(h, &w, &ht)) != 0) {
        report("be_expression2_get_info", rc);
        goto done;
    }
    int32_t frame_bytes = w * ht * 3;
    pixels = malloc((size_t)frame_bytes);
    planes = malloc((size_t)frame_bytes);
    info = malloc(sizeof *info); /* 1664 bytes: the record with its 800 samples */
    if (!pixels || !planes || !info) {
        fprintf(stderr, "expression2_loop: out of memory\n");
        goto done;
    }
    if (out_path) {
        out = fopen(out_path, "wb");
        if (!out || fprintf(out, "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C444\n", w, ht, BE_EXPRESSION2_FPS) < 0) {
            fprintf(stderr, "expression2_loop: cannot write %s: %s\n", out_path, strerror(errno));
            goto done;
        }
    }
    int fd = be_expression2_frame_fd(h);
    if (fd < 0) {
        report("be_expression2_frame_fd", fd);
        goto done;
    }

    long frames = 0, speech_frames = 0, speech_samples = 0;
    int32_t pushed = 0;
    int ended = 0;
    double start = now_s();
    double give_up = start + nsamples / (double)BE_ESSENCE2_SAMPLE_RATE + 15.0;
    while (!ended) {
        /* the speech: as much as the ring takes (all or nothing per call: -2 means full, try again later);
           at the end, mark the reply complete so that the face eases to rest at once */
        while (pushed < nsamples) {
            int32_t n = nsamples - pushed < BE_ESSENCE2_SAMPLE_RATE ? nsamples - pushed : BE_ESSENCE2_SAMPLE_RATE;
            rc = be_expression2_push_audio(h, audio + pushed, n);
            if (rc == BE_ESSENCE2_ERR_FULL) break;
            if (rc != 0) {
                report("be_expression2_push_audio", rc);
                goto done;
            }
            pushed += n;
            if (pushed == nsamples && (rc = be_expression2_end_utterance(h)) != 0) {
                report("be_expression2_end_utterance", rc);
                goto done;
            }
        }
        /* the display: take the frame that is due, if any, with its record */
        info->size = (uint32_t)sizeof *info;
        int32_t got = be_expression2_take_frame(h, pixels, frame_bytes, info);
        if (got < 0) {
            report("be_expression2_take_frame", got);
            goto done;
        }
        if (got > 0) {
            frames++;
            if (info->kind == BE_ESSENCE2_FRAME_SPEECH) speech_frames++;
            speech_samples += info->audio_samples; /* info->audio: the sound to play with this frame */
            if (out && example_write_y4m_frame(out, pixels, w, ht, planes) != 0) {
                fprintf(stderr, "expression2_loop: cannot write %s: %s\n", out_path, strerror(errno));
                goto done;
            }
            ended = info->ends_reply; /* the first frame after the reply's ramp */
            continue;
        }
        if (now_s() > give_up) {
            fprintf(stderr, "expression2_loop: the reply did not end within %.0f s\n", give_up - start);
            goto done;
        }
        /* wait for the next frame (at most 50 ms, so that queued speech keeps moving into the ring) */
        struct pollfd wait_for_frame = {.fd = fd, .events = POLLIN};
        if (poll(&wait_for_frame, 1, 1000 / BE_EXPRESSION2_FPS) < 0 && errno != EINTR) {
            fprintf(stderr, "expression2_loop: poll: %s\n", strerror(errno));
            goto done;
        }
    }
    if (out) {
        int closed = fclose(out);
        out = NULL;
        if (closed != 0) {
            fprintf(stderr, "expression2_loop: cannot write %s: %s\n", out_path, strerror(errno));
            goto done;
        }
    }
    int64_t skipped = be_expression2_skipped_frames(h);
    if (skipped < 0) {
        report("be_expression2_skipped_frames", (int32_t)skipped);
        goto done;
    }
    printf("expression2_loop: %ld frames (%ld speech, %ld samples of speech, %lld skipped) for %.2f s of audio "
           "in %.2f s -> %s\n",
           frames, speech_frames, speech_samples, (long long)skipped, nsamples / (double)BE_ESSENCE2_SAMPLE_RATE,
           now_s() - start, out_path ? out_path : "(counted only)");
    status = 0;

done:
    if (out) fclose(out);
    if (h && (rc = be_expression2_destroy(h)) != 0) {
        report("be_expression2_destroy", rc);
        status = 1;
    }
    free(info);
    free(pixels);
    free(planes);
    free(audio);
    return status;
}
