/*
 * live_player.c - the reference's minimal live loop with real sound: a window (SDL2) shows the avatar speaking
 * a file while the sound card plays it, each frame on its audio. The reply's sound starts on its first speech
 * frame; the audio callback counts the samples the card has taken, and that count, less the card's buffer, is
 * what the listener has heard. The loop reports it with be_essence2_set_playout_position, and the engine, in
 * audio-clock pacing (BE_ESSENCE2_PACING_AUDIO_CLOCK), hands out speech frame k once sample k*640 is heard and
 * skips only frames whose audio has wholly played: the face follows the sound card, not the wall clock, so a
 * card that runs slow (a busy machine, a virtual device) costs no frames, and no queue is kept here.
 *
 * Usage: live_player AVATAR.imx SPEECH.wav [--log FILE]
 *   SPEECH is 16 kHz mono (make one with `essence2 audio IN -o speech16k.wav`). --log writes a header line, then per
 *   speech frame shown its index, its audio time and the played position at that moment (seconds). Quits when the reply has
 *   ended, or on q, Esc or closing the window.
 * Build: cc -std=c11 -Iinclude examples/live_player.c -o live_player -Lbuild/lib -lessence2 \
 *          -Wl,-rpath,$PWD/build/lib $(pkg-config --cflags --libs sdl2 sndfile)
 * Exit status: 0 when the reply played to its end or the user quit, 1 on any failure (the reason on stderr).
 */
#define _POSIX_C_SOURCE 200809L

#include <SDL.h>
#include <errno.h>
#include <poll.h>
#include <sndfile.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "essence2.h"
#include "example_files.h"

/* The reply's sound and how far the card has taken it (written by the audio callback's thread). */
struct sound {
    const int16_t *samples;
    int32_t count;
    atomic_int_fast64_t taken; /* samples the callback has handed to the card; -1 before the sound starts */
};

static void audio_callback(void *userdata, Uint8 *stream, int length) {
    struct sound *s = userdata;
    int16_t *out = (int16_t *)stream;
    int n = length / 2;
    int64_t at = atomic_load(&s->taken);
    for (int i = 0; i < n; i++) out[i] = (at >= 0 && at + i < s->count) ? s->samples[at + i] : 0;
    if (at >= 0) atomic_store(&s->taken, at + n);
}

/* Samples of the reply the listener has heard: taken by the card, less what sits in its buffer. */
static int64_t played(struct sound *s, int buffer_frames) {
    int64_t taken = atomic_load(&s->taken);
    if (taken < 0) return -1;
    return taken > buffer_frames ? taken - buffer_frames : 0;
}

static void report(const char *what, int32_t code) {
    char reason[512] = "";
    be_essence2_last_error(reason, (int32_t)sizeof reason);
    fprintf(stderr, "live_player: %s failed (%d): %s\n", what, code, reason[0] ? reason : be_essence2_strerror(code));
}

int main(int argc, char **argv) {
    if (argc != 3 && !(argc == 5 && strcmp(argv[3], "--log") == 0)) {
        fprintf(stderr, "usage: live_player AVATAR.imx SPEECH.wav [--log FILE]\n"
                        "  shows the avatar speaking SPEECH (16 kHz mono) in a window while the sound card plays it.\n");
        return 2;
    }
    int status = 1;
    be_essence2_handle h = NULL;
    int16_t *audio = NULL;
    uint8_t *frame = NULL;
    FILE *log = NULL;
    SDL_Window *window = NULL;
    SDL_Renderer *renderer = NULL;
    SDL_Texture *texture = NULL;
    SDL_AudioDeviceID device = 0;
    struct sound sound = {NULL, 0, -1};
    int32_t nsamples = 0;

    if (!(audio = example_read_speech("live_player", argv[2], BE_ESSENCE2_RING_SAMPLES, "", &nsamples))) goto done;
    if (argc == 5 && (!(log = fopen(argv[4], "w")) || fputs("# index audio_time played_seconds (at display)\n", log) < 0)) {
        fprintf(stderr, "live_player: cannot write %s: %s\n", argv[4], strerror(errno));
        goto done;
    }
    int32_t rc = be_essence2_create(argv[1], NULL, 0, &h);
    if (rc != 0) {
        report("be_essence2_create", rc);
        goto done;
    }
    int32_t w = 0, ht = 0;
    if ((rc = be_essence2_get_info(h, &w, &ht)) != 0) {
        report("be_essence2_get_info", rc);
        goto done;
    }
    int32_t frame_bytes = w * ht * 3;
    if (!(frame = malloc((size_t)frame_bytes))) {
        fprintf(stderr, "live_player: out of memory\n");
        goto done;
    }
    if ((rc = be_essence2_set_pacing(h, BE_ESSENCE2_PACING_AUDIO_CLOCK)) != 0) {
        report("be_essence2_set_pacing", rc);
        goto done;
    }
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_AUDIO) != 0) {
        fprintf(stderr, "live_player: SDL_Init: %s (no display or sound device? try xvfb-run)\n", SDL_GetError());
        goto done;
    }
    window = SDL_CreateWindow("live_player", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, ht, SDL_WINDOW_RESIZABLE);
    renderer = window ? SDL_CreateRenderer(window, -1, 0) : NULL;
    texture = renderer ? SDL_CreateTexture(renderer, SDL_PIXELFORMAT_BGR24, SDL_TEXTUREACCESS_STREAMING, w, ht) : NULL;
    if (!texture) {
        fprintf(stderr, "live_player: cannot open a window: %s\n", SDL_GetError());
        goto done;
    }
    sound.samples = audio;
    sound.count = nsamples;
    SDL_AudioSpec want, have;
    SDL_zero(want);
    want.freq = BE_ESSENCE2_SAMPLE_RATE;
    want.format = AUDIO_S16SYS;
    want.channels = 1;
    want.samples = 256;
    want.callback = audio_callback;
    want.userdata = &sound;
    if (!(device = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0))) {
        fprintf(stderr, "live_player: cannot open a sound device: %s\n", SDL_GetError());
        goto done;
    }
    SDL_PauseAudioDevice(device, 0); /* the callback plays silence until the reply's sound starts */

    int fd = be_essence2_frame_fd(h);
    if (fd < 0) {
        report("be_essence2_frame_fd", fd);
        goto done;
    }
    if ((rc = be_essence2_push_audio(h, audio, nsamples)) != 0) {
        report("be_essence2_push_audio", rc);
        goto done;
    }
    if ((rc = be_essence2_end_utterance(h)) != 0) {
        report("be_essence2_end_utterance", rc);
        goto done;
    }
    int64_t ended = 0;
    for (;;) {
        SDL_Event event;
        while (SDL_PollEvent(&event)) {
            if (event.type == SDL_QUIT) goto quit;
            if (event.type == SDL_KEYDOWN && (event.key.keysym.sym == SDLK_q || event.key.keysym.sym == SDLK_ESCAPE)) goto quit;
        }
        /* the listener's position: speech frames are handed out on it */
        int64_t heard = played(&sound, have.samples);
        if (heard >= 0 && (rc = be_essence2_set_playout_position(h, heard)) != 0) {
            report("be_essence2_set_playout_position", rc);
            goto done;
        }
        int32_t got = be_essence2_pull_frame(h, frame, frame_bytes);
        if (got < 0) {
            report("be_essence2_pull_frame", got);
            goto done;
        }
        if (got > 0) {
            int32_t kind = be_essence2_last_frame_kind(h);
            int64_t index = be_essence2_last_frame_index(h);
            /* the reply's sound starts on its first speech frame */
            if (kind == BE_ESSENCE2_FRAME_SPEECH && atomic_load(&sound.taken) < 0) atomic_store(&sound.taken, 0);
            SDL_UpdateTexture(texture, NULL, frame, w * 3);
            SDL_RenderClear(renderer);
            SDL_RenderCopy(renderer, texture, NULL, NULL);
            SDL_RenderPresent(renderer);
            if (log && kind == BE_ESSENCE2_FRAME_SPEECH) {
                fprintf(log, "%lld %.3f %.4f\n", (long long)index, index * 0.04,
                        (double)played(&sound, have.samples) / BE_ESSENCE2_SAMPLE_RATE);
            }
            if ((rc = be_essence2_reply_counts(h, NULL, &ended)) != 0) {
                report("be_essence2_reply_counts", rc);
                goto done;
            }
            if (ended > 0 && kind == BE_ESSENCE2_FRAME_IDLE) break; /* the reply has ended and its frames are shown */
            continue;
        }
        /* wait for the next frame: a millisecond while the sound plays (speech frames fall due on it), else
           until the engine signals one */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, atomic_load(&sound.taken) >= 0 && ended == 0 ? 1 : 10) < 0 && errno != EINTR) {
            fprintf(stderr, "live_player: poll: %s\n", strerror(errno));
            goto done;
        }
    }
quit:
    status = 0;
    printf("live_player: reply shown, %lld frames skipped to stay on the sound\n", (long long)be_essence2_skipped_frames(h));
done:
    if (device) SDL_CloseAudioDevice(device);
    if (texture) SDL_DestroyTexture(texture);
    if (renderer) SDL_DestroyRenderer(renderer);
    if (window) SDL_DestroyWindow(window);
    SDL_Quit();
    if (log && fclose(log) != 0 && status == 0) {
        fprintf(stderr, "live_player: cannot write the log: %s\n", strerror(errno));
        status = 1;
    }
    free(frame);
    free(audio);
    if (h) be_essence2_destroy(h);
    return status;
}
