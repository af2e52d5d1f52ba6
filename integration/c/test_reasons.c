/*
 * test_reasons.c - ABI tests of the per-thread reason (be_essence2_last_error): for every function of
 * include/essence2.h, a failure sets a reason and a success clears it, exactly as the header's "Reason:" line
 * of that function says; last_error, version, version_number and strerror never touch it. Also: the header's
 * version macros and codes agree with the library.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "abi_support.h"
#include "essence2.h"
#include "harness.h"
#include "tests.h"

/* Leaves a reason on this thread, so that a following success has something to clear. */
static void make_a_failure(void) {
    int32_t w;
    if (be_essence2_get_info(NULL, &w, &w) != -1 || be_essence2_last_error(NULL, 0) <= 0) {
        CHECK(0, "get_info(NULL) must fail with a reason");
    }
}

/* The call must fail (result `failed` is true) and leave a non-empty reason. */
#define FAILS_WITH_REASON(call, failed)                                                                      \
    do {                                                                                                     \
        be_essence2_set_api_secret(NULL); /* clears the reason first */                                      \
        long long got_ = (long long)(call);                                                                  \
        CHECK((failed), "%s: expected a failure, got %lld", #call, got_);                                    \
        CHECK(be_essence2_last_error(NULL, 0) > 0, "%s failed (%lld) but left no reason", #call, got_);     \
    } while (0)

/* The call must succeed (result `succeeded` is true) and clear the reason a failure just left. */
#define SUCCEEDS_AND_CLEARS(call, succeeded)                                                                 \
    do {                                                                                                     \
        make_a_failure();                                                                                    \
        long long got_ = (long long)(call);                                                                  \
        CHECK((succeeded), "%s: expected success, got %lld (%s)", #call, got_, last_error_text());           \
        CHECK_EQ(#call " clears the reason", be_essence2_last_error(NULL, 0), 0);                            \
    } while (0)

/* The call must leave the reason exactly as it was. */
#define LEAVES_THE_REASON(call)                                                                              \
    do {                                                                                                     \
        make_a_failure();                                                                                    \
        char before_[256], after_[256];                                                                      \
        be_essence2_last_error(before_, (int32_t)sizeof before_);                                            \
        (void)(call);                                                                                        \
        be_essence2_last_error(after_, (int32_t)sizeof after_);                                              \
        CHECK(strcmp(before_, after_) == 0 && before_[0] != '\0', "%s changed the reason: \"%s\" -> \"%s\"", \
              #call, before_, after_);                                                                       \
    } while (0)

void test_every_function_sets_its_reason_on_failure_and_clears_it_on_success(void) {
    struct fixture f = {0};
    int32_t rc = 0;
    int64_t n = 0;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 4 * SPF, 7);
    REQUIRE(fixture_ready(&f, 10.0), "the engine became ready");
    be_essence2_handle bad = (be_essence2_handle)(uintptr_t)0x10;
    char text[64];
    int32_t w = 0, ht = 0;
    int64_t failures = 0;
    uint8_t small[8];

    /* Credentials */
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_api_secret("s3cret"), rc == 0);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_api_secret(NULL), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_set_service_url("not a url"), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_service_url(NULL), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_last_refusal(NULL, 5), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_last_refusal(text, (int32_t)sizeof text), rc >= 0);

    /* Lifecycle */
    {
        be_essence2_handle h = NULL;
        FAILS_WITH_REASON(rc = be_essence2_create("/nonexistent/x.imx", NULL, 0, &h), rc == -2);
        FAILS_WITH_REASON(rc = be_essence2_create(NULL, NULL, 0, &h), rc == -1);
        SUCCEEDS_AND_CLEARS(rc = be_essence2_create(g_avatar, NULL, 0, &h), rc == 0 && h != NULL);
        SUCCEEDS_AND_CLEARS(rc = be_essence2_destroy(h), rc == 0);
        FAILS_WITH_REASON(rc = be_essence2_destroy(h), rc == -1);
        SUCCEEDS_AND_CLEARS(rc = be_essence2_destroy(NULL), rc == 0);
    }
    FAILS_WITH_REASON(rc = be_essence2_is_ready(bad), rc == 0);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_is_ready(f.h), rc == 1);

    /* Audio and frames */
    FAILS_WITH_REASON(rc = be_essence2_push_audio(f.h, NULL, 5), rc == -1);
    FAILS_WITH_REASON(rc = be_essence2_push_audio(f.h, f.audio, BE_ESSENCE2_RING_SAMPLES + 1), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_push_audio(f.h, f.audio, 4 * SPF), rc == 0);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_push_audio(f.h, f.audio, 0), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_end_utterance(bad), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_end_utterance(f.h), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_frames_available(bad), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_frames_available(f.h), rc >= 0);
    FAILS_WITH_REASON(rc = be_essence2_pull_frame(f.h, small, (int32_t)sizeof small), rc == -1);
    FAILS_WITH_REASON(rc = be_essence2_pull_frame(f.h, NULL, f.bytes), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_pull_frame(f.h, f.frame, f.bytes), rc == 0 || rc == f.bytes);
    FAILS_WITH_REASON(rc = be_essence2_idle_frame(bad, f.frame, f.bytes), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_idle_frame(f.h, f.frame, f.bytes), rc == 0 || rc == f.bytes);
    FAILS_WITH_REASON(rc = be_essence2_frame_fd(bad), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_frame_fd(f.h), rc >= 0);
    FAILS_WITH_REASON(rc = be_essence2_reply_counts(bad, NULL, NULL), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_reply_counts(f.h, &n, NULL), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_get_info(f.h, NULL, &ht), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_get_info(f.h, &w, &ht), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_reset(bad), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_reset(f.h), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_last_frame_kind(bad), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_last_frame_kind(f.h), rc >= -1 && rc <= 2);

    /* Display and status */
    FAILS_WITH_REASON(rc = be_essence2_set_mode(f.h, 7), rc == -2);
    FAILS_WITH_REASON(rc = be_essence2_set_mode(bad, BE_ESSENCE2_MODE_FULL), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_mode(f.h, BE_ESSENCE2_MODE_FULL), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_render_status(bad, text, (int32_t)sizeof text, &failures),
                      rc == BE_ESSENCE2_ERR_STATUS_ARGUMENT);
    FAILS_WITH_REASON(rc = be_essence2_render_status(f.h, NULL, 5, &failures), rc == BE_ESSENCE2_ERR_STATUS_ARGUMENT);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_render_status(f.h, text, (int32_t)sizeof text, &failures),
                        rc == 0 && failures == 0);
    FAILS_WITH_REASON(n = be_essence2_pulled_speech_frames(bad), n == -1);
    SUCCEEDS_AND_CLEARS(n = be_essence2_pulled_speech_frames(f.h), n >= 0);
    FAILS_WITH_REASON(rc = be_essence2_set_playout_anchor(bad, 1), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_playout_anchor(f.h, 0), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_set_playout_position(f.h, -1), rc == -1);
    be_essence2_frame_info info = {.size = sizeof info};
    FAILS_WITH_REASON(rc = be_essence2_take_frame(bad, f.frame, f.bytes, &info), rc == -1);
    FAILS_WITH_REASON(rc = be_essence2_take_frame(f.h, f.frame, f.bytes, NULL), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_take_frame(f.h, f.frame, f.bytes, &info), rc >= 0);
    FAILS_WITH_REASON(rc = be_essence2_feed_audio(bad, f.audio, 640, 16000), rc == -1);
    FAILS_WITH_REASON(rc = be_essence2_feed_audio(f.h, f.audio, 640, 7), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_feed_audio(f.h, f.audio, 640, 16000), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_feed_float(f.h, NULL, 640, 16000), rc == -1);
    FAILS_WITH_REASON(n = be_essence2_pending_samples(bad), n == -1);
    SUCCEEDS_AND_CLEARS(n = be_essence2_pending_samples(f.h), n >= 0);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_playout_position(f.h, 0), rc == 0);
    FAILS_WITH_REASON(n = be_essence2_last_frame_index(bad), n == -1);
    SUCCEEDS_AND_CLEARS(n = be_essence2_last_frame_index(f.h), n >= -1);
    FAILS_WITH_REASON(n = be_essence2_skipped_frames(bad), n == -1);
    SUCCEEDS_AND_CLEARS(n = be_essence2_skipped_frames(f.h), n >= 0);
    FAILS_WITH_REASON(n = be_essence2_reanchor_slots(bad), n == -1);
    SUCCEEDS_AND_CLEARS(n = be_essence2_reanchor_slots(f.h), n >= 0);
    FAILS_WITH_REASON(n = be_essence2_anchor_slots(bad), n == -1);
    SUCCEEDS_AND_CLEARS(n = be_essence2_anchor_slots(f.h), n >= 0);

    /* Ours */
    FAILS_WITH_REASON(rc = be_essence2_set_pacing(f.h, 9), rc == -2);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_pacing(f.h, BE_ESSENCE2_PACING_UNPACED), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_set_lipsync(f.h, 9), rc == -2);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_lipsync(f.h, BE_ESSENCE2_LIPSYNC_LEARNED), rc == 0);
    FAILS_WITH_REASON(rc = be_essence2_set_seed(bad, 1), rc == -1);
    SUCCEEDS_AND_CLEARS(rc = be_essence2_set_seed(f.h, 1), rc == 0);
    LEAVES_THE_REASON(be_essence2_version());
    LEAVES_THE_REASON(be_essence2_version_number());
    LEAVES_THE_REASON(be_essence2_strerror(-2));
    LEAVES_THE_REASON(be_essence2_last_error(NULL, 0));
    LEAVES_THE_REASON(be_essence2_last_error(NULL, 5)); /* its own -1 does not overwrite what it reports */

    /* quiesce_all last: it stops every engine of the process. */
    SUCCEEDS_AND_CLEARS(rc = be_essence2_quiesce_all(1000), rc >= 1);
    /* A stopped engine refuses audio with -2 and says why. */
    FAILS_WITH_REASON(rc = be_essence2_push_audio(f.h, f.audio, SPF), rc == -2);
    CHECK(strstr(last_error_text(), "quiesce") != NULL, "push after quiesce_all: the reason names it: \"%s\"",
          last_error_text());
done:
    fixture_close(&f);
}

void test_a_full_ring_says_how_full_it_is(void) {
    struct fixture f = {0};
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, BE_ESSENCE2_RING_SAMPLES, 3);
    /* Two full rings' worth, pushed without pulling: the second cannot fit. */
    CHECK_EQ("first push of a full ring", be_essence2_push_audio(f.h, f.audio, BE_ESSENCE2_RING_SAMPLES), 0);
    int32_t rc = be_essence2_push_audio(f.h, f.audio, BE_ESSENCE2_RING_SAMPLES);
    if (rc == -2) {
        const char *why = last_error_text();
        CHECK(strstr(why, "ring is full") != NULL && strstr(why, "256000") != NULL && strstr(why, "push again") != NULL,
              "the reason of -2 says how full the ring is and what to do: \"%s\"", why);
    } else {
        /* The render thread may have consumed everything in between; then the push is a success. */
        CHECK_EQ("second push", rc, 0);
        NOTE("the engine consumed a whole ring before the second push; -2 was not reached");
    }
done:
    fixture_close(&f);
}

void test_version_macros_and_codes_agree_with_the_library(void) {
    CHECK_EQ("be_essence2_version_number() == ESSENCE2_VERSION", be_essence2_version_number(), ESSENCE2_VERSION);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", ESSENCE2_VERSION_MAJOR, ESSENCE2_VERSION_MINOR,
             ESSENCE2_VERSION_PATCH);
    CHECK(strcmp(be_essence2_version(), expected) == 0, "be_essence2_version() \"%s\", the header says \"%s\"",
          be_essence2_version(), expected);
    CHECK(ESSENCE2_VERSION_AT_LEAST(1, 0, 0), "ESSENCE2_VERSION_AT_LEAST(1, 0, 0)");
    CHECK(ESSENCE2_VERSION_AT_LEAST(ESSENCE2_VERSION_MAJOR, ESSENCE2_VERSION_MINOR, ESSENCE2_VERSION_PATCH),
          "ESSENCE2_VERSION_AT_LEAST(this version)");
    CHECK(!ESSENCE2_VERSION_AT_LEAST(ESSENCE2_VERSION_MAJOR + 1, 0, 0), "!ESSENCE2_VERSION_AT_LEAST(next major)");
    CHECK(!ESSENCE2_VERSION_AT_LEAST(ESSENCE2_VERSION_MAJOR, ESSENCE2_VERSION_MINOR + 1, 0),
          "!ESSENCE2_VERSION_AT_LEAST(next minor)");
    const int32_t codes[] = {BE_ESSENCE2_OK, BE_ESSENCE2_ERR_ARGUMENT, BE_ESSENCE2_ERR_AVATAR, BE_ESSENCE2_ERR_REFUSED,
                             BE_ESSENCE2_ERR_STATUS_ARGUMENT};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CHECK(strcmp(be_essence2_strerror(codes[i]), "unknown error") != 0, "strerror(%d) names the code", codes[i]);
        for (size_t j = 0; j < i; j++) {
            CHECK(strcmp(be_essence2_strerror(codes[i]), be_essence2_strerror(codes[j])) != 0,
                  "strerror(%d) and strerror(%d) differ", codes[i], codes[j]);
        }
    }
    CHECK(BE_ESSENCE2_ERR_FULL == BE_ESSENCE2_ERR_AVATAR && BE_ESSENCE2_ERR_MODE == BE_ESSENCE2_ERR_AVATAR,
          "-2 has three names");
    CHECK(BE_ESSENCE2_ERR_RENDER == -1, "render_status keeps the reference's -1 for a failed render");
    CHECK_EQ("samples per frame", BE_ESSENCE2_SAMPLES_PER_FRAME, BE_ESSENCE2_SAMPLE_RATE / BE_ESSENCE2_FPS);
}
