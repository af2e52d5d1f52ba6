/*
 * test_expression2.c - ABI tests of include/expression2.h (1.4): a character avatar through be_expression2_*:
 * its frames (416x720, 20 a second, 800 samples each: the record's audio times 0, 0.05, ... and its own
 * samples equal to what was pushed), the refusals on both sides (a photoreal avatar to be_expression2_create,
 * a character to be_essence2_create, each family's handle to the other's take_frame), a shared engine
 * container and its staging directory, and bad arguments.
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "abi_support.h"
#include "expression2.h"
#include "speech_synth.h"
#include "tests.h"

_Static_assert(sizeof(be_expression2_frame_info) == 1664, "be_expression2_frame_info is 1664 bytes in 1.4");
_Static_assert(offsetof(be_expression2_frame_info, audio) == offsetof(be_essence2_frame_info, audio),
               "the two records share their fields' offsets");

/* The sample character, beside the photoreal test avatar. */
static const char *character_avatar(void) { return "avatars/squirrel.imx"; }

static int32_t take_wait2(be_expression2_handle h, uint8_t *pixels, int32_t bytes, be_expression2_frame_info *info,
                          double timeout_s) {
    for (double waited = 0; waited < timeout_s; waited += 0.001) {
        info->size = sizeof *info;
        int32_t got = be_expression2_take_frame(h, pixels, bytes, info);
        if (got != 0) return got;
        sleep_ms(1);
    }
    return 0;
}

void test_expression2_character_frames_and_records(void) {
    be_expression2_handle h = NULL;
    uint8_t *pixels = NULL;
    int16_t *speech = NULL;
    int32_t rc = be_expression2_create(character_avatar(), NULL, NULL, &h);
    REQUIRE(rc == 0 && h != NULL, "be_expression2_create(%s): %d (%s)", character_avatar(), rc, last_error_text());
    int32_t w = 0, ht = 0;
    CHECK_EQ("get_info", be_expression2_get_info(h, &w, &ht), 0);
    CHECK(w == BE_EXPRESSION2_WIDTH && ht == BE_EXPRESSION2_HEIGHT, "frame size %dx%d, expected 416x720", w, ht);
    CHECK_EQ("set_pacing(unpaced)", be_expression2_set_pacing(h, BE_ESSENCE2_PACING_UNPACED), 0);
    CHECK_EQ("set_seed", be_expression2_set_seed(h, 42), 0);
    int32_t bytes = w * ht * 3;
    pixels = malloc((size_t)bytes);
    const int32_t n = 16000; /* one second: 20 frames */
    speech = synth_speech_alloc(n, 3);
    REQUIRE(pixels && speech, "out of memory");
    CHECK_EQ("push_audio", be_expression2_push_audio(h, speech, n), 0);
    CHECK_EQ("end_utterance", be_expression2_end_utterance(h), 0);
    be_expression2_frame_info info;
    int speech_frames = 0, ends = 0, exact_audio = 1, times_ok = 1;
    for (int i = 0; i < 200; i++) {
        int32_t got = take_wait2(h, pixels, bytes, &info, 10);
        REQUIRE(got == bytes, "take_frame: %d (%s)", got, last_error_text());
        if (info.ends_reply) ends++;
        if (info.kind == BE_ESSENCE2_FRAME_SPEECH) {
            if (info.audio_samples != BE_EXPRESSION2_SAMPLES_PER_FRAME ||
                memcmp(info.audio, speech + (size_t)speech_frames * 800, 800 * sizeof(int16_t)) != 0)
                exact_audio = 0;
            if (!info.has_audio_time || info.audio_time < speech_frames * 0.05 - 1e-9 ||
                info.audio_time > speech_frames * 0.05 + 1e-9)
                times_ok = 0;
            speech_frames++;
        }
        if (info.kind == BE_ESSENCE2_FRAME_IDLE && speech_frames > 0) break;
    }
    CHECK_EQ("speech frames for one second", speech_frames, 20);
    CHECK(exact_audio, "every speech frame carries its own 800 samples");
    CHECK(times_ok, "audio times 0, 0.05, 0.10, ...");
    CHECK_EQ("ends_reply once", ends, 1);
    int64_t started = -1, ended = -1;
    CHECK_EQ("reply_counts", be_expression2_reply_counts(h, &started, &ended), 0);
    CHECK(started == 1 && ended == 1, "one reply started and ended: %lld, %lld", (long long)started, (long long)ended);
    /* This handle's frames have 800 samples: the Essence 2 record (640) is refused, with a reason. */
    be_essence2_frame_info small = {.size = sizeof small};
    CHECK_EQ("be_essence2_take_frame(an Expression 2 handle)",
             be_essence2_take_frame((be_essence2_handle)h, pixels, bytes, &small), -1);
    CHECK(strstr(last_error_text(), "be_expression2_take_frame") != NULL, "reason: %s", last_error_text());
done:
    CHECK_EQ("destroy", be_expression2_destroy(h), 0);
    free(pixels);
    free(speech);
}

void test_expression2_refuses_the_other_kind_and_bad_arguments(void) {
    be_expression2_handle h = (be_expression2_handle)(uintptr_t)1;
    CHECK_EQ("be_expression2_create(photoreal)", be_expression2_create(g_avatar, NULL, NULL, &h), -2);
    CHECK(h == NULL, "out is set to NULL on failure");
    CHECK(strstr(last_error_text(), "be_essence2_create") != NULL, "the reason names be_essence2_create: %s",
          last_error_text());
    be_essence2_handle e = NULL;
    CHECK_EQ("be_essence2_create(character)", be_essence2_create(character_avatar(), NULL, 0, &e), -2);
    CHECK(strstr(last_error_text(), "be_expression2_create") != NULL, "the reason names be_expression2_create: %s",
          last_error_text());
    CHECK_EQ("create(NULL path)", be_expression2_create(NULL, NULL, NULL, &h), -1);
    CHECK_EQ("create(NULL out)", be_expression2_create(character_avatar(), NULL, NULL, NULL), -1);
    CHECK_EQ("create(missing file)", be_expression2_create("/nonexistent.imx", NULL, NULL, &h), -2);
    CHECK_EQ("create(missing engine container)",
             be_expression2_create(character_avatar(), "/nonexistent.engine", NULL, &h), -2);
    CHECK_EQ("create(an avatar as engine container)",
             be_expression2_create(character_avatar(), character_avatar(), NULL, &h), -2);
    CHECK(strstr(last_error_text(), "essence2 engine export") != NULL && strstr(last_error_text(), "avatarContainer") == NULL,
          "the reason says what an engine container is, in no one language's names: %s", last_error_text());
    CHECK_EQ("destroy(an unknown handle)", be_expression2_destroy((be_expression2_handle)(uintptr_t)0x5A5A), -1);
    CHECK(strstr(last_error_text(), "be_expression2_create") != NULL, "the reason names be_expression2_create: %s",
          last_error_text());
    CHECK_EQ("NULL handle: take_frame", be_expression2_take_frame(NULL, NULL, 0, NULL), -1);
    CHECK_EQ("NULL handle: push_audio", be_expression2_push_audio(NULL, NULL, 0), -1);
    CHECK_EQ("NULL handle: pending_samples", (int32_t)be_expression2_pending_samples(NULL), -1);
    CHECK_EQ("NULL handle: destroy is a no-op", be_expression2_destroy(NULL), 0);
    /* An Essence 2 handle given to an Expression 2 call is refused, not used. */
    int32_t rc = be_essence2_create(g_avatar, NULL, 0, &e);
    REQUIRE(rc == 0, "be_essence2_create(%s): %s", g_avatar, last_error_text());
    CHECK_EQ("be_expression2_get_info(an Essence 2 handle)",
             be_expression2_get_info((be_expression2_handle)e, &rc, &rc), -1);
    CHECK_EQ("be_expression2_destroy(an Essence 2 handle)", be_expression2_destroy((be_expression2_handle)e), -1);
    /* A short record is refused. */
    be_expression2_handle c = NULL;
    rc = be_expression2_create(character_avatar(), NULL, NULL, &c);
    REQUIRE(rc == 0, "be_expression2_create: %s", last_error_text());
    uint8_t pixel[4];
    be_expression2_frame_info info = {.size = (uint32_t)offsetof(be_expression2_frame_info, audio) + 1600 - 2};
    CHECK_EQ("take_frame(info->size short)", be_expression2_take_frame(c, pixel, sizeof pixel, &info), -1);
    CHECK_EQ("take_frame(capacity short)", be_expression2_take_frame(c, pixel, sizeof pixel, &(be_expression2_frame_info){.size = sizeof info}), -1);
    CHECK_EQ("set_mode(7)", be_expression2_set_mode(c, 7), -2);
    CHECK_EQ("feed_audio(rate 12)", be_expression2_feed_audio(c, (const int16_t *)pixel, 1, 12), -1);
    CHECK_EQ("destroy", be_expression2_destroy(c), 0);
    CHECK_EQ("destroyed handle: push_audio", be_expression2_push_audio(c, NULL, 0), -1);
done:
    be_essence2_destroy(e);
}

void test_expression2_engine_container_and_staging(void) {
    char dir[] = "/tmp/essence2-expression2-XXXXXX";
    char container[128], staged[160], cmd[512];
    be_expression2_handle h = NULL;
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(container, sizeof container, "%s/shared.engine", dir);
    snprintf(cmd, sizeof cmd, "build/essence2 engine export -o '%s' > /dev/null", container);
    REQUIRE(system(cmd) == 0, "essence2 engine export");
    snprintf(staged, sizeof staged, "%s/staging", dir);
    int32_t rc = be_expression2_create(character_avatar(), container, staged, &h);
    REQUIRE(rc == 0, "create with a shared engine container: %d (%s)", rc, last_error_text());
    be_expression2_destroy(h);
    h = NULL;
    char weights[256];
    snprintf(weights, sizeof weights, "%s/engine/lipsync.e2nw", staged);
    struct stat st;
    CHECK(stat(weights, &st) == 0 && st.st_size > 1000, "the checked weights are staged at %s", weights);
    /* A damaged container is refused (-2) when nothing is staged for it. */
    FILE *f = fopen(container, "r+b");
    REQUIRE(f != NULL, "open %s", container);
    fseek(f, -20, SEEK_END);
    fputc(0x5A, f);
    fclose(f);
    rc = be_expression2_create(character_avatar(), container, NULL, &h);
    CHECK_EQ("create with a damaged container", rc, -2);
    CHECK(strstr(last_error_text(), "checksum") != NULL, "the reason says checksum: %s", last_error_text());
done:
    if (h) be_expression2_destroy(h);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* Destroy stops the work: a 2048x2880 character with large eyes (E2_LARGE_CHARACTER, made by run.sh with the
 * command) rendering unpaced is destroyed mid-frame; in the half second after destroy returns the process uses
 * almost no CPU (the render thread leaves its frame at the next band, of at most 65,536 pixels, and exits; before, it went on for
 * minutes). */
void test_expression2_destroy_stops_the_work(void) {
    const char *path = getenv("E2_LARGE_CHARACTER");
    be_expression2_handle h = NULL;
    int16_t *speech = NULL;
    REQUIRE(path != NULL, "E2_LARGE_CHARACTER is not set (integration/c/run.sh makes the large character)");
    int32_t rc = be_expression2_create(path, NULL, NULL, &h);
    REQUIRE(rc == 0 && h != NULL, "be_expression2_create(%s): %d (%s)", path, rc, last_error_text());
    CHECK_EQ("set_pacing(unpaced)", be_expression2_set_pacing(h, BE_ESSENCE2_PACING_UNPACED), 0);
    const int32_t n = 32000;
    speech = synth_speech_alloc(n, 5);
    REQUIRE(speech != NULL, "out of memory");
    CHECK_EQ("push_audio", be_expression2_push_audio(h, speech, n), 0);
    CHECK_EQ("end_utterance", be_expression2_end_utterance(h), 0);
    sleep_ms(600); /* the render thread is drawing */
    CHECK_EQ("destroy", be_expression2_destroy(h), 0);
    h = NULL;
    struct timespec before, after;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &before);
    sleep_ms(500);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &after);
    double used = (double)(after.tv_sec - before.tv_sec) + (double)(after.tv_nsec - before.tv_nsec) / 1e9;
    NOTE("%.3f s of CPU in the 0.5 s after destroy returned", used);
    CHECK(used < 0.1, "%.3f s of CPU in the 0.5 s after destroy returned (the render thread goes on)", used);
done:
    free(speech);
    if (h) be_expression2_destroy(h);
}

/* The handle rule of expression2.h (Handles) and essence2.h (Expression 2 handles), call by call: every
 * be_essence2_* function that takes a handle accepts an Expression 2 handle and acts on that engine at 20 frames
 * a second and 800 samples a frame (success, the reason cleared), except be_essence2_take_frame(), which refuses
 * it with a reason naming be_expression2_take_frame(). The GStreamer element and the Python package rely on it. */
#define ACCEPTS(what, call, ok)                                                                                \
    do {                                                                                                       \
        (void)be_essence2_reset(NULL); /* sets a reason, so that clearing it shows */                          \
        long long r = (long long)(call);                                                                       \
        CHECK(ok, "%s on an Expression 2 handle: %lld (%s)", (what), r, last_error_text());                    \
        CHECK(last_error_text()[0] == '\0', "%s on an Expression 2 handle leaves a reason: %s", (what),        \
              last_error_text());                                                                              \
    } while (0)

void test_essence2_calls_take_an_expression2_handle_except_take_frame(void) {
    be_expression2_handle x = NULL;
    uint8_t *pixels = NULL;
    int16_t *speech = NULL;
    float *floats = NULL;
    int32_t rc = be_expression2_create(character_avatar(), NULL, NULL, &x);
    REQUIRE(rc == 0 && x != NULL, "be_expression2_create(%s): %d (%s)", character_avatar(), rc, last_error_text());
    be_essence2_handle e = (be_essence2_handle)x;
    int32_t w = 0, ht = 0;
    char status[128];
    int64_t failures = -1, started = -1, ended = -1;
    ACCEPTS("be_essence2_set_pacing(unpaced)", be_essence2_set_pacing(e, BE_ESSENCE2_PACING_UNPACED), r == 0);
    ACCEPTS("be_essence2_set_seed", be_essence2_set_seed(e, 5), r == 0);
    ACCEPTS("be_essence2_set_lipsync", be_essence2_set_lipsync(e, BE_ESSENCE2_LIPSYNC_LEARNED), r == 0);
    ACCEPTS("be_essence2_set_mode(full)", be_essence2_set_mode(e, BE_ESSENCE2_MODE_FULL), r == 0);
    ACCEPTS("be_essence2_set_playout_anchor", be_essence2_set_playout_anchor(e, 0), r == 0);
    ACCEPTS("be_essence2_get_info", be_essence2_get_info(e, &w, &ht), r == 0);
    REQUIRE(w == BE_EXPRESSION2_WIDTH && ht == BE_EXPRESSION2_HEIGHT, "frame size %dx%d, expected 416x720", w, ht);
    ACCEPTS("be_essence2_is_ready", be_essence2_is_ready(e), r == 0 || r == 1);
    ACCEPTS("be_essence2_frame_fd", be_essence2_frame_fd(e), r >= 0);
    ACCEPTS("be_essence2_render_status", be_essence2_render_status(e, status, (int32_t)sizeof status, &failures),
            r == 0 && failures == 0);
    ACCEPTS("be_essence2_last_frame_kind (no frame yet)", be_essence2_last_frame_kind(e), r == -1);
    int32_t bytes = w * ht * 3;
    const int32_t n = 16000; /* one second: 20 frames of 800 samples */
    pixels = malloc((size_t)bytes);
    speech = synth_speech_alloc(n, 11);
    floats = malloc(4000 * sizeof *floats);
    REQUIRE(pixels && speech && floats, "out of memory");
    for (int i = 0; i < 4000; i++) floats[i] = (float)speech[12000 + i] / 32768.0f;
    ACCEPTS("be_essence2_push_audio", be_essence2_push_audio(e, speech, 8000), r == 0);
    ACCEPTS("be_essence2_feed_audio", be_essence2_feed_audio(e, speech + 8000, 4000, 16000), r == 0);
    ACCEPTS("be_essence2_feed_float", be_essence2_feed_float(e, floats, 4000, 16000), r == 0);
    ACCEPTS("be_essence2_pending_samples", be_essence2_pending_samples(e), r >= 0 && r <= 8000);
    ACCEPTS("be_essence2_end_utterance", be_essence2_end_utterance(e), r == 0);
    int speech_frames = 0, wrong_size = 0;
    double give_up = 30.0;
    for (double waited = 0; waited < give_up; waited += 0.001) {
        ACCEPTS("be_essence2_frames_available", be_essence2_frames_available(e), r >= 0);
        int32_t got = be_essence2_pull_frame(e, pixels, bytes);
        REQUIRE(got >= 0, "be_essence2_pull_frame on an Expression 2 handle: %d (%s)", got, last_error_text());
        if (got == 0) {
            sleep_ms(1);
            continue;
        }
        if (got != bytes) wrong_size++;
        if (be_essence2_last_frame_kind(e) == BE_ESSENCE2_FRAME_SPEECH) speech_frames++;
        REQUIRE(be_essence2_reply_counts(e, &started, &ended) == 0, "be_essence2_reply_counts: %s", last_error_text());
        if (ended >= 1) break;
    }
    CHECK(started == 1 && ended == 1, "one reply started and ended: %lld, %lld", (long long)started, (long long)ended);
    CHECK_EQ("pull_frame bytes != 416*720*3", wrong_size, 0);
    CHECK_EQ("speech frames for one second at 800 samples a frame", speech_frames, 20);
    ACCEPTS("be_essence2_pulled_speech_frames", be_essence2_pulled_speech_frames(e), r == 20);
    ACCEPTS("be_essence2_reply_counts", be_essence2_reply_counts(e, NULL, NULL), r == 0);
    ACCEPTS("be_essence2_last_frame_kind", be_essence2_last_frame_kind(e), r == BE_ESSENCE2_FRAME_IDLE);
    ACCEPTS("be_essence2_last_frame_index", be_essence2_last_frame_index(e), r == -1);
    ACCEPTS("be_essence2_skipped_frames", be_essence2_skipped_frames(e), r == 0);
    ACCEPTS("be_essence2_reanchor_slots", be_essence2_reanchor_slots(e), r >= 0);
    ACCEPTS("be_essence2_anchor_slots", be_essence2_anchor_slots(e), r == 0);
    ACCEPTS("be_essence2_set_playout_position", be_essence2_set_playout_position(e, 0), r == 0);
    int32_t idle = 0;
    for (double waited = 0; waited < 10 && idle == 0; waited += 0.001) {
        idle = be_essence2_idle_frame(e, pixels, bytes);
        if (idle == 0) sleep_ms(1);
    }
    CHECK(idle == bytes && last_error_text()[0] == '\0', "be_essence2_idle_frame on an Expression 2 handle: %d (%s)",
          idle, last_error_text());
    ACCEPTS("be_essence2_reset", be_essence2_reset(e), r == 0);
    /* The one exception: the Essence 2 record holds 640 samples, an Expression 2 frame 800. */
    be_essence2_frame_info info = {.size = sizeof info};
    CHECK_EQ("be_essence2_take_frame(an Expression 2 handle)", be_essence2_take_frame(e, pixels, bytes, &info), -1);
    CHECK(strstr(last_error_text(), "be_expression2_take_frame") != NULL, "the reason names be_expression2_take_frame: %s",
          last_error_text());
    ACCEPTS("be_essence2_destroy", be_essence2_destroy(e), r == 0);
    CHECK_EQ("be_expression2_push_audio after be_essence2_destroy", be_expression2_push_audio(x, NULL, 0), -1);
    x = NULL;
done:
    if (x) be_expression2_destroy(x);
    free(pixels);
    free(speech);
    free(floats);
}

/* The other way: every be_expression2_* function that takes a handle refuses an Essence 2 handle (-1; 0 from
 * is_ready), with a reason that says so, read by either family's last_error; the engine is left as it was. */
#define REFUSES(what, call, want)                                                                              \
    do {                                                                                                       \
        CHECK_EQ(what, (call), want);                                                                          \
        CHECK(strstr(last_error_text(), "Essence 2 handle") != NULL, "%s: the reason says Essence 2 handle: %s", \
              (what), last_error_text());                                                                      \
    } while (0)

void test_expression2_calls_refuse_an_essence2_handle_with_a_reason(void) {
    be_essence2_handle e = NULL;
    int32_t rc = be_essence2_create(g_avatar, NULL, 0, &e);
    REQUIRE(rc == 0 && e != NULL, "be_essence2_create(%s): %d (%s)", g_avatar, rc, last_error_text());
    be_expression2_handle x = (be_expression2_handle)e;
    int16_t samples[800] = {0};
    float floats[800] = {0};
    uint8_t pixels[16];
    int32_t w = 0, ht = 0;
    int64_t started = 0, ended = 0;
    be_expression2_frame_info info = {.size = sizeof info};
    REFUSES("be_expression2_is_ready", be_expression2_is_ready(x), 0);
    REFUSES("be_expression2_push_audio", be_expression2_push_audio(x, samples, 800), -1);
    REFUSES("be_expression2_feed_audio", be_expression2_feed_audio(x, samples, 800, 16000), -1);
    REFUSES("be_expression2_feed_float", be_expression2_feed_float(x, floats, 800, 16000), -1);
    REFUSES("be_expression2_pending_samples", be_expression2_pending_samples(x), -1);
    REFUSES("be_expression2_end_utterance", be_expression2_end_utterance(x), -1);
    REFUSES("be_expression2_reset", be_expression2_reset(x), -1);
    REFUSES("be_expression2_frames_available", be_expression2_frames_available(x), -1);
    REFUSES("be_expression2_take_frame", be_expression2_take_frame(x, pixels, sizeof pixels, &info), -1);
    REFUSES("be_expression2_pull_frame", be_expression2_pull_frame(x, pixels, sizeof pixels), -1);
    REFUSES("be_expression2_idle_frame", be_expression2_idle_frame(x, pixels, sizeof pixels), -1);
    REFUSES("be_expression2_frame_fd", be_expression2_frame_fd(x), -1);
    REFUSES("be_expression2_get_info", be_expression2_get_info(x, &w, &ht), -1);
    REFUSES("be_expression2_set_mode", be_expression2_set_mode(x, BE_ESSENCE2_MODE_FULL), -1);
    REFUSES("be_expression2_set_pacing", be_expression2_set_pacing(x, BE_ESSENCE2_PACING_UNPACED), -1);
    REFUSES("be_expression2_set_playout_position", be_expression2_set_playout_position(x, 0), -1);
    REFUSES("be_expression2_set_seed", be_expression2_set_seed(x, 1), -1);
    REFUSES("be_expression2_skipped_frames", be_expression2_skipped_frames(x), -1);
    REFUSES("be_expression2_reply_counts", be_expression2_reply_counts(x, &started, &ended), -1);
    REFUSES("be_expression2_destroy", be_expression2_destroy(x), -1);
    /* One reason per thread, read by both families. */
    char a[256] = "", b[256] = "";
    CHECK(be_expression2_last_error(a, (int32_t)sizeof a) > 0 && be_essence2_last_error(b, (int32_t)sizeof b) > 0 &&
              strcmp(a, b) == 0,
          "be_expression2_last_error and be_essence2_last_error read the same reason: '%s' / '%s'", a, b);
    /* Nothing happened to the engine: no audio queued, its pacing and size unchanged, still alive. */
    CHECK_EQ("be_essence2_pending_samples", be_essence2_pending_samples(e), 0);
    CHECK_EQ("be_essence2_get_info", be_essence2_get_info(e, &w, &ht), 0);
    CHECK(w > 0 && ht > 0 && w != BE_EXPRESSION2_WIDTH, "the Essence 2 frame size %dx%d", w, ht);
    CHECK_EQ("be_essence2_destroy after the refused be_expression2_destroy", be_essence2_destroy(e), 0);
    e = NULL;
done:
    if (e) be_essence2_destroy(e);
}
