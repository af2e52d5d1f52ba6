/*
 * plugin_host.c - loading libessence2 at run time, as a plugin host (a DAW, a game engine, a browser
 * extension) does: dlopen the library, look up every function of essence2.h, run a short reply, shut the
 * engines down, dlclose; then do it all again, three times, to show the library survives being loaded and
 * unloaded repeatedly. Each round also checks that the loaded library is at least as new as the header this
 * host was compiled with (ESSENCE2_VERSION against be_essence2_version_number()).
 *
 * What dlclose does: libessence2 is linked with -z nodelete, so dlclose() never unmaps it and the next
 * dlopen() gets the same copy back (its Swift runtime and Dispatch threads cannot be torn down safely, and a
 * real unload would crash the host once an engine had run). A host therefore stops every engine with
 * be_essence2_quiesce_all() and destroys its handles before dlclose(), as run_reply() and main() do here.
 *
 * Usage: plugin_host [LIBRARY.so] [AVATAR.imx]
 *   LIBRARY defaults to "libessence2.so" (found by the dynamic loader's search path), AVATAR to
 *   avatars/grace-hopper.imx.
 * Build: cc -std=c11 -Iinclude examples/plugin_host.c -o plugin_host -ldl   (no link against the library)
 *
 * The function pointer types come from the header's own declarations (__typeof__), so they cannot drift
 * from the prototypes. The speech is synthesised here (vowel-like tone bursts), so no audio file is needed.
 * Exit status: 0 when every round worked, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "essence2.h"

/* Every function declared in essence2.h. */
#define ESSENCE2_FUNCTIONS(X)          \
    X(be_essence2_set_api_secret)      \
    X(be_essence2_set_service_url)     \
    X(be_essence2_last_refusal)        \
    X(be_essence2_last_error)          \
    X(be_essence2_create)              \
    X(be_essence2_download_avatar)     \
    X(be_essence2_avatar_kind)         \
    X(be_essence2_is_ready)            \
    X(be_essence2_destroy)             \
    X(be_essence2_quiesce_all)         \
    X(be_essence2_push_audio)          \
    X(be_essence2_feed_audio)          \
    X(be_essence2_feed_float)          \
    X(be_essence2_end_utterance)       \
    X(be_essence2_frames_available)    \
    X(be_essence2_pull_frame)          \
    X(be_essence2_take_frame)          \
    X(be_essence2_idle_frame)          \
    X(be_essence2_frame_fd)            \
    X(be_essence2_reply_counts)        \
    X(be_essence2_get_info)            \
    X(be_essence2_reset)               \
    X(be_essence2_last_frame_kind)     \
    X(be_essence2_set_mode)            \
    X(be_essence2_render_status)       \
    X(be_essence2_pulled_speech_frames) \
    X(be_essence2_pending_samples)     \
    X(be_essence2_set_playout_anchor)  \
    X(be_essence2_set_playout_position) \
    X(be_essence2_last_frame_index)    \
    X(be_essence2_skipped_frames)      \
    X(be_essence2_reanchor_slots)      \
    X(be_essence2_anchor_slots)        \
    X(be_essence2_set_pacing)          \
    X(be_essence2_set_seed)            \
    X(be_essence2_set_lipsync)         \
    X(be_essence2_version)             \
    X(be_essence2_version_number)      \
    X(be_essence2_strerror)

/* The table of entry points: one pointer per function, typed from its declaration. */
struct essence2_api {
#define FIELD(name) __typeof__(&name) name;
    ESSENCE2_FUNCTIONS(FIELD)
#undef FIELD
};

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

/* sin without libm (this program links only libdl), accurate to about 1e-6. */
static double sine(double x) {
    const double pi = 3.14159265358979323846;
    double turns = x / (2 * pi);
    long k = (long)turns;
    if (turns < 0 && (double)k != turns) k--;
    x -= (double)k * 2 * pi;
    if (x > pi) x -= 2 * pi;
    if (x > pi / 2) x = pi - x;
    if (x < -pi / 2) x = -pi - x;
    double x2 = x * x;
    return x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110)))));
}

/* Vowel-like bursts: a 120 Hz tone with a few harmonics, 200 ms on, 80 ms off. */
static void synth_bursts(int16_t *out, int32_t n) {
    const double pi = 3.14159265358979323846;
    for (int32_t i = 0; i < n; i++) {
        int32_t in_cycle = i % 4480; /* 280 ms */
        double env = 0;
        if (in_cycle < 3200) {     /* 200 ms of "vowel" with 20 ms ramps */
            env = 1;
            if (in_cycle < 320) env = in_cycle / 320.0;
            if (in_cycle > 2880) env = (3200 - in_cycle) / 320.0;
        }
        double t = i / 16000.0, s = 0;
        for (int h = 1; h <= 8; h++) s += sine(2 * pi * 120.0 * h * t) * (h == 6 ? 0.8 : 1.0 / h);
        out[i] = (int16_t)(env * s * 6000.0);
    }
}

/* Looks up every function; returns the number missing (each named on stderr). */
static int resolve(void *lib, struct essence2_api *api) {
    int missing = 0;
    memset(api, 0, sizeof *api);
#define LOOKUP(name)                                                                    \
    do {                                                                                \
        void *p = dlsym(lib, #name);                                                    \
        if (!p) {                                                                       \
            fprintf(stderr, "plugin_host: missing symbol %s\n", #name);                 \
            missing++;                                                                  \
        }                                                                               \
        /* POSIX: a data pointer from dlsym converts to a function pointer this way */ \
        memcpy(&api->name, &p, sizeof p);                                               \
    } while (0);
    ESSENCE2_FUNCTIONS(LOOKUP)
#undef LOOKUP
    return missing;
}

static void report(const struct essence2_api *api, const char *what, int32_t code) {
    char reason[512] = "";
    api->be_essence2_last_error(reason, (int32_t)sizeof reason);
    /* The reason says exactly what went wrong; strerror only the code's general meaning. */
    fprintf(stderr, "plugin_host: %s failed (%d): %s\n", what, code,
            reason[0] ? reason : api->be_essence2_strerror(code));
}

/* One short unpaced reply on a fresh engine; returns 0 when its frames came out as they should. */
static int run_reply(const struct essence2_api *api, const char *avatar, const int16_t *audio, int32_t n) {
    be_essence2_handle h = NULL;
    uint8_t *frame = NULL;
    int status = 1;
    int32_t rc = api->be_essence2_create(avatar, NULL, 0, &h);
    if (rc != 0) {
        report(api, "be_essence2_create", rc);
        return 1;
    }
    int32_t w = 0, ht = 0;
    if ((rc = api->be_essence2_set_pacing(h, BE_ESSENCE2_PACING_UNPACED)) != 0) {
        report(api, "be_essence2_set_pacing", rc);
        goto done;
    }
    if ((rc = api->be_essence2_get_info(h, &w, &ht)) != 0) {
        report(api, "be_essence2_get_info", rc);
        goto done;
    }
    int32_t bytes = w * ht * 3;
    frame = malloc((size_t)bytes);
    if (!frame) {
        fprintf(stderr, "plugin_host: out of memory\n");
        goto done;
    }
    if ((rc = api->be_essence2_push_audio(h, audio, n)) != 0) {
        report(api, "be_essence2_push_audio", rc);
        goto done;
    }
    if ((rc = api->be_essence2_end_utterance(h)) != 0) {
        report(api, "be_essence2_end_utterance", rc);
        goto done;
    }
    long frames = 0, speech = 0, ramp = 0;
    double give_up = now_s() + 30.0;
    for (;;) {
        int32_t got = api->be_essence2_pull_frame(h, frame, bytes);
        if (got < 0) {
            report(api, "be_essence2_pull_frame", got);
            goto done;
        }
        if (got > 0) {
            if (got != bytes) {
                fprintf(stderr, "plugin_host: pull_frame returned %d bytes, a frame has %d\n", got, bytes);
                goto done;
            }
            frames++;
            int32_t kind = api->be_essence2_last_frame_kind(h);
            if (kind == BE_ESSENCE2_FRAME_SPEECH) speech++;
            if (kind == BE_ESSENCE2_FRAME_RAMP) ramp++;
            if (speech > 0 && kind == BE_ESSENCE2_FRAME_IDLE) break;
        } else {
            if (now_s() > give_up) {
                fprintf(stderr, "plugin_host: the reply did not end within 30 s (%ld frames)\n", frames);
                goto done;
            }
            sleep_ms(1);
        }
    }
    long want = (n + BE_ESSENCE2_SAMPLES_PER_FRAME - 1) / BE_ESSENCE2_SAMPLES_PER_FRAME;
    printf("plugin_host:   %ld frames (%ld speech, %ld ramp), %dx%d\n", frames, speech, ramp, w, ht);
    if (speech != want) {
        fprintf(stderr, "plugin_host: expected %ld speech frames for %d samples, got %ld\n", want, n, speech);
        goto done;
    }
    status = 0;
done:
    rc = api->be_essence2_destroy(h);
    if (rc != 0) {
        report(api, "be_essence2_destroy", rc);
        status = 1;
    }
    free(frame);
    return status;
}

int main(int argc, char **argv) {
    if (argc > 3 || (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
        fprintf(stderr, "usage: plugin_host [LIBRARY.so] [AVATAR.imx]\n"
                        "  loads the library with dlopen three times, running one short reply each time.\n");
        return 2;
    }
    const char *lib_path = argc > 1 ? argv[1] : "libessence2.so";
    const char *avatar = argc > 2 ? argv[2] : "avatars/grace-hopper.imx";
    const int32_t n = 16000 + 123; /* 1 s and a bit: the last frame is partial */
    int16_t *audio = malloc((size_t)n * sizeof *audio);
    if (!audio) {
        fprintf(stderr, "plugin_host: out of memory\n");
        return 1;
    }
    synth_bursts(audio, n);
    int status = 0;
    for (int round = 1; round <= 3 && status == 0; round++) {
        void *lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "plugin_host: dlopen(%s) failed: %s\n", lib_path, dlerror());
            status = 1;
            break;
        }
        struct essence2_api api;
        int missing = resolve(lib, &api);
        if (missing > 0) {
            fprintf(stderr, "plugin_host: %s lacks %d of the functions declared in essence2.h\n", lib_path, missing);
            status = 1;
        } else {
            printf("plugin_host: round %d: loaded %s, libessence2 %s, all %zu functions found\n", round, lib_path,
                   api.be_essence2_version(), sizeof api / sizeof(void (*)(void)));
            if (api.be_essence2_version_number() < ESSENCE2_VERSION) {
                fprintf(stderr, "plugin_host: %s is version %s, older than the header this host was built with "
                                "(%d.%d.%d): install a newer libessence2\n", lib_path, api.be_essence2_version(),
                        ESSENCE2_VERSION_MAJOR, ESSENCE2_VERSION_MINOR, ESSENCE2_VERSION_PATCH);
                status = 1;
            } else {
                status = run_reply(&api, avatar, audio, n);
            }
            /* before unloading: stop every engine and wait for the background threads */
            int32_t stopped = api.be_essence2_quiesce_all(2000);
            if (stopped < 0) {
                fprintf(stderr, "plugin_host: be_essence2_quiesce_all returned %d\n", stopped);
                status = 1;
            }
        }
        if (dlclose(lib) != 0) {
            fprintf(stderr, "plugin_host: dlclose failed: %s\n", dlerror());
            status = 1;
        }
    }
    free(audio);
    if (status == 0) printf("plugin_host: 3 rounds of dlopen, reply, quiesce, dlclose: ok\n");
    return status;
}
