/*
 * test_replies.c - ABI tests of audio, frames and replies: the ring, frame counts and kinds, reset,
 * end_utterance, realtime pacing and stalls, skipped frames, the playout position and anchor, set_mode
 * during a reply, independent engines.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_support.h"
#include "speech_synth.h"
#include "tests.h"

void test_ring_full_returns_minus2_and_queues_nothing(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, RING, 7);

    /* nobody pulls: the render queue fills, then the ring */
    int64_t accepted = 0;
    int full = 0;
    const int32_t chunk = 16000;
    for (int i = 0; i < 100 && !full; i++) {
        int32_t rc = be_essence2_push_audio(f.h, f.audio + (accepted % (RING - chunk)), chunk);
        if (rc == 0)
            accepted += chunk;
        else if (rc == BE_ESSENCE2_ERR_FULL)
            full = 1;
        else
            REQUIRE(0, "push_audio(16000): expected 0 or -2, got %d", rc);
    }
    NOTE("the ring refused after %.1f s of audio were queued", accepted / 16000.0);
    REQUIRE(full, "push_audio never returned -2 after 100 s of audio with nobody pulling");
    CHECK(accepted >= 160000, "the ring holds at least 10 s: expected >= 160000 samples queued, got %lld",
          (long long)accepted);
    int32_t rc = be_essence2_push_audio(f.h, f.audio, RING);
    CHECK_EQ("push_audio(a whole ring) into a full ring", rc, -2);
    if (rc == 0) accepted += RING;
    rc = be_essence2_push_audio(f.h, f.audio, chunk);
    CHECK(rc == -2 || rc == 0, "push_audio(16000) again: expected -2 (or 0 if the renderer made room), got %d", rc);
    if (rc == 0) accepted += chunk;

    /* all-or-nothing: the refused pushes added no sample, so the reply has exactly ceil(accepted/640) frames */
    REQUIRE(drive_reply(&f, NULL, 0, 1, NULL, NULL, 60.0), "reply did not end");
    CHECK_EQ("speech frames of the accepted audio", f.log->speech, frames_for(accepted));
    CHECK_EQ("pulled_speech_frames", be_essence2_pulled_speech_frames(f.h), frames_for(accepted));
    CHECK_SHAPE(f.log);
    NOTE("%d speech frames rendered unpaced in %.2f s (%.1f frames/s)", f.log->speech, f.log->seconds,
         f.log->n / (f.log->seconds > 0 ? f.log->seconds : 1));
done:
    fixture_close(&f);
}

struct index_check {
    int64_t next_speech;
    int bad;
    int64_t first_bad_got, first_bad_want;
    be_essence2_handle h;
};

static void on_frame_index(void *ctx, const uint8_t *frame, int32_t bytes, int32_t kind) {
    (void)frame;
    (void)bytes;
    struct index_check *c = ctx;
    int64_t idx = be_essence2_last_frame_index(c->h);
    int64_t want = kind == KIND_SPEECH ? c->next_speech : (kind == KIND_IDLE ? -1 : -2);
    if (kind == KIND_SPEECH) c->next_speech++;
    if ((want == -2 && idx < 0) || (want != -2 && idx != want)) {
        if (!c->bad) {
            c->first_bad_got = idx;
            c->first_bad_want = want;
        }
        c->bad++;
    }
}

void test_unpaced_speech_frames_equal_ceil_samples_over_640(void) {
    static const int32_t lengths[] = {6400, 6401, 6399, 640, 1, 639, 12345, 50017, 3 * 16000 + 17};
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 4 * 16000, 11);
    int64_t total_speech = 0;
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        int32_t n = lengths[i];
        struct index_check ic = {0, 0, 0, 0, f.h};
        if (!drive_reply(&f, f.audio, n, 1, on_frame_index, &ic, 20.0)) continue;
        char label[64];
        snprintf(label, sizeof label, "speech frames for %d samples", n);
        CHECK_EQ(label, f.log->speech, frames_for(n));
        CHECK_SHAPE(f.log);
        CHECK(ic.bad == 0, "%d samples: last_frame_index: %d frames wrong, first expected %lld, got %lld "
              "(speech frames count 0.., ramp frames >= 0, idle -1)", n, ic.bad, (long long)ic.first_bad_want,
              (long long)ic.first_bad_got);
        total_speech += f.log->speech;
    }
    CHECK_EQ("pulled_speech_frames over all replies", be_essence2_pulled_speech_frames(f.h), total_speech);
    CHECK_EQ("skipped_frames (unpaced)", be_essence2_skipped_frames(f.h), 0);
done:
    fixture_close(&f);
}

/* Counts (in the int at p->ctx) the frames other than SPEECH that follow a SPEECH frame. */
static int count_non_speech_after_speech(struct puller *p, int32_t kind) {
    if (kind != KIND_SPEECH && p->speech > 0) ++*(int *)p->ctx;
    return 0;
}

void test_unpaced_first_speech_frame_needs_at_most_0_2_s_of_audio(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 16000, 91);
    /* 0.2 s of audio, no end_utterance: some speech must come out now (well before the 0.6 s rule) */
    REQUIRE(be_essence2_push_audio(f.h, f.audio, 3200) == 0, "push 0.2 s");
    int other = 0;
    struct puller p = {.f = &f, .pause_ms = 1, .on_frame = count_non_speech_after_speech, .ctx = &other};
    PULL_LOOP(&p, 0.3);
    int speech = p.speech;
    NOTE("0.2 s of audio pushed: %d speech frames within 0.3 s", speech);
    CHECK(speech >= 1, "0.2 s of audio pushed: expected a speech frame at once, got none within 0.3 s");
    CHECK(speech <= 5, "0.2 s of audio (5 frames) pushed: got %d speech frames (unpaced invents no audio)", speech);
    CHECK_EQ("non-speech frames in the middle of a reply (unpaced)", other, 0);
    /* the rest of the second, then end: 25 in all */
    REQUIRE(drive_reply(&f, f.audio + 3200, 16000 - 3200, 1, NULL, NULL, 20.0), "reply");
    CHECK_EQ("speech frames of 1 s pushed in two parts", speech + f.log->speech, 25);
done:
    fixture_close(&f);
}

void test_reply_kinds_read_idle_speech_ramp_idle(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 2 * 16000, 5);
    /* show a few idle frames first, as a host does between replies */
    for (int i = 0; i < 5; i++) REQUIRE(fixture_pull(&f, 10.0) == f.bytes, "no idle frame");
    CHECK_EQ("kind between replies", be_essence2_last_frame_kind(f.h), KIND_IDLE);
    REQUIRE(drive_reply(&f, f.audio, 2 * 16000, 1, NULL, NULL, 20.0), "reply did not end");
    CHECK_SHAPE(f.log);
    CHECK_EQ("speech frames of 2 s", f.log->speech, 50);
    char seq[256];
    kinds_text(f.log, seq, sizeof seq);
    NOTE("kinds: %s", seq);
    /* the next frames are idle, and a second reply has the same shape */
    for (int i = 0; i < 5; i++) {
        REQUIRE(fixture_pull(&f, 5.0) == f.bytes, "no idle frame after the reply");
        CHECK_EQ("kind after the reply", be_essence2_last_frame_kind(f.h), KIND_IDLE);
    }
    REQUIRE(drive_reply(&f, f.audio, 16000, 1, NULL, NULL, 20.0), "second reply did not end");
    CHECK_SHAPE(f.log);
    CHECK_EQ("speech frames of 1 s", f.log->speech, 25);
    /* idle_frame during a reply hands out an idle frame, and the reply goes on */
    REQUIRE(be_essence2_push_audio(f.h, f.audio, 16000) == 0, "push");
    int32_t got = 0;
    double dl = now_s() + 5;
    while ((got = be_essence2_idle_frame(f.h, f.frame, f.bytes)) == 0 && now_s() < dl) sleep_ms(1);
    CHECK_EQ("idle_frame during a reply", got, f.bytes);
    CHECK_EQ("kind after idle_frame during a reply", be_essence2_last_frame_kind(f.h), KIND_IDLE);
    REQUIRE(drive_reply(&f, NULL, 0, 1, NULL, NULL, 20.0), "third reply did not end");
    CHECK_EQ("speech frames of the third reply (idle_frame takes none of them)", f.log->speech, 25);
done:
    fixture_close(&f);
}

/* Copies each SPEECH frame to the buffer at p->ctx: it holds the last one shown. */
static int keep_last_speech_frame(struct puller *p, int32_t kind) {
    if (kind == KIND_SPEECH) memcpy(p->ctx, p->f->frame, (size_t)p->f->bytes);
    return 0;
}

/* Logs each frame in the fixture's log, copies the first one to the buffer at p->ctx; stops at an IDLE frame. */
static int log_frames_until_idle(struct puller *p, int32_t kind) {
    struct fixture *f = p->f;
    (void)log_frame(f->h, f->log, f->frame, p->got, f->bytes, NULL, NULL);
    if (p->frames == 1) memcpy(p->ctx, f->frame, (size_t)f->bytes);
    return kind == KIND_IDLE;
}

void test_reset_mid_reply_ramps_from_the_last_frame_shown(void) {
    struct fixture f;
    uint8_t *last = NULL, *first_after = NULL;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 0);
    last = malloc((size_t)f.bytes);
    first_after = malloc((size_t)f.bytes);
    const int32_t n = 4 * 16000;
    f.audio = malloc((size_t)n * sizeof *f.audio);
    REQUIRE(last && first_after && f.audio, "out of memory");
    /* speech, then from 0.8 s on a long open /a/: the mouth is open wide when the reset comes */
    synth_speech(f.audio, 12800, 3, 12000.0);
    synth_open_vowel(f.audio + 12800, n - 12800, 14000.0);
    REQUIRE(fixture_ready(&f, 10.0), "not ready");
    REQUIRE(be_essence2_push_audio(f.h, f.audio, n) == 0, "push_audio(4 s)");
    struct puller before = {.f = &f, .pause_ms = 1, .on_frame = keep_last_speech_frame, .ctx = last};
    double dl = now_s() + 20;
    while (before.speech < 40 && now_s() < dl) PULL_STEP(&before);
    REQUIRE(before.speech == 40, "only %d speech frames within 20 s", before.speech);
    int64_t pulled_before = be_essence2_pulled_speech_frames(f.h);
    CHECK_EQ("reset mid-reply", be_essence2_reset(f.h), 0);

    /* after the reset: no more speech of that reply; RAMP frames, then IDLE */
    memset(f.log, 0, sizeof *f.log);
    struct puller after = {.f = &f, .pause_ms = 1, .on_frame = log_frames_until_idle, .ctx = first_after,
                           .what = "pull_frame after reset"};
    PULL_LOOP(&after, 10.0);
    REQUIRE(after.stopped, "no IDLE frame within 10 s after reset");
    char seq[256];
    kinds_text(f.log, seq, sizeof seq);
    NOTE("after reset: %s", seq);
    CHECK(f.log->speech == 0, "after reset: expected no SPEECH frame of the dropped reply, got %d (%s)", f.log->speech,
          seq);
    CHECK(f.log->ramp >= 1 && f.log->kinds[0] == KIND_RAMP, "after reset: expected RAMP+ IDLE, got %s", seq);
    CHECK_EQ("pulled_speech_frames after reset", be_essence2_pulled_speech_frames(f.h), pulled_before);

    /* the picture continues from the last frame shown: the first frame after the reset is much closer to it
       than the rest pose reached at the end of the ramp is */
    double step = max_block_diff(last, first_after, f.w, f.ht);
    double to_rest = max_block_diff(last, f.frame, f.w, f.ht);
    NOTE("block change: last speech -> first after reset %.1f, last speech -> rest %.1f", step, to_rest);
    CHECK(to_rest >= 6.0, "the mouth barely moved during an open vowel (change to rest %.1f); the reset test cannot "
          "tell a jump from a ramp", to_rest);
    CHECK(step <= 0.6 * to_rest, "reset jumps: first frame after reset differs by %.1f, the rest pose by %.1f "
          "(expected at most 60%%)", step, to_rest);

    /* the engine goes on: a new reply works normally */
    REQUIRE(drive_reply(&f, f.audio, 16000, 1, NULL, NULL, 20.0), "reply after reset did not end");
    CHECK_EQ("speech frames of a reply after reset", f.log->speech, 25);
    CHECK_SHAPE(f.log);
done:
    fixture_close(&f);
    free(last);
    free(first_after);
}

void test_reset_while_idle_does_nothing(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 0);
    REQUIRE(fixture_pull(&f, 10.0) == f.bytes, "no frame");
    CHECK_EQ("reset while idle", be_essence2_reset(f.h), 0);
    CHECK_EQ("end_utterance while idle", be_essence2_end_utterance(f.h), 0);
    for (int i = 0; i < 25; i++) {
        REQUIRE(fixture_pull(&f, 5.0) == f.bytes, "no frame after reset while idle");
        CHECK_EQ("kind after reset while idle", be_essence2_last_frame_kind(f.h), KIND_IDLE);
    }
done:
    fixture_close(&f);
}

/* Realtime: n samples of f->audio pushed in 20 ms chunks paced like a live source; returns when an IDLE frame
   follows the speech. Times are relative to the last push. */
struct live_result {
    double first_speech_after_first_push; /* latency of the reply's first speech frame */
    double end_after_last_push; /* first non-speech frame after the speech */
    double idle_after_last_push;
    int speech;
    int ok;
    int64_t skipped, reanchored; /* the engine's counters during this reply */
};

static struct live_result live_reply(struct fixture *f, int32_t n, int end_utterance) {
    be_essence2_handle h = f->h;
    const int16_t *audio = f->audio;
    uint8_t *frame = f->frame;
    int32_t bytes = f->bytes;
    struct live_result r = {0, 0, 0, 0, 0, 0, 0};
    int64_t skipped0 = be_essence2_skipped_frames(h), reanchored0 = be_essence2_reanchor_slots(h);
    const int32_t chunk = 320;
    int32_t chunks = (n + chunk - 1) / chunk, next = 0;
    double t0 = now_s(), t_last = 0, deadline = t0 + n / 16000.0 + 8.0;
    int saw_speech = 0, ended = 0;
    while (now_s() < deadline) {
        double t = now_s();
        if (next < chunks && t >= t0 + next * 0.020) {
            int32_t count = (next + 1) * chunk <= n ? chunk : n - next * chunk;
            int32_t rc = be_essence2_push_audio(h, audio + next * chunk, count);
            if (rc == 0) {
                next++;
                if (next == chunks) {
                    t_last = now_s();
                    if (end_utterance) be_essence2_end_utterance(h);
                }
            } else if (rc != -2) {
                harness_report(__FILE__, __LINE__, "push_audio: %d", rc);
                return r;
            }
        }
        int32_t got = be_essence2_pull_frame(h, frame, bytes);
        if (got < 0) {
            harness_report(__FILE__, __LINE__, "pull_frame: %d", got);
            return r;
        }
        if (got > 0) {
            int32_t kind = be_essence2_last_frame_kind(h);
            if (kind == KIND_SPEECH) {
                if (!saw_speech) r.first_speech_after_first_push = now_s() - t0;
                saw_speech = 1;
                r.speech++;
            } else if (saw_speech && !ended && next == chunks) {
                ended = 1;
                r.end_after_last_push = now_s() - t_last;
            }
            if (saw_speech && kind == KIND_IDLE && next == chunks) {
                r.idle_after_last_push = now_s() - t_last;
                r.ok = 1;
                r.skipped = be_essence2_skipped_frames(h) - skipped0;
                r.reanchored = be_essence2_reanchor_slots(h) - reanchored0;
                return r;
            }
        }
        sleep_ms(5);
    }
    harness_report(__FILE__, __LINE__, "no IDLE after the live reply's speech within %.0f s", deadline - t0);
    return r;
}

void test_end_utterance_ends_at_once_silence_ends_after_0_6_s(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 16000, 21);
    REQUIRE(fixture_ready(&f, 10.0), "not ready");

    struct live_result without = live_reply(&f, 16000, 0);
    REQUIRE(without.ok, "reply without end_utterance did not end");
    struct live_result with = live_reply(&f, 16000, 1);
    REQUIRE(with.ok, "reply with end_utterance did not end");
    NOTE("without end_utterance: speech frames %d, reply ended %.3f s after the last audio (idle at %.3f s), "
         "skipped %lld, re-anchored slots %lld", without.speech, without.end_after_last_push,
         without.idle_after_last_push, (long long)without.skipped, (long long)without.reanchored);
    NOTE("with end_utterance:    speech frames %d, reply ended %.3f s after the last audio (idle at %.3f s), "
         "skipped %lld, re-anchored slots %lld", with.speech, with.end_after_last_push, with.idle_after_last_push,
         (long long)with.skipped, (long long)with.reanchored);
    NOTE("first speech frame %.3f s and %.3f s after the first audio", without.first_speech_after_first_push,
         with.first_speech_after_first_push);
    CHECK(without.first_speech_after_first_push <= 0.25 && with.first_speech_after_first_push <= 0.25,
          "realtime: expected the first speech frame at most ~0.2 s after the audio starts arriving, got %.3f s and "
          "%.3f s", without.first_speech_after_first_push, with.first_speech_after_first_push);
    CHECK(without.end_after_last_push >= 0.45 && without.end_after_last_push <= 1.1,
          "without end_utterance: expected the reply to end ~0.6 s after the last audio (0.45..1.1 s), got %.3f s",
          without.end_after_last_push);
    CHECK(with.end_after_last_push <= 0.40,
          "with end_utterance: expected the reply to end at once (<= 0.40 s after the last audio, the look-ahead "
          "latency), got %.3f s", with.end_after_last_push);
    CHECK(without.end_after_last_push - with.end_after_last_push >= 0.35,
          "end_utterance should save about 0.6 s: %.3f s without vs %.3f s with", without.end_after_last_push,
          with.end_after_last_push);
    /* Frames skipped to stay on the voice (a stalled machine) count: 1 s of audio is ~25 reply frames. */
    CHECK(with.speech + with.skipped >= 20 && with.speech + with.skipped <= 30,
          "with end_utterance: expected ~25 speech frames (shown + skipped) for 1 s, got %d + %lld", with.speech,
          (long long)with.skipped);
done:
    fixture_close(&f);
}

void test_realtime_tight_loop_gets_at_most_25_frames_a_second(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 0, 0);
    REQUIRE(fixture_ready(&f, 10.0), "not ready");
    /* pull_frame only, spinning for 2 s */
    struct puller spin = {.f = &f};
    PULL_LOOP(&spin, 2.0);
    int frames = spin.frames;
    NOTE("tight loop on pull_frame: %d frames in 2 s", frames);
    CHECK(frames <= 51, "tight loop, pull_frame, 2 s: expected at most 51 frames, got %d", frames);
    CHECK(frames >= 20, "tight loop, pull_frame, 2 s: expected frames to keep coming (>= 20), got %d", frames);
    /* pull_frame and idle_frame in turn: they share the 25 a second */
    frames = 0;
    double t0 = now_s();
    for (int i = 0; now_s() - t0 < 1.0; i++) {
        int32_t got = (i & 1) ? be_essence2_idle_frame(f.h, f.frame, f.bytes)
                              : be_essence2_pull_frame(f.h, f.frame, f.bytes);
        REQUIRE(got >= 0, "pull: %d", got);
        if (got > 0) frames++;
    }
    NOTE("tight loop on pull_frame + idle_frame: %d frames in 1 s", frames);
    CHECK(frames <= 26, "tight loop, pull_frame + idle_frame, 1 s: expected at most 26 frames, got %d", frames);
    /* frames_available never announces a frame that is not due */
    int lies = 0, checks = 0;
    t0 = now_s();
    while (now_s() - t0 < 0.5) {
        int32_t a = be_essence2_frames_available(f.h);
        CHECK(a >= 0, "frames_available: %d", a);
        if (a == 0) {
            checks++;
            if (be_essence2_pull_frame(f.h, f.frame, f.bytes) > 0) lies++;
        } else {
            CHECK(be_essence2_pull_frame(f.h, f.frame, f.bytes) >= 0, "pull_frame failed");
        }
    }
    NOTE("frames_available said 0 %d times, and a frame came anyway %d times (a frame may fall due in between)",
         checks, lies);
    CHECK(lies <= 13, "frames_available said 0 but pull_frame returned a frame %d times in 0.5 s", lies);
done:
    fixture_close(&f);
}

void test_realtime_caller_sleeping_40ms_gets_a_frame_each_call(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 0, 0);
    REQUIRE(fixture_ready(&f, 10.0), "not ready");
    sleep_ms(40);
    int frames = 0;
    for (int i = 0; i < 25; i++) {
        int32_t got = be_essence2_pull_frame(f.h, f.frame, f.bytes);
        REQUIRE(got >= 0, "pull_frame: %d", got);
        if (got > 0) frames++;
        sleep_ms(40);
    }
    NOTE("%d frames in 25 calls 40 ms apart", frames);
    CHECK(frames >= 23, "a caller sleeping 40 ms: expected a frame on (nearly) every call, got %d of 25", frames);
done:
    fixture_close(&f);
}

/* Stops at the first RAMP frame after the speech. */
static int stop_at_ramp_after_speech(struct puller *p, int32_t kind) {
    return kind == KIND_RAMP && p->speech > 0;
}

void test_ramp_straight_into_new_speech_is_two_replies(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 16000, 31);
    REQUIRE(be_essence2_push_audio(f.h, f.audio, 16000) == 0, "push 1");
    CHECK_EQ("end_utterance", be_essence2_end_utterance(f.h), 0);
    /* take the first reply up to its first RAMP frame, then the next reply's audio arrives */
    struct puller first = {.f = &f, .pause_ms = 1, .on_frame = stop_at_ramp_after_speech};
    PULL_LOOP(&first, 10.0);
    REQUIRE(first.stopped, "no RAMP frame after the first reply's speech");
    CHECK_EQ("speech frames of the first reply", first.speech, 25);
    int64_t ramp_index = be_essence2_last_frame_index(f.h);
    CHECK_EQ("index of the first ramp frame (continues after the speech)", ramp_index, 25);
    /* the second reply: speech again, its frame indices start at 0 */
    struct index_check ic = {0, 0, 0, 0, f.h};
    REQUIRE(drive_reply(&f, f.audio, 16000, 1, on_frame_index, &ic, 20.0), "second reply");
    char seq[256];
    kinds_text(f.log, seq, sizeof seq);
    NOTE("after the first RAMP frame: %s", seq);
    CHECK_EQ("speech frames of the second reply", f.log->speech, 25);
    CHECK(f.log->n == 0 || f.log->kinds[0] != KIND_IDLE,
          "a ramp straight into speech: expected no idle frame between the replies, got %s", seq);
    CHECK(ic.bad == 0, "second reply: %d frame indices wrong (first expected %lld, got %lld): speech indices "
          "restart at 0 in a new reply", ic.bad, (long long)ic.first_bad_want, (long long)ic.first_bad_got);
    CHECK_EQ("pulled_speech_frames", be_essence2_pulled_speech_frames(f.h), 50);
done:
    fixture_close(&f);
}

struct mode_switch {
    int32_t hw, hh; /* the HEAD frame size, once switched */
    int switched, wrong_size, index_errors;
    int64_t next_index;
};

/* Checks each frame's size for the mode and the speech frames' indices (p->ctx: struct mode_switch); switches
   to HEAD mode after the 20th speech frame. */
static int switch_to_head_after_20_speech_frames(struct puller *p, int32_t kind) {
    struct mode_switch *m = p->ctx;
    be_essence2_handle h = p->f->h;
    int32_t want = m->switched ? m->hw * m->hh * 3 : p->f->bytes;
    if (p->got != want) m->wrong_size++;
    if (kind == KIND_SPEECH) {
        if (be_essence2_last_frame_index(h) != m->next_index) m->index_errors++;
        m->next_index++;
    }
    if (p->speech == 20 && !m->switched) {
        CHECK_EQ("set_mode(HEAD) mid-reply", be_essence2_set_mode(h, BE_ESSENCE2_MODE_HEAD), 0);
        CHECK_EQ("get_info", be_essence2_get_info(h, &m->hw, &m->hh), 0);
        m->switched = 1;
    }
    return 0;
}

void test_set_mode_during_a_reply_loses_no_frame(void) {
    struct fixture f;
    const int32_t n = 2 * 16000 + 100;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, n, 41);
    REQUIRE(be_essence2_push_audio(f.h, f.audio, n) == 0, "push");
    CHECK_EQ("end_utterance", be_essence2_end_utterance(f.h), 0);
    struct mode_switch m = {0, 0, 0, 0, 0, 0};
    struct puller p = {.f = &f, .pause_ms = 1, .flags = PULL_UNTIL_IDLE,
                       .on_frame = switch_to_head_after_20_speech_frames, .ctx = &m};
    PULL_LOOP(&p, 20.0);
    CHECK(p.stopped, "the reply did not end");
    CHECK_EQ("speech frames with a mode switch mid-reply", p.speech, frames_for(n));
    CHECK_EQ("frames of the wrong size for the mode", m.wrong_size, 0);
    CHECK_EQ("speech frames out of order or missing", m.index_errors, 0);
done:
    fixture_close(&f);
}

void test_realtime_stalls_catch_up_at_most_2_frames_and_long_ones_reanchor(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 0, 0);
    REQUIRE(fixture_ready(&f, 10.0), "not ready");
    /* a short stall (70 ms, less than 2 periods): at most 2 frames back to back */
    int back_to_back_max = 0;
    for (int round = 0; round < 3; round++) {
        REQUIRE(fixture_pull(&f, 1.0) == f.bytes, "no frame");
        sleep_ms(70);
        int burst = frames_within(&f, 0.010, 0); /* frames available at once = within 10 ms */
        if (burst > back_to_back_max) back_to_back_max = burst;
    }
    NOTE("after a 70 ms stall: at most %d frames back to back", back_to_back_max);
    CHECK(back_to_back_max <= 2, "after a short stall: expected at most 2 frames back to back, got %d",
          back_to_back_max);
    /* a long stall (400 ms): the clock re-anchors (counted) instead of bursting 10 frames */
    REQUIRE(fixture_pull(&f, 1.0) == f.bytes, "no frame");
    int64_t re0 = be_essence2_reanchor_slots(f.h);
    sleep_ms(400);
    int burst = frames_within(&f, 0.010, 0);
    /* then the normal rate again: ~25 in 1 s */
    int frames = frames_within(&f, 1.0, 2);
    int64_t re = be_essence2_reanchor_slots(f.h) - re0;
    NOTE("after a 400 ms stall: %d frames at once, %lld slots re-anchored, then %d frames in 1 s", burst,
         (long long)re, frames);
    CHECK(burst <= 2, "after a long stall: expected no burst (at most 2 frames at once), got %d", burst);
    CHECK(re >= 5, "after a 400 ms stall: expected the dropped slots counted in reanchor_slots (~9), got %lld",
          (long long)re);
    CHECK(frames >= 23 && frames <= 26, "after the stall: expected ~25 frames in 1 s, got %d", frames);
done:
    fixture_close(&f);
}

struct lateness {
    double t_first, worst_drift; /* when the first speech frame came; the most a speech frame came late */
    int drift_errors, stalled;
};

/* Measures each speech frame's lateness against its index (p->ctx: struct lateness); after the 10th speech
   frame the host stalls once for 300 ms. */
static int measure_lateness_and_stall_after_10(struct puller *p, int32_t kind) {
    struct lateness *l = p->ctx;
    if (kind == KIND_SPEECH) {
        double t = now_s();
        int64_t idx = be_essence2_last_frame_index(p->f->h);
        if (p->speech == 1) l->t_first = t;
        /* frame k is shown about k x 40 ms after the first: never a full period late for long */
        double drift = (t - l->t_first) - idx * 0.040;
        if (drift > l->worst_drift) l->worst_drift = drift;
        if (drift > 0.085 || drift < -0.045) l->drift_errors++;
    }
    if (p->speech == 10 && !l->stalled) {
        l->stalled = 1;
        sleep_ms(300); /* the host stalls for 7.5 frame periods */
    }
    return 0;
}

void test_realtime_reply_skips_late_frames_and_stays_on_its_audio(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 2 * 16000, 51);
    struct lateness late = {0, 0, 0, 0};
    struct puller p = host_puller(&f, measure_lateness_and_stall_after_10, &late);
    int64_t skipped0 = 0;
    SHOW_REALTIME_REPLY(&f, 2 * 16000, &p, skipped0);
    int speech = p.speech;
    int64_t skipped = be_essence2_skipped_frames(f.h) - skipped0;
    NOTE("speech frames shown %d, skipped %lld, worst lateness %.3f s", speech, (long long)skipped, late.worst_drift);
    CHECK(p.stopped, "the reply did not end");
    CHECK(skipped >= 5 && skipped <= 9, "a 300 ms stall mid-reply: expected ~7 frames skipped, got %lld",
          (long long)skipped);
    CHECK_EQ("speech frames shown + skipped", speech + skipped, 50);
    CHECK_EQ("frames shown off their audio time (late by > 85 ms or early by > 45 ms)", late.drift_errors, 0);
done:
    fixture_close(&f);
}

struct playout_report {
    int reported;
    int64_t first_after;       /* index of the first speech frame after the report, -1 until then */
    int64_t skipped_at_report; /* skipped_frames when the report was made */
};

/* After the 5th speech frame, reports that 20 frames' worth of audio has played (p->ctx: struct
   playout_report), and keeps the index of the next speech frame shown. */
static int report_playout_after_5_speech_frames(struct puller *p, int32_t kind) {
    struct playout_report *r = p->ctx;
    be_essence2_handle h = p->f->h;
    if (kind != KIND_SPEECH) return 0;
    if (r->reported && r->first_after < 0) r->first_after = be_essence2_last_frame_index(h);
    if (p->speech == 5 && !r->reported) {
        /* the host's audio output is ahead: 20 frames' worth has played */
        r->skipped_at_report = be_essence2_skipped_frames(h);
        CHECK_EQ("set_playout_position(12800)", be_essence2_set_playout_position(h, 20 * SPF), 0);
        r->reported = 1;
    }
    return 0;
}

void test_playout_position_skips_frames_already_heard(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 2 * 16000, 61);
    struct playout_report report = {0, -1, 0};
    struct puller p = host_puller(&f, report_playout_after_5_speech_frames, &report);
    int64_t skipped0 = 0;
    SHOW_REALTIME_REPLY(&f, 2 * 16000, &p, skipped0);
    int speech = p.speech;
    int64_t skipped = be_essence2_skipped_frames(f.h) - skipped0;
    NOTE("speech frames shown %d, first after the report: index %lld, skipped %lld (%lld before the report)",
         speech, (long long)report.first_after, (long long)skipped, (long long)(report.skipped_at_report - skipped0));
    CHECK(p.stopped, "the reply did not end");
    CHECK_EQ("index of the first speech frame after 20 frames' audio played", report.first_after, 20);
    CHECK_EQ("speech frames shown + skipped", speech + skipped, 50);
done:
    fixture_close(&f);
}

/* Keeps the index of the first speech frame in the int64_t at p->ctx (-1 until then). */
static int note_first_speech_index(struct puller *p, int32_t kind) {
    int64_t *first = p->ctx;
    if (kind == KIND_SPEECH && *first < 0) *first = be_essence2_last_frame_index(p->f->h);
    return 0;
}

void test_playout_anchor_starts_a_reply_at_the_live_audio_position(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 16000, 71);
    REQUIRE(fixture_ready(&f, 10.0), "not ready");
    for (int anchor = 0; anchor <= 1; anchor++) {
        CHECK_EQ("set_playout_anchor", be_essence2_set_playout_anchor(f.h, anchor), 0);
        int64_t slots0 = be_essence2_anchor_slots(f.h);
        REQUIRE(be_essence2_push_audio(f.h, f.audio, 16000) == 0, "push");
        CHECK_EQ("end_utterance", be_essence2_end_utterance(f.h), 0);
        sleep_ms(400); /* the audio started playing 0.4 s ago; nobody took frames */
        int64_t first = -1;
        struct puller p = host_puller(&f, note_first_speech_index, &first);
        PULL_LOOP(&p, 10.0);
        int64_t slots = be_essence2_anchor_slots(f.h) - slots0;
        NOTE("anchor %s: first speech frame %lld, anchor_slots +%lld, %d speech frames shown", anchor ? "on" : "off",
             (long long)first, (long long)slots, p.speech);
        CHECK(p.stopped, "the reply did not end");
        if (!anchor) {
            CHECK_EQ("anchor off: the reply starts at its first frame", first, 0);
            CHECK_EQ("anchor off: anchor_slots", slots, 0);
        } else {
            CHECK(first >= 8 && first <= 13, "anchor on, 0.4 s after the audio began: expected the reply to start "
                  "near frame 10, got %lld", (long long)first);
            CHECK_EQ("anchor on: anchor_slots count the frames skipped", slots, first);
        }
    }
done:
    fixture_close(&f);
}

void test_engines_are_independent(void) {
    struct fixture f; /* engine a */
    int have_a = fixture_engine(&f, BE_ESSENCE2_PACING_UNPACED);
    be_essence2_handle b = open_engine(BE_ESSENCE2_PACING_UNPACED, NULL, NULL);
    REQUIRE(have_a && b, "no engines");
    REQUIRE(fixture_buffers(&f, 2 * 16000, 81), "out of memory");
    REQUIRE(be_essence2_push_audio(f.h, f.audio, 2 * 16000) == 0, "push a");
    REQUIRE(be_essence2_push_audio(b, f.audio, 16000) == 0, "push b");
    /* a is interrupted and destroyed mid-reply; b's reply is untouched */
    REQUIRE(fixture_pull(&f, 5.0) == f.bytes, "frame from a");
    CHECK_EQ("reset a", be_essence2_reset(f.h), 0);
    CHECK_EQ("set_mode(HEAD) on a", be_essence2_set_mode(f.h, BE_ESSENCE2_MODE_HEAD), 0);
    CHECK_EQ("destroy a", be_essence2_destroy(f.h), 0);
    f.h = NULL;
    REQUIRE(drive_reply_on(&f, b, NULL, 0, 1, NULL, NULL, 20.0), "b's reply");
    CHECK_EQ("b's speech frames", f.log->speech, 25);
    CHECK_SHAPE(f.log);
    int32_t bw = 0, bh = 0;
    CHECK_EQ("get_info b", be_essence2_get_info(b, &bw, &bh), 0);
    CHECK(bw == f.w && bh == f.ht, "b's mode changed with a's: %dx%d", bw, bh);
done:
    fixture_close(&f);
    if (b) be_essence2_destroy(b);
}
