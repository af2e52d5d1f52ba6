/*
 * test_events.c - ABI tests of waiting without sleeping: be_essence2_frame_fd (a descriptor readable while a
 * frame can be pulled, for poll/epoll and event loops) and be_essence2_reply_counts (the end of a reply, read
 * directly by a C loop).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>

#include "abi_support.h"
#include "essence2.h"
#include "expression2.h"
#include "harness.h"
#include "tests.h"

/* Waits on the frame descriptor (at most timeout_ms) and pulls once it is readable. Counts the wake-ups in
   *wakes and the wake-ups whose pull gave nothing in *empty; returns the pull's result, or 0 on timeout. */
static int32_t wait_and_pull(struct fixture *f, int fd, int timeout_ms, int *wakes, int *empty) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = poll(&p, 1, timeout_ms);
    if (ready <= 0) return 0;
    (*wakes)++;
    int32_t got = be_essence2_pull_frame(f->h, f->frame, f->bytes);
    if (got == 0) (*empty)++;
    return got;
}

void test_frame_fd_wakes_a_poll_loop_25_times_a_second_in_realtime(void) {
    struct fixture f = {0};
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 0, 0);
    int fd = be_essence2_frame_fd(f.h);
    REQUIRE(fd >= 0, "frame_fd: %d (%s)", fd, last_error_text());
    CHECK_EQ("frame_fd is the same descriptor on every call", be_essence2_frame_fd(f.h), fd);
    REQUIRE(fixture_ready(&f, 10.0), "the engine became ready");
    int wakes = 0, empty = 0, frames = 0;
    double start = now_s();
    while (now_s() - start < 2.0) {
        int32_t got = wait_and_pull(&f, fd, 200, &wakes, &empty);
        REQUIRE(got >= 0, "pull_frame after the descriptor woke: %d", got);
        if (got > 0) frames++;
    }
    NOTE("2 s of idle in realtime: %d frames from %d wake-ups (%d gave nothing)", frames, wakes, empty);
    /* 25 a second over 2 s, plus the frame due at the start and the 10 ms early tolerance at the end. */
    CHECK(frames >= 47 && frames <= 52, "a poll loop gets 25 frames a second: %d in 2 s", frames);
    CHECK(empty <= frames / 5, "the descriptor is readable only when a frame is due: %d empty wake-ups", empty);
    CHECK(wakes <= frames + frames / 5 + 2, "no busy loop: %d wake-ups for %d frames", wakes, frames);
    /* Not readable right after a pull: the next frame is 40 ms away. */
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int32_t got = 0;
    while (got == 0 && poll(&p, 1, 200) > 0) got = be_essence2_pull_frame(f.h, f.frame, f.bytes);
    CHECK_EQ("readable right after the pull", poll(&p, 1, 0), 0);
done:
    fixture_close(&f);
}

void test_frame_fd_drives_an_unpaced_reply_to_its_end(void) {
    struct fixture f = {0};
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 25 * SPF, 11);
    int fd = be_essence2_frame_fd(f.h);
    REQUIRE(fd >= 0, "frame_fd: %d (%s)", fd, last_error_text());
    REQUIRE(fixture_ready(&f, 10.0), "the engine became ready");
    int64_t started0 = -1, ended0 = -1;
    REQUIRE(be_essence2_reply_counts(f.h, &started0, &ended0) == 0, "reply_counts: %s", last_error_text());
    REQUIRE(be_essence2_push_audio(f.h, f.audio, 25 * SPF) == 0, "push: %s", last_error_text());
    REQUIRE(be_essence2_end_utterance(f.h) == 0, "end_utterance");
    int wakes = 0, empty = 0, speech = 0;
    int64_t started = 0, ended = 0;
    double start = now_s();
    /* A C loop reads the end of the reply from the counter, not from frame kinds. */
    while (now_s() - start < 10.0) {
        int32_t got = wait_and_pull(&f, fd, 1000, &wakes, &empty);
        REQUIRE(got >= 0, "pull_frame: %d", got);
        if (got > 0 && be_essence2_last_frame_kind(f.h) == BE_ESSENCE2_FRAME_SPEECH) speech++;
        REQUIRE(be_essence2_reply_counts(f.h, &started, &ended) == 0, "reply_counts");
        if (ended > ended0) break;
    }
    NOTE("unpaced reply: %d speech frames from %d wake-ups (%d empty) in %.2f s", speech, wakes, empty,
         now_s() - start);
    CHECK_EQ("speech frames of 25 frames of audio", speech, 25);
    CHECK_EQ("replies started", started - started0, 1);
    CHECK_EQ("replies ended", ended - ended0, 1);
    CHECK_EQ("the reply's end shows in an IDLE frame", be_essence2_last_frame_kind(f.h), BE_ESSENCE2_FRAME_IDLE);
done:
    fixture_close(&f);
}

/* 1 s of a square wave, loud enough to open the mouth: a reply that keeps the render thread busy. */
static void square_speech(int16_t *speech, int n) {
    for (int i = 0; i < n; i++) speech[i] = (int16_t)(4000 * ((i / 40) % 2 ? 1 : -1));
}

/* After destroy returned, fd is no longer open (F_GETFD fails with EBADF). */
static int descriptor_closed(int fd) {
    errno = 0;
    return fcntl(fd, F_GETFD) == -1 && errno == EBADF;
}

void test_frame_fd_is_closed_when_destroy_returns(void) {
    /* The headers: "the engine owns it and closes it when it is destroyed". A host that counts its descriptors,
       or reuses the number, must find it closed as destroy returns, not later when the render thread ends.
       Both engines (be_essence2_* with a photoreal avatar, be_expression2_* with a character), mid-reply with
       frames waiting, and idle. */
    static int16_t speech[16000];
    square_speech(speech, 16000);
    for (int busy = 0; busy < 2; busy++) {
        be_essence2_handle h = NULL;
        REQUIRE(be_essence2_create(g_avatar, NULL, 0, &h) == 0, "create: %s", last_error_text());
        REQUIRE(be_essence2_set_pacing(h, BE_ESSENCE2_PACING_UNPACED) == 0, "set_pacing");
        int fd = be_essence2_frame_fd(h);
        REQUIRE(fd >= 0, "frame_fd: %d (%s)", fd, last_error_text());
        if (busy) {
            REQUIRE(be_essence2_push_audio(h, speech, 16000) == 0, "push: %s", last_error_text());
            struct pollfd p = {.fd = fd, .events = POLLIN};
            REQUIRE(poll(&p, 1, 10000) == 1, "a frame became available");
        }
        REQUIRE(be_essence2_destroy(h) == 0, "destroy: %s", last_error_text());
        CHECK(descriptor_closed(fd), "photoreal, %s: the frame descriptor %d is closed as be_essence2_destroy returns",
              busy ? "mid-reply" : "idle", fd);
    }
    for (int busy = 0; busy < 2; busy++) {
        be_expression2_handle h = NULL;
        REQUIRE(be_expression2_create("avatars/squirrel.imx", NULL, NULL, &h) == 0, "expression2 create: %s",
                last_error_text());
        REQUIRE(be_expression2_set_pacing(h, BE_ESSENCE2_PACING_UNPACED) == 0, "set_pacing");
        int fd = be_expression2_frame_fd(h);
        REQUIRE(fd >= 0, "expression2 frame_fd: %d (%s)", fd, last_error_text());
        if (busy) {
            REQUIRE(be_expression2_push_audio(h, speech, 16000) == 0, "push: %s", last_error_text());
            struct pollfd p = {.fd = fd, .events = POLLIN};
            REQUIRE(poll(&p, 1, 10000) == 1, "a frame became available");
        }
        REQUIRE(be_expression2_destroy(h) == 0, "expression2 destroy: %s", last_error_text());
        CHECK(descriptor_closed(fd),
              "character, %s: the frame descriptor %d is closed as be_expression2_destroy returns",
              busy ? "mid-reply" : "idle", fd);
    }
done:
    return;
}

void test_reply_counts_count_an_interrupt_once_and_take_null(void) {
    struct fixture f = {0};
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 50 * SPF, 5);
    REQUIRE(fixture_ready(&f, 10.0), "the engine became ready");
    CHECK_EQ("reply_counts(h, NULL, NULL)", be_essence2_reply_counts(f.h, NULL, NULL), 0);
    CHECK_EQ("reply_counts(unknown handle)", be_essence2_reply_counts((be_essence2_handle)(uintptr_t)0x10, NULL, NULL), -1);
    REQUIRE(be_essence2_push_audio(f.h, f.audio, 50 * SPF) == 0, "push");
    int64_t started = 0, ended = 0;
    /* Show a few speech frames, then interrupt. */
    int speech = 0;
    double start = now_s();
    while (speech < 5 && now_s() - start < 10.0) {
        int32_t got = be_essence2_pull_frame(f.h, f.frame, f.bytes);
        REQUIRE(got >= 0, "pull_frame: %d", got);
        if (got > 0 && be_essence2_last_frame_kind(f.h) == BE_ESSENCE2_FRAME_SPEECH) speech++;
        if (got == 0) sleep_ms(1);
    }
    REQUIRE(be_essence2_reply_counts(f.h, &started, &ended) == 0, "reply_counts");
    CHECK(started == 1 && ended == 0, "during the reply: started %lld, ended %lld", (long long)started,
          (long long)ended);
    REQUIRE(be_essence2_reset(f.h) == 0, "reset");
    CHECK_EQ("reset a second time", be_essence2_reset(f.h), 0);
    start = now_s();
    while (now_s() - start < 5.0) {
        int32_t got = be_essence2_pull_frame(f.h, f.frame, f.bytes);
        REQUIRE(got >= 0, "pull_frame: %d", got);
        if (got > 0 && be_essence2_last_frame_kind(f.h) == BE_ESSENCE2_FRAME_IDLE) break;
        if (got == 0) sleep_ms(1);
    }
    REQUIRE(be_essence2_reply_counts(f.h, &started, &ended) == 0, "reply_counts");
    CHECK(started == 1 && ended == 1, "after the interrupt: started %lld, ended %lld (one reply, ended once)",
          (long long)started, (long long)ended);
done:
    fixture_close(&f);
}
