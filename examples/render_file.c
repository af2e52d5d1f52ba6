/*
 * render_file.c - offline rendering with essence2: all the speech goes in as fast as the engine takes it
 * (UNPACED pacing), every frame of the reply comes out as fast as it renders, and the result is written as
 * a video and a matching audio track.
 *
 * Usage: render_file AVATAR.imx SPEECH.wav OUT.y4m OUT.wav [--seed N]
 *
 * SPEECH must be 16 kHz mono (any format libsndfile reads; `essence2 render` resamples other audio).
 * OUT.y4m: YUV4MPEG2, 25 fps, 4:4:4 (BT.601 limited range), from the reply's first speech frame to the
 * first idle frame after it (speech, the ramp back to rest, one idle frame).
 * OUT.wav: 16 kHz mono 16-bit, exactly frames x 640 samples: the speech, then silence to the end of the
 * video, so sample k*640 is heard when frame k shows. Mux with
 * `ffmpeg -i OUT.y4m -i OUT.wav -pix_fmt yuv420p -c:a aac out.mp4`.
 * --seed N seeds the idle motion: the same avatar, speech and seed give byte-identical output.
 *
 * Exit status: 0 on success, 1 on any failure (the reason goes to stderr), 2 on bad arguments.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "essence2.h"
#include "example_files.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void report(const char *what, int32_t code) {
    char reason[512] = "";
    be_essence2_last_error(reason, (int32_t)sizeof reason);
    /* The reason says exactly what went wrong; strerror only the code's general meaning. */
    fprintf(stderr, "render_file: %s failed (%d): %s\n", what, code, reason[0] ? reason : be_essence2_strerror(code));
}

/* What the output holds so far. */
struct render {
    be_essence2_handle h;
    FILE *video;
    const char *video_path;
    uint8_t *frame, *planes;
    int32_t w, ht, frame_bytes;
    long frames, speech, ramp, idle, lead_in_skipped;
    int started; /* the reply's first frame has been written */
    int ended;   /* an idle frame followed the reply's speech */
};

/* Takes one frame if one is ready: 1 taken, 0 none ready, -1 error (reported). */
static int take_frame(struct render *r) {
    int32_t got = be_essence2_pull_frame(r->h, r->frame, r->frame_bytes);
    if (got < 0) {
        report("be_essence2_pull_frame", got);
        return -1;
    }
    if (got == 0) return 0;
    int32_t kind = be_essence2_last_frame_kind(r->h);
    if (!r->started && kind == BE_ESSENCE2_FRAME_IDLE) {
        r->lead_in_skipped++; /* idle frames rendered before the speech arrived: not part of the file */
        return 1;
    }
    r->started = 1;
    if (example_write_y4m_frame(r->video, r->frame, r->w, r->ht, r->planes) != 0) {
        fprintf(stderr, "render_file: cannot write %s: %s\n", r->video_path, strerror(errno));
        return -1;
    }
    r->frames++;
    if (kind == BE_ESSENCE2_FRAME_SPEECH) r->speech++;
    if (kind == BE_ESSENCE2_FRAME_RAMP) r->ramp++;
    if (kind == BE_ESSENCE2_FRAME_IDLE) {
        r->idle++;
        if (r->speech > 0) r->ended = 1;
    }
    return 1;
}

/* Writes `frames` x 640 samples: the speech, then silence. Returns 0 or -1 (reported). */
static int write_wav(const char *path, const int16_t *audio, int32_t nsamples, long frames) {
    SF_INFO info;
    memset(&info, 0, sizeof info);
    info.samplerate = BE_ESSENCE2_SAMPLE_RATE;
    info.channels = 1;
    info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    if (!sf) {
        fprintf(stderr, "render_file: cannot write %s: %s\n", path, sf_strerror(NULL));
        return -1;
    }
    sf_count_t total = (sf_count_t)frames * BE_ESSENCE2_SAMPLES_PER_FRAME;
    sf_count_t speech = nsamples < total ? nsamples : total;
    int ok = sf_writef_short(sf, audio, speech) == speech;
    static const int16_t silence[BE_ESSENCE2_SAMPLES_PER_FRAME];
    for (sf_count_t done = speech; ok && done < total;) {
        sf_count_t n = total - done < BE_ESSENCE2_SAMPLES_PER_FRAME ? total - done : BE_ESSENCE2_SAMPLES_PER_FRAME;
        ok = sf_writef_short(sf, silence, n) == n;
        done += n;
    }
    if (!ok) fprintf(stderr, "render_file: cannot write %s: %s\n", path, sf_strerror(sf));
    if (sf_close(sf) != 0 && ok) {
        fprintf(stderr, "render_file: cannot write %s\n", path);
        ok = 0;
    }
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    const char *usage = "usage: render_file AVATAR.imx SPEECH.wav OUT.y4m OUT.wav [--seed N]\n"
                        "  renders the avatar speaking SPEECH (16 kHz mono) as fast as possible: OUT.y4m (25 fps,\n"
                        "  YUV4MPEG2 4:4:4) and OUT.wav (the speech padded with silence to the video's length).\n";
    int have_seed = 0;
    unsigned long long seed = 0;
    if (argc == 7 && strcmp(argv[5], "--seed") == 0) {
        char *end = NULL;
        errno = 0;
        seed = strtoull(argv[6], &end, 0);
        if (errno != 0 || !end || *end != '\0' || argv[6][0] == '\0' || argv[6][0] == '-') {
            fprintf(stderr, "render_file: --seed wants a non-negative integer, got \"%s\"\n%s", argv[6], usage);
            return 2;
        }
        have_seed = 1;
    } else if (argc != 5) {
        fputs(usage, stderr);
        return 2;
    }
    const char *avatar = argv[1], *speech_path = argv[2], *video_path = argv[3], *wav_path = argv[4];
    int status = 1;
    int16_t *audio = NULL;
    int32_t nsamples = 0;
    struct render r;
    memset(&r, 0, sizeof r);
    r.video_path = video_path;

    audio = example_read_speech("render_file", speech_path, 0, " (or let `essence2 render` resample it)", &nsamples);
    if (!audio) goto done;
    int32_t rc = be_essence2_create(avatar, NULL, 0, &r.h);
    if (rc != 0) {
        report("be_essence2_create", rc);
        goto done;
    }
    if ((rc = be_essence2_set_pacing(r.h, BE_ESSENCE2_PACING_UNPACED)) != 0) {
        report("be_essence2_set_pacing", rc);
        goto done;
    }
    if (have_seed && (rc = be_essence2_set_seed(r.h, (uint64_t)seed)) != 0) {
        report("be_essence2_set_seed", rc);
        goto done;
    }
    if ((rc = be_essence2_get_info(r.h, &r.w, &r.ht)) != 0) {
        report("be_essence2_get_info", rc);
        goto done;
    }
    r.frame_bytes = r.w * r.ht * 3;
    r.frame = malloc((size_t)r.frame_bytes);
    r.planes = malloc((size_t)r.frame_bytes);
    if (!r.frame || !r.planes) {
        fprintf(stderr, "render_file: out of memory\n");
        goto done;
    }
    r.video = fopen(video_path, "wb");
    if (!r.video || fprintf(r.video, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C444\n", r.w, r.ht) < 0) {
        fprintf(stderr, "render_file: cannot write %s: %s\n", video_path, strerror(errno));
        goto done;
    }

    double start = now_s();
    /* all the speech, in all-or-nothing pushes of at most a ring's worth; a full ring (-2) is relieved by
       taking the frames rendered so far */
    int32_t pushed = 0;
    while (pushed < nsamples) {
        int32_t n = nsamples - pushed < BE_ESSENCE2_RING_SAMPLES ? nsamples - pushed : BE_ESSENCE2_RING_SAMPLES;
        rc = be_essence2_push_audio(r.h, audio + pushed, n);
        if (rc == 0) {
            pushed += n;
        } else if (rc == BE_ESSENCE2_ERR_FULL) {
            int t = take_frame(&r);
            if (t < 0) goto done;
            if (t == 0) sleep_ms(1);
        } else {
            report("be_essence2_push_audio", rc);
            goto done;
        }
    }
    if ((rc = be_essence2_end_utterance(r.h)) != 0) {
        report("be_essence2_end_utterance", rc);
        goto done;
    }
    /* the rest of the reply, until an idle frame follows its speech */
    double give_up = now_s() + 60.0 + nsamples / (double)BE_ESSENCE2_SAMPLE_RATE * 10.0;
    while (!r.ended) {
        int t = take_frame(&r);
        if (t < 0) goto done;
        if (t == 0) {
            if (now_s() > give_up) {
                fprintf(stderr, "render_file: the reply did not end (%ld frames so far)\n", r.frames);
                goto done;
            }
            sleep_ms(1);
        }
    }
    double took = now_s() - start;
    FILE *video = r.video;
    r.video = NULL;
    if (fclose(video) != 0) {
        fprintf(stderr, "render_file: cannot write %s: %s\n", video_path, strerror(errno));
        goto done;
    }
    if (write_wav(wav_path, audio, nsamples, r.frames) != 0) goto done;
    long expected_speech = ((long)nsamples + BE_ESSENCE2_SAMPLES_PER_FRAME - 1) / BE_ESSENCE2_SAMPLES_PER_FRAME;
    printf("render_file: %ld frames (%ld speech, %ld ramp, %ld idle; %ld lead-in idle frames not written), "
           "%ld samples, %.2f s of audio rendered in %.2f s (%.1f frames/s) -> %s, %s\n",
           r.frames, r.speech, r.ramp, r.idle, r.lead_in_skipped, r.frames * BE_ESSENCE2_SAMPLES_PER_FRAME,
           nsamples / (double)BE_ESSENCE2_SAMPLE_RATE, took, (r.frames + r.lead_in_skipped) / (took > 0 ? took : 1),
           video_path, wav_path);
    if (r.speech != expected_speech)
        fprintf(stderr, "render_file: warning: %ld speech frames for %d samples, expected %ld\n", r.speech, nsamples,
                expected_speech);
    status = 0;

done:
    if (r.video) fclose(r.video);
    if (r.h) {
        be_essence2_quiesce_all(1000); /* at process exit: stop the render thread and wait for it */
        be_essence2_destroy(r.h);
    }
    free(r.frame);
    free(r.planes);
    free(audio);
    return status;
}
