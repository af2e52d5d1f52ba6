/*
 * test_threads.c - ABI tests of threads and lifecycle: pushers and observers sharing a handle, random calls
 * from two threads, create/destroy cycles and memory, quiesce_all.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_support.h"
#include "speech_synth.h"
#include "tests.h"

struct pusher_ctx {
    be_essence2_handle h;
    const int16_t *audio;
    int chunks;
    int id;
    atomic_llong *pushed;
    atomic_int *errors;
};

static void *pusher_main(void *arg) {
    struct pusher_ctx *c = arg;
    for (int j = 0; j < c->chunks; j++) {
        int32_t count = SPF * (1 + (c->id + j) % 4);
        for (;;) {
            int32_t rc = be_essence2_push_audio(c->h, c->audio + SPF * ((c->id * 7 + j) % 20), count);
            if (rc == 0) break;
            if (rc != -2) {
                atomic_fetch_add(c->errors, 1);
                return NULL;
            }
            sleep_ms(1);
        }
        atomic_fetch_add(c->pushed, count);
        if (j % 5 == 0) sleep_ms(1);
    }
    return NULL;
}

struct observer_ctx {
    be_essence2_handle h;
    atomic_int *stop;
    atomic_int *errors;
};

static void *observer_main(void *arg) {
    struct observer_ctx *c = arg;
    while (!atomic_load(c->stop)) {
        int32_t w, ht;
        int bad = 0;
        bad |= be_essence2_frames_available(c->h) < 0;
        int32_t k = be_essence2_last_frame_kind(c->h);
        bad |= k < -1 || k > 2;
        bad |= be_essence2_get_info(c->h, &w, &ht) != 0;
        bad |= be_essence2_pulled_speech_frames(c->h) < 0;
        bad |= be_essence2_skipped_frames(c->h) < 0;
        bad |= be_essence2_render_status(c->h, NULL, 0, NULL) != 0;
        bad |= be_essence2_last_frame_index(c->h) < -1;
        int32_t r = be_essence2_is_ready(c->h);
        bad |= r != 0 && r != 1;
        if (bad) atomic_fetch_add(c->errors, 1);
        sleep_ms(0.2);
    }
    return NULL;
}

void test_four_pushers_and_one_puller_share_a_handle(void) {
    enum { PUSHERS = 4, ROUNDS = 3, CHUNKS = 12 };
    struct fixture f = {0};
    int16_t *audio = synth_speech_alloc(SPF * 24, 17);
    REQUIRE(audio, "out of memory");
    for (int round = 0; round < ROUNDS; round++) {
        FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 0);
        atomic_llong pushed = 0;
        atomic_int errors = 0, stop = 0, obs_errors = 0;
        long long expect_total = 0; /* every pusher's total is known in advance */
        for (int i = 0; i < PUSHERS; i++)
            for (int j = 0; j < CHUNKS; j++) expect_total += SPF * (1 + (i + j) % 4);
        struct pusher_ctx ctx[PUSHERS];
        pthread_t threads[PUSHERS], observer;
        struct observer_ctx oc = {f.h, &stop, &obs_errors};
        int observer_started = pthread_create(&observer, NULL, observer_main, &oc) == 0;
        int started = 0;
        for (int i = 0; i < PUSHERS; i++) {
            ctx[i] = (struct pusher_ctx){f.h, audio, CHUNKS, i, &pushed, &errors};
            if (pthread_create(&threads[i], NULL, pusher_main, &ctx[i]) == 0) started++;
        }
        CHECK_EQ("pusher threads started", started, PUSHERS);
        /* the puller: this thread; failed pulls are counted, and the counts go on after end_utterance */
        struct puller p = {.f = &f, .pause_ms = 0.5, .flags = PULL_COUNT_ERRORS};
        double deadline = now_s() + 30;
        int joined = 0;
        while (!joined && now_s() < deadline) {
            (void)pull_step_at(__FILE__, __LINE__, &p);
            if (atomic_load(&pushed) == expect_total || atomic_load(&errors) > 0) joined = 1;
        }
        for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
        CHECK_EQ("push errors (other than -2)", atomic_load(&errors), 0);
        CHECK_EQ("end_utterance", be_essence2_end_utterance(f.h), 0);
        p.flags |= PULL_UNTIL_IDLE;
        (void)pull_loop_at(__FILE__, __LINE__, &p, 30);
        atomic_store(&stop, 1);
        if (observer_started) pthread_join(observer, NULL);
        long long total = atomic_load(&pushed);
        CHECK(p.stopped, "round %d: no IDLE frame after the speech within 30 s", round);
        CHECK_EQ("pull errors", p.errors, 0);
        CHECK_EQ("observer errors (a status call out of range)", atomic_load(&obs_errors), 0);
        /* every push was a whole number of frames, so the frames add up exactly however they interleaved */
        CHECK_EQ("speech frames pulled == pushed samples / 640", p.speech, total / SPF);
        CHECK_EQ("pulled_speech_frames == pushed samples / 640", be_essence2_pulled_speech_frames(f.h), total / SPF);
        if (round == 0) NOTE("round 0: %lld samples from %d threads, %d frames pulled", total, PUSHERS, p.frames);
        CHECK_EQ("destroy", be_essence2_destroy(f.h), 0);
        f.h = NULL;
        fixture_close(&f);
    }
done:
    fixture_close(&f);
    free(audio);
}

/* Random calls with random arguments on one handle (and on NULL and a garbage handle), from two threads. */
struct chaos_ctx {
    be_essence2_handle h;
    uint32_t seed;
    int32_t bytes;
    atomic_int *bad; /* results outside the documented set */
};

static uint32_t chaos_next(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void *chaos_main(void *arg) {
    struct chaos_ctx *c = arg;
    uint32_t s = c->seed;
    int32_t cap = c->bytes + 64;
    uint8_t *frame = malloc((size_t)cap);
    int16_t *audio = synth_speech_alloc(4 * SPF, c->seed);
    if (!frame || !audio) {
        atomic_fetch_add(c->bad, 1);
        free(frame);
        free(audio);
        return NULL;
    }
    be_essence2_handle garbage = (be_essence2_handle)(uintptr_t)0x10;
    for (int i = 0; i < 30000; i++) {
        uint32_t r = chaos_next(&s);
        be_essence2_handle h = (r % 50 == 0) ? NULL : (r % 50 == 1) ? garbage : c->h;
        int valid = (h == c->h);
        int32_t rc = 0;
        int ok = 1;
        switch (chaos_next(&s) % 14) {
        case 0: {
            int32_t n = (int32_t)(chaos_next(&s) % (4 * SPF + 1)) - (int32_t)(chaos_next(&s) % 3 == 0 ? 100 : 0);
            rc = be_essence2_push_audio(h, chaos_next(&s) % 20 == 0 ? NULL : audio, n);
            ok = rc == 0 || rc == -1 || rc == -2;
            break;
        }
        case 1: {
            int32_t want = (int32_t)(chaos_next(&s) % (uint32_t)cap) - 8;
            rc = be_essence2_pull_frame(h, chaos_next(&s) % 20 == 0 ? NULL : frame, want);
            ok = rc == -1 || rc == 0 || (rc > 0 && rc <= want);
            break;
        }
        case 2: {
            rc = be_essence2_idle_frame(h, frame, cap);
            ok = rc == -1 || rc >= 0;
            break;
        }
        case 3: rc = be_essence2_end_utterance(h); ok = rc == 0 || (!valid && rc == -1); break;
        case 4: rc = be_essence2_reset(h); ok = rc == 0 || (!valid && rc == -1); break;
        case 5: {
            int32_t mode = (int32_t)(chaos_next(&s) % 4) - 1;
            rc = be_essence2_set_mode(h, mode);
            ok = rc == 0 || rc == -1 || rc == -2;
            break;
        }
        case 6: rc = be_essence2_frames_available(h); ok = rc >= 0 || (!valid && rc == -1); break;
        case 7: {
            int64_t pos = (int64_t)chaos_next(&s) - (1 << 22);
            rc = be_essence2_set_playout_position(h, pos);
            ok = rc == 0 || rc == -1;
            break;
        }
        case 8: rc = be_essence2_set_playout_anchor(h, (int32_t)(chaos_next(&s) % 3)); ok = rc == 0 || rc == -1; break;
        case 9: {
            int32_t w = 0, ht = 0;
            rc = be_essence2_get_info(h, &w, &ht);
            ok = (rc == 0 && w > 0 && ht > 0) || (!valid && rc == -1);
            break;
        }
        case 10: rc = be_essence2_last_frame_kind(h); ok = rc >= -1 && rc <= 2; break;
        case 11: {
            char reason[32];
            int64_t failures = 0;
            rc = be_essence2_render_status(h, reason, (int32_t)sizeof reason, &failures);
            ok = rc == 0 || (!valid && rc == BE_ESSENCE2_ERR_STATUS_ARGUMENT);
            break;
        }
        case 12: ok = be_essence2_skipped_frames(h) >= -1 && be_essence2_last_frame_index(h) >= -1; break;
        default: {
            int32_t pacing = (int32_t)(chaos_next(&s) % 3);
            rc = be_essence2_set_pacing(h, pacing);
            ok = rc == 0 || rc == -1 || rc == -2;
            break;
        }
        }
        if (!ok) atomic_fetch_add(c->bad, 1);
    }
    free(frame);
    free(audio);
    return NULL;
}

void test_random_calls_from_two_threads_get_documented_results(void) {
    struct fixture f = {0};
    atomic_int bad = 0;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 0);
    /* frames can be up to the larger of the two modes */
    int32_t w = 0, ht = 0;
    CHECK_EQ("set_mode(HEAD)", be_essence2_set_mode(f.h, BE_ESSENCE2_MODE_HEAD), 0);
    CHECK_EQ("get_info", be_essence2_get_info(f.h, &w, &ht), 0);
    CHECK_EQ("set_mode(FULL)", be_essence2_set_mode(f.h, BE_ESSENCE2_MODE_FULL), 0);
    int32_t biggest = f.bytes > w * ht * 3 ? f.bytes : w * ht * 3;
    struct chaos_ctx ctx[2] = {{f.h, 12345u, biggest, &bad}, {f.h, 777u, biggest, &bad}};
    pthread_t threads[2];
    int started = 0;
    for (int i = 0; i < 2; i++)
        if (pthread_create(&threads[i], NULL, chaos_main, &ctx[i]) == 0) started++;
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    CHECK_EQ("chaos threads started", started, 2);
    CHECK_EQ("results outside the documented set", atomic_load(&bad), 0);
    /* the engine still works afterwards: a clean reply in unpaced pacing */
    CHECK_EQ("reset", be_essence2_reset(f.h), 0);
    CHECK_EQ("set_pacing(UNPACED)", be_essence2_set_pacing(f.h, BE_ESSENCE2_PACING_UNPACED), 0);
    CHECK_EQ("set_mode(FULL)", be_essence2_set_mode(f.h, BE_ESSENCE2_MODE_FULL), 0);
    int32_t got = 0;
    for (int i = 0; i < 200 && got <= 0; i++) got = fixture_pull(&f, 0.05);
    CHECK(got == f.bytes, "after the random calls: expected a frame of %d bytes, got %d", f.bytes, got);
done:
    fixture_close(&f);
}

/* VmRSS of this process in KiB, or -1. */
static long rss_kib(void) {
    FILE *fp = fopen("/proc/self/status", "r");
    if (!fp) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, fp))
        if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    fclose(fp);
    return kib;
}

void test_create_destroy_cycles_do_not_grow_memory(void) {
    enum { CYCLES = 40 };
    uint8_t *frame = NULL;
    int16_t *audio = synth_speech_alloc(8 * SPF, 5);
    long after10 = -1, after_all = -1;
    REQUIRE(audio, "out of memory");
    for (int i = 0; i < CYCLES; i++) {
        be_essence2_handle h = NULL;
        int32_t w = 0, ht = 0;
        REQUIRE(be_essence2_create(g_avatar, NULL, 0, &h) == 0, "create: %s", last_error_text());
        CHECK_EQ("set_pacing", be_essence2_set_pacing(h, BE_ESSENCE2_PACING_UNPACED), 0);
        CHECK_EQ("get_info", be_essence2_get_info(h, &w, &ht), 0);
        if (!frame) frame = malloc((size_t)w * ht * 3);
        REQUIRE(frame, "out of memory");
        CHECK_EQ("push", be_essence2_push_audio(h, audio, 8 * SPF), 0);
        CHECK_EQ("end_utterance", be_essence2_end_utterance(h), 0);
        int speech = 0;
        for (double dl = now_s() + 10; speech < 8 && now_s() < dl;) {
            int32_t got = pull_wait(h, frame, w * ht * 3, 1.0);
            if (got > 0 && be_essence2_last_frame_kind(h) == KIND_SPEECH) speech++;
        }
        CHECK_EQ("speech frames of a cycle", speech, 8);
        CHECK_EQ("destroy", be_essence2_destroy(h), 0);
        sleep_ms(15); /* the render thread exits by itself */
        if (i == 9) after10 = rss_kib();
    }
    after_all = rss_kib();
    NOTE("VmRSS after 10 cycles %ld KiB, after %d cycles %ld KiB", after10, CYCLES, after_all);
#if defined(__SANITIZE_ADDRESS__)
    NOTE("AddressSanitizer build: its quarantine holds freed memory, so the growth is not checked here");
#else
    /* one engine at 512x600 holds several MiB of frames; 30 leaked engines would add far more than 16 MiB */
    CHECK(after10 > 0 && after_all - after10 < 16 * 1024,
          "memory grew by %ld KiB over %d create/destroy cycles", after_all - after10, CYCLES - 10);
#endif
done:
    free(frame);
    free(audio);
}

void test_quiesce_all_stops_eight_live_engines(void) {
    enum { N = 8 };
    be_essence2_handle hs[N] = {0};
    int32_t w = 0, ht = 0;
    uint8_t *frame = NULL;
    (void)be_essence2_quiesce_all(1000); /* nothing should be live in this fresh process; be sure */
    for (int i = 0; i < N; i++) {
        hs[i] = open_engine(i % 2 ? BE_ESSENCE2_PACING_UNPACED : BE_ESSENCE2_PACING_REALTIME, &w, &ht);
        REQUIRE(hs[i] != NULL, "engine %d", i);
    }
    int32_t bytes = w * ht * 3;
    frame = malloc((size_t)bytes);
    REQUIRE(frame, "out of memory");
    for (int i = 0; i < N; i++) REQUIRE(pull_wait(hs[i], frame, bytes, 10.0) == bytes, "engine %d gave no frame", i);
    int16_t audio[SPF * 10];
    synth_speech(audio, SPF * 10, 9, 12000.0);
    CHECK_EQ("push_audio before quiesce", be_essence2_push_audio(hs[1], audio, SPF * 10), 0);
    double t0 = now_s();
    int32_t stopped = be_essence2_quiesce_all(3000);
    double took = now_s() - t0;
    NOTE("quiesce_all took %.3f s", took);
    CHECK_EQ("quiesce_all over 8 live engines", stopped, N);
    CHECK(took < 3.5, "quiesce_all(3000) must wait at most 3 s, took %.3f s", took);
    double end = now_s() + 0.3;
    int frames = 0, bad = 0;
    while (now_s() < end) {
        for (int i = 0; i < N; i++) {
            int32_t a = be_essence2_pull_frame(hs[i], frame, bytes), b = be_essence2_idle_frame(hs[i], frame, bytes);
            if (a > 0 || b > 0) frames++;
            if (a < 0 || b < 0) bad++;
            if (be_essence2_frames_available(hs[i]) != 0) bad++;
        }
        sleep_ms(5);
    }
    CHECK_EQ("frames handed out by stopped engines", frames, 0);
    CHECK_EQ("errors from stopped engines (pull/idle < 0, frames_available != 0)", bad, 0);
    CHECK_EQ("quiesce_all again (nothing live)", be_essence2_quiesce_all(100), 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ("destroy after quiesce", be_essence2_destroy(hs[i]), 0);
        hs[i] = NULL;
    }
    CHECK_EQ("quiesce_all after destroying them", be_essence2_quiesce_all(0), 0);
    /* new engines after a quiesce work */
    be_essence2_handle h = open_engine(BE_ESSENCE2_PACING_UNPACED, &w, &ht);
    if (h) {
        CHECK_EQ("a new engine after quiesce_all gives frames", pull_wait(h, frame, bytes, 10.0), bytes);
        be_essence2_destroy(h);
    }
done:
    for (int i = 0; i < N; i++)
        if (hs[i]) be_essence2_destroy(hs[i]);
    free(frame);
}
