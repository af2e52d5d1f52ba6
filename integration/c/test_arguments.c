/*
 * test_arguments.c - ABI tests of return values and arguments: version and strerror, NULL, unknown and
 * destroyed handles, create's arguments, last_error and last_refusal, the API secret and metering, short
 * buffers and bad values, a fresh engine, idle frames.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi_support.h"
#include "tests.h"

void test_version_and_strerror_are_static_strings(void) {
    const char *v = be_essence2_version();
    CHECK(v != NULL && v[0] != '\0', "version: expected a non-empty string, got %s", v ? "\"\"" : "NULL");
    if (v) NOTE("version %s", v);
    CHECK(v == be_essence2_version(), "version: expected the same static string on every call");
    const int32_t codes[] = {0, -1, -2, -3, 1, -4, 12345, INT32_MIN};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = be_essence2_strerror(codes[i]);
        CHECK(s != NULL && s[0] != '\0', "strerror(%d): expected a non-empty string", codes[i]);
    }
    const char *unknown = be_essence2_strerror(12345);
    CHECK(unknown && strcmp(unknown, "unknown error") == 0, "strerror(12345): expected \"unknown error\", got \"%s\"",
          unknown ? unknown : "NULL");
    const char *e1 = be_essence2_strerror(-1), *e2 = be_essence2_strerror(-2), *e3 = be_essence2_strerror(-3);
    CHECK(e1 && e2 && e3 && strcmp(e1, e2) != 0 && strcmp(e2, e3) != 0 && strcmp(e1, e3) != 0,
          "strerror: expected distinct texts for -1, -2, -3");
    CHECK(e1 && strcmp(e1, "unknown error") != 0, "strerror(-1) must name the code, got \"%s\"", e1 ? e1 : "NULL");
}

/* Every function given `h` answers as documented for an unknown handle. */
static void check_unusable_handle(const char *file, int line, be_essence2_handle h, const char *what) {
    int16_t samples[SPF] = {0};
    uint8_t frame[64];
    int32_t w = -7, ht = -7;
    char reason[32];
    int64_t failures = -7;
#define EXPECT(call, want)                                                                          \
    do {                                                                                            \
        long long got_ = (long long)(call);                                                         \
        if (got_ != (long long)(want))                                                              \
            harness_report(file, line, "%s handle: %s: expected %lld, got %lld", what, #call,       \
                           (long long)(want), got_);                                                \
    } while (0)
    EXPECT(be_essence2_is_ready(h), 0);
    EXPECT(be_essence2_push_audio(h, samples, SPF), -1);
    EXPECT(be_essence2_push_audio(h, samples, 0), -1);
    EXPECT(be_essence2_end_utterance(h), -1);
    EXPECT(be_essence2_frames_available(h), -1);
    EXPECT(be_essence2_pull_frame(h, frame, (int32_t)sizeof frame), -1);
    EXPECT(be_essence2_idle_frame(h, frame, (int32_t)sizeof frame), -1);
    EXPECT(be_essence2_get_info(h, &w, &ht), -1);
    EXPECT(be_essence2_reset(h), -1);
    EXPECT(be_essence2_last_frame_kind(h), -1);
    EXPECT(be_essence2_set_mode(h, BE_ESSENCE2_MODE_FULL), -1);
    /* render_status keeps the reference's -1 for a failed render; a bad handle is its own code. */
    EXPECT(be_essence2_render_status(h, reason, (int32_t)sizeof reason, &failures), BE_ESSENCE2_ERR_STATUS_ARGUMENT);
    EXPECT(be_essence2_render_status(h, NULL, 0, NULL), BE_ESSENCE2_ERR_STATUS_ARGUMENT);
    EXPECT(be_essence2_pulled_speech_frames(h), -1);
    EXPECT(be_essence2_set_playout_anchor(h, 1), -1);
    EXPECT(be_essence2_set_playout_position(h, 0), -1);
    be_essence2_frame_info info = {.size = sizeof info};
    EXPECT(be_essence2_take_frame(h, frame, (int32_t)sizeof frame, &info), -1);
    int16_t pcm[4] = {0};
    float fpcm[4] = {0};
    EXPECT(be_essence2_feed_audio(h, pcm, 4, 16000), -1);
    EXPECT(be_essence2_feed_float(h, fpcm, 4, 48000), -1);
    EXPECT(be_essence2_pending_samples(h), -1);
    EXPECT(be_essence2_last_frame_index(h), -1);
    EXPECT(be_essence2_skipped_frames(h), -1);
    EXPECT(be_essence2_reanchor_slots(h), -1);
    EXPECT(be_essence2_anchor_slots(h), -1);
    EXPECT(be_essence2_set_pacing(h, BE_ESSENCE2_PACING_UNPACED), -1);
    EXPECT(be_essence2_set_seed(h, 42), -1);
    EXPECT(be_essence2_set_lipsync(h, BE_ESSENCE2_LIPSYNC_V1), -1);
    EXPECT(be_essence2_set_lipsync(h, 7), -1);
#undef EXPECT
}

void test_null_handle_is_refused_by_every_function(void) {
    check_unusable_handle(__FILE__, __LINE__, NULL, "NULL");
    CHECK_EQ("destroy(NULL)", be_essence2_destroy(NULL), 0);
}

void test_unknown_handle_is_refused_by_every_function(void) {
    /* A readable block that never came from create: the library must not take it for an engine. */
    static uint64_t fake[64];
    memset(fake, 0xA5, sizeof fake);
    be_essence2_handle h = (be_essence2_handle)(void *)fake;
    check_unusable_handle(__FILE__, __LINE__, h, "unknown");
    CHECK_EQ("destroy(unknown handle)", be_essence2_destroy(h), -1);
    CHECK(be_essence2_last_error(NULL, 0) > 0, "last_error after destroy(unknown handle): expected a reason");
}

void test_destroyed_handle_is_refused_and_double_destroy_fails(void) {
    int32_t w, ht;
    be_essence2_handle h = open_engine(BE_ESSENCE2_PACING_UNPACED, &w, &ht);
    if (!h) return;
    CHECK_EQ("destroy(live handle)", be_essence2_destroy(h), 0);
    check_unusable_handle(__FILE__, __LINE__, h, "destroyed");
    CHECK_EQ("destroy(destroyed handle)", be_essence2_destroy(h), -1);
}

void test_create_rejects_bad_arguments_and_sets_out_to_null(void) {
    be_essence2_handle sentinel = (be_essence2_handle)(void *)&sentinel, h;

    CHECK_EQ("create(NULL path)", be_essence2_create(NULL, NULL, 0, (h = sentinel, &h)), -1);
    CHECK(h == NULL, "create(NULL path): expected *out == NULL");
    CHECK_EQ("create(out NULL)", be_essence2_create(g_avatar, NULL, 0, NULL), -1);
    CHECK_EQ("create(chunk -1)", be_essence2_create(g_avatar, NULL, -1, (h = sentinel, &h)), -1);
    CHECK(h == NULL, "create(chunk -1): expected *out == NULL");
    CHECK_EQ("create(chunk 65537)", be_essence2_create(g_avatar, NULL, 65537, (h = sentinel, &h)), -1);
    CHECK(h == NULL, "create(chunk 65537): expected *out == NULL");
    CHECK(be_essence2_last_error(NULL, 0) > 0, "last_error after create(chunk 65537): expected a reason");
    CHECK_EQ("create(motion_dir missing)",
             be_essence2_create(g_avatar, "/nonexistent/essence2-motion", 0, (h = sentinel, &h)), -1);
    CHECK(h == NULL, "create(motion_dir missing): expected *out == NULL");
    /* motion_dir that is a file, not a directory */
    CHECK_EQ("create(motion_dir is a file)", be_essence2_create(g_avatar, g_avatar, 0, (h = sentinel, &h)), -1);
    CHECK(h == NULL, "create(motion_dir is a file): expected *out == NULL");

    /* the valid edges: chunk 0 and 65536, an existing motion_dir */
    h = NULL;
    int32_t rc = be_essence2_create(g_avatar, "/tmp", 65536, &h);
    CHECK(rc == 0 && h != NULL, "create(motion_dir /tmp, chunk 65536): expected 0 and a handle, got %d (%s)", rc,
          last_error_text());
    if (rc == 0) {
        CHECK_EQ("last_error after a successful create", be_essence2_last_error(NULL, 0), 0);
        CHECK_EQ("destroy", be_essence2_destroy(h), 0);
    }
}

static void *thread_last_error_is_own(void *arg) {
    int *result = arg;
    /* this thread made no failed call yet: the main thread's failure is not visible here */
    result[0] = be_essence2_last_error(NULL, 0);
    be_essence2_handle h = NULL;
    result[1] = be_essence2_create("/nonexistent/thread.imx", NULL, 0, &h);
    result[2] = be_essence2_last_error(NULL, 0);
    return NULL;
}

void test_last_error_and_last_refusal_follow_their_contract(void) {
    be_essence2_handle h = NULL;
    CHECK_EQ("create(missing file)", be_essence2_create("/nonexistent/dir/none.imx", NULL, 0, &h), -2);
    int32_t len = be_essence2_last_error(NULL, 0);
    CHECK(len > 0, "last_error(NULL, 0) after a failed create: expected the reason's length > 0, got %d", len);
    if (len > 0) {
        char *full = malloc((size_t)len + 1);
        memset(full, 'x', (size_t)len + 1);
        CHECK_EQ("last_error(buf, len+1)", be_essence2_last_error(full, len + 1), len);
        CHECK(memchr(full, 0, (size_t)len + 1) != NULL && strlen(full) == (size_t)len,
              "last_error: expected a NUL-terminated copy of %d bytes", len);
        NOTE("missing file: \"%s\"", full);
        free(full);
        char small[5];
        memset(small, 'x', sizeof small);
        CHECK_EQ("last_error(buf, 5) returns the full length", be_essence2_last_error(small, 5), len);
        CHECK(memchr(small, 0, sizeof small) != NULL && strlen(small) == (len < 4 ? (size_t)len : 4u),
              "last_error(buf, 5): expected a NUL-terminated copy truncated to 4 bytes");
        char one[1] = {'x'};
        CHECK_EQ("last_error(buf, 1)", be_essence2_last_error(one, 1), len);
        CHECK(one[0] == '\0', "last_error(buf, 1): expected an empty string");
    }
    char buf[16];
    CHECK_EQ("last_error(NULL, 5)", be_essence2_last_error(NULL, 5), -1);
    CHECK_EQ("last_error(buf, -1)", be_essence2_last_error(buf, -1), -1);

    /* per thread */
    int result[3] = {-9, -9, -9};
    pthread_t t;
    CHECK(be_essence2_create("/nonexistent/main.imx", NULL, 0, &h) == -2, "create(missing) on main thread");
    if (pthread_create(&t, NULL, thread_last_error_is_own, result) == 0) {
        pthread_join(t, NULL);
        CHECK_EQ("last_error on a thread that made no call", result[0], 0);
        CHECK_EQ("create(missing) on the thread", result[1], -2);
        CHECK(result[2] > 0, "last_error on the thread after its failed create: expected > 0, got %d", result[2]);
    }
    CHECK(be_essence2_last_error(NULL, 0) > 0, "the main thread's reason is still there after the other thread's calls");

    /* cleared by a successful call */
    int32_t w, ht;
    h = open_engine(BE_ESSENCE2_PACING_UNPACED, &w, &ht);
    if (h) {
        CHECK_EQ("last_error after a successful get_info", be_essence2_last_error(NULL, 0), 0);
        /* a failing call with a valid handle has a reason too */
        CHECK_EQ("push_audio(h, NULL, 5)", be_essence2_push_audio(h, NULL, 5), -1);
        CHECK(be_essence2_last_error(NULL, 0) > 0, "last_error after push_audio(h, NULL, 5): expected a reason");
        be_essence2_destroy(h);
    }

    /* refusals: nothing is refused without a metering service */
    CHECK_EQ("last_refusal(NULL, 0)", be_essence2_last_refusal(NULL, 0), 0);
    memset(buf, 'x', sizeof buf);
    CHECK_EQ("last_refusal(buf, 16)", be_essence2_last_refusal(buf, (int32_t)sizeof buf), 0);
    CHECK(buf[0] == '\0', "last_refusal(buf, 16) with nothing refused: expected an empty string");
    CHECK_EQ("last_refusal(NULL, 5)", be_essence2_last_refusal(NULL, 5), -1);
    CHECK_EQ("last_refusal(buf, -1)", be_essence2_last_refusal(buf, -1), -1);
}

void test_api_secret_set_and_clear_and_sessions_still_start(void) {
    CHECK_EQ("set_api_secret(\"test-secret\")", be_essence2_set_api_secret("test-secret"), 0);
    be_essence2_handle h = NULL;
    int32_t rc = be_essence2_create(g_avatar, NULL, 0, &h);
    CHECK(rc == 0, "create with a secret and no metering service: expected 0, got %d (%s)", rc, last_error_text());
    if (rc == 0) be_essence2_destroy(h);
    CHECK_EQ("set_api_secret(NULL)", be_essence2_set_api_secret(NULL), 0);
}

void test_configured_service_refuses_without_secret_or_answer(void) {
    /* a configured metering service checks every session (docs/sessions.md): no secret, or no answer (a closed
       port on loopback: refused at once), is -3 with a reason; set_service_url("") turns it off again */
    char why[512] = "";
    CHECK_EQ("last_refusal before any refusal", be_essence2_last_refusal(why, (int32_t)sizeof why), 0);
    REQUIRE(setenv("ESSENCE2_METERING_URL", "http://127.0.0.1:9", 1) == 0, "setenv");
    unsetenv("ESSENCE2_API_SECRET");
    unsetenv("BITHUMAN_API_SECRET");
    be_essence2_handle h = (be_essence2_handle)(uintptr_t)0x1;
    CHECK_EQ("create with a service and no secret", be_essence2_create(g_avatar, NULL, 0, &h), -3);
    CHECK(h == NULL, "refused create: expected *out == NULL");
    int32_t len = be_essence2_last_refusal(why, (int32_t)sizeof why);
    CHECK(len > 0 && strstr(why, "no API secret") != NULL && strstr(why, "metering") != NULL,
          "last_refusal: expected a sentence naming the missing secret, got %d '%s'", len, why);
    CHECK_EQ("set_api_secret(\"test-secret\")", be_essence2_set_api_secret("test-secret"), 0);
    h = NULL;
    CHECK_EQ("create with a service that does not answer", be_essence2_create(g_avatar, NULL, 0, &h), -3);
    len = be_essence2_last_refusal(why, (int32_t)sizeof why);
    CHECK(len > 0 && (strstr(why, "unreachable") != NULL || strstr(why, "libcurl") != NULL),
          "last_refusal: expected 'unreachable' (or libcurl missing), got %d '%s'", len, why);
    CHECK_EQ("set_service_url(\"ftp://x\")", be_essence2_set_service_url("ftp://x"), -1);
    CHECK_EQ("set_service_url(\"\") (no service)", be_essence2_set_service_url(""), 0);
    h = NULL;
    CHECK_EQ("create with the service turned off in code", be_essence2_create(g_avatar, NULL, 0, &h), 0);
    if (h) be_essence2_destroy(h);
    CHECK_EQ("set_service_url(NULL)", be_essence2_set_service_url(NULL), 0);
    CHECK_EQ("set_api_secret(NULL)", be_essence2_set_api_secret(NULL), 0);
    REQUIRE(unsetenv("ESSENCE2_METERING_URL") == 0, "unsetenv");
    h = NULL;
    CHECK_EQ("create without a metering service", be_essence2_create(g_avatar, NULL, 0, &h), 0);
    if (h) be_essence2_destroy(h);
done:;
}

void test_download_avatar_checks_arguments_and_says_why(void) {
    /* be_essence2_download_avatar (1.2): bad arguments are -1; no service is -2, no secret -3, no answer and
       nothing cached -2, each with its reason (integration/downloads/run.sh has the service's side) */
    char path[256] = "";
    char directory[] = "/tmp/essence2-abi-download-XXXXXX";
    REQUIRE(mkdtemp(directory) != NULL, "mkdtemp");
    CHECK_EQ("download_avatar(NULL code)", be_essence2_download_avatar(NULL, NULL, path, (int32_t)sizeof path), -1);
    CHECK_EQ("download_avatar(\"\")", be_essence2_download_avatar("", NULL, path, (int32_t)sizeof path), -1);
    CHECK_EQ("download_avatar(path_out NULL, capacity 8)", be_essence2_download_avatar("grace", directory, NULL, 8), -1);
    CHECK_EQ("download_avatar(capacity -1)", be_essence2_download_avatar("grace", directory, path, -1), -1);
    unsetenv("ESSENCE2_SERVICE_URL");
    unsetenv("ESSENCE2_METERING_URL");
    unsetenv("ESSENCE2_API_SECRET");
    unsetenv("BITHUMAN_API_SECRET");
    CHECK_EQ("download_avatar without a service", be_essence2_download_avatar("grace", directory, path, (int32_t)sizeof path), -2);
    CHECK(strstr(last_error_text(), "no service") != NULL, "expected 'no service', got '%s'", last_error_text());
    CHECK_EQ("set_service_url(closed port)", be_essence2_set_service_url("http://127.0.0.1:9"), 0);
    CHECK_EQ("download_avatar without a secret", be_essence2_download_avatar("grace", directory, path, (int32_t)sizeof path), -3);
    char why[512] = "";
    be_essence2_last_refusal(why, (int32_t)sizeof why);
    CHECK(strstr(why, "no API secret") != NULL, "last_refusal: expected 'no API secret', got '%s'", why);
    CHECK_EQ("set_api_secret(\"test-secret\")", be_essence2_set_api_secret("test-secret"), 0);
    CHECK_EQ("download_avatar, no answer, nothing cached",
             be_essence2_download_avatar("grace", directory, path, (int32_t)sizeof path), -2);
    CHECK(strstr(last_error_text(), "did not answer") != NULL || strstr(last_error_text(), "libcurl") != NULL,
          "expected 'did not answer' (or libcurl missing), got '%s'", last_error_text());
    CHECK_EQ("set_service_url(NULL)", be_essence2_set_service_url(NULL), 0);
    CHECK_EQ("set_api_secret(NULL)", be_essence2_set_api_secret(NULL), 0);
    rmdir(directory);
done:;
}

void test_short_buffers_negative_counts_and_bad_modes_are_refused(void) {
    struct fixture f;
    int16_t *big = NULL;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 0);
    big = calloc((size_t)RING + 1, sizeof *big);
    REQUIRE(big, "out of memory");
    /* a frame is there to take (none taken yet), so the refusals below are about the arguments */
    double deadline = now_s() + 10.0;
    while (be_essence2_frames_available(f.h) <= 0 && now_s() < deadline) sleep_ms(1);
    REQUIRE(be_essence2_frames_available(f.h) > 0, "no frame available within 10 s");

    CHECK_EQ("pull_frame(capacity one byte short)", be_essence2_pull_frame(f.h, f.frame, f.bytes - 1), -1);
    CHECK_EQ("idle_frame(capacity one byte short)", be_essence2_idle_frame(f.h, f.frame, f.bytes - 1), -1);
    CHECK_EQ("pull_frame(capacity 0)", be_essence2_pull_frame(f.h, f.frame, 0), -1);
    CHECK_EQ("pull_frame(capacity -1)", be_essence2_pull_frame(f.h, f.frame, -1), -1);
    CHECK_EQ("pull_frame(NULL out)", be_essence2_pull_frame(f.h, NULL, f.bytes), -1);
    CHECK_EQ("idle_frame(NULL out)", be_essence2_idle_frame(f.h, NULL, f.bytes), -1);
    CHECK_EQ("last_frame_kind after refused pulls", be_essence2_last_frame_kind(f.h), -1);
    CHECK_EQ("pull_frame(exact capacity)", fixture_pull(&f, 5.0), f.bytes);

    CHECK_EQ("push_audio(count -1)", be_essence2_push_audio(f.h, big, -1), -1);
    CHECK_EQ("push_audio(count INT32_MIN)", be_essence2_push_audio(f.h, big, INT32_MIN), -1);
    CHECK_EQ("push_audio(count ring+1)", be_essence2_push_audio(f.h, big, RING + 1), -1);
    CHECK_EQ("push_audio(NULL, 640)", be_essence2_push_audio(f.h, NULL, SPF), -1);
    CHECK_EQ("push_audio(NULL, 0)", be_essence2_push_audio(f.h, NULL, 0), 0);
    CHECK_EQ("push_audio(samples, 0)", be_essence2_push_audio(f.h, big, 0), 0);

    int32_t gw = 0, gh = 0;
    CHECK_EQ("get_info(width NULL)", be_essence2_get_info(f.h, NULL, &gh), -1);
    CHECK_EQ("get_info(height NULL)", be_essence2_get_info(f.h, &gw, NULL), -1);
    CHECK_EQ("set_mode(2)", be_essence2_set_mode(f.h, 2), -2);
    CHECK_EQ("set_mode(-1)", be_essence2_set_mode(f.h, -1), -2);
    CHECK_EQ("set_pacing(3)", be_essence2_set_pacing(f.h, 3), -2);
    CHECK_EQ("set_pacing(-1)", be_essence2_set_pacing(f.h, -1), -2);
    CHECK_EQ("set_playout_position(-1)", be_essence2_set_playout_position(f.h, -1), -1);
    CHECK_EQ("set_playout_position(0)", be_essence2_set_playout_position(f.h, 0), 0);
    CHECK_EQ("set_playout_anchor(7)", be_essence2_set_playout_anchor(f.h, 7), 0);
    CHECK_EQ("set_playout_anchor(0)", be_essence2_set_playout_anchor(f.h, 0), 0);
    CHECK_EQ("set_lipsync(2)", be_essence2_set_lipsync(f.h, 2), -2);
    CHECK_EQ("set_lipsync(-1)", be_essence2_set_lipsync(f.h, -1), -2);
    CHECK_EQ("set_lipsync(INT32_MAX)", be_essence2_set_lipsync(f.h, INT32_MAX), -2);
    CHECK(be_essence2_last_error(NULL, 0) > 0, "last_error after set_lipsync(INT32_MAX): expected a reason");
    CHECK_EQ("set_lipsync(V1)", be_essence2_set_lipsync(f.h, BE_ESSENCE2_LIPSYNC_V1), 0);
    CHECK_EQ("set_lipsync(LEARNED)", be_essence2_set_lipsync(f.h, BE_ESSENCE2_LIPSYNC_LEARNED), 0);
    CHECK_EQ("set_seed(0)", be_essence2_set_seed(f.h, 0), 0);
    CHECK_EQ("set_seed(UINT64_MAX)", be_essence2_set_seed(f.h, UINT64_MAX), 0);
    CHECK_EQ("render_status(NULL reason, len 5)", be_essence2_render_status(f.h, NULL, 5, NULL),
             BE_ESSENCE2_ERR_STATUS_ARGUMENT);
    CHECK_EQ("render_status(NULL, 0, NULL)", be_essence2_render_status(f.h, NULL, 0, NULL), 0);
    CHECK_EQ("end_utterance without a reply", be_essence2_end_utterance(f.h), 0);
    CHECK_EQ("reset without a reply", be_essence2_reset(f.h), 0);
    /* the engine still works after all that */
    CHECK_EQ("pull_frame after the refusals", fixture_pull(&f, 5.0), f.bytes);
done:
    fixture_close(&f);
    free(big);
}

void test_fresh_engine_reports_no_frame_yet_and_is_healthy(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_REALTIME, 0, 0);
    NOTE("frame size %dx%d", f.w, f.ht);
    CHECK_EQ("last_frame_kind before any frame", be_essence2_last_frame_kind(f.h), -1);
    CHECK_EQ("last_frame_index before any frame", be_essence2_last_frame_index(f.h), -1);
    CHECK_EQ("pulled_speech_frames before any frame", be_essence2_pulled_speech_frames(f.h), 0);
    CHECK_EQ("skipped_frames", be_essence2_skipped_frames(f.h), 0);
    CHECK_EQ("reanchor_slots", be_essence2_reanchor_slots(f.h), 0);
    CHECK_EQ("anchor_slots", be_essence2_anchor_slots(f.h), 0);
    int32_t avail = be_essence2_frames_available(f.h);
    CHECK(avail >= 0, "frames_available: expected >= 0, got %d", avail);
    int32_t ready = be_essence2_is_ready(f.h);
    CHECK(ready == 0 || ready == 1, "is_ready: expected 0 or 1, got %d", ready);

    char reason[128];
    memset(reason, 'x', sizeof reason);
    int64_t failures = -7;
    CHECK_EQ("render_status (healthy)", be_essence2_render_status(f.h, reason, (int32_t)sizeof reason, &failures), 0);
    CHECK(reason[0] == '\0', "render_status: expected an empty reason when healthy, got \"%.*s\"", 40, reason);
    CHECK_EQ("render_status failures", failures, 0);

    double t0 = now_s();
    REQUIRE(fixture_ready(&f, 10.0), "is_ready never became 1 within 10 s");
    NOTE("ready after %.3f s", now_s() - t0);
    int32_t got = fixture_pull(&f, 2.0);
    CHECK_EQ("pull_frame on a ready engine (within 2 s)", got, f.bytes);
    CHECK_EQ("last_frame_kind of a frame between replies", be_essence2_last_frame_kind(f.h), KIND_IDLE);
    CHECK_EQ("last_frame_index of an idle frame", be_essence2_last_frame_index(f.h), -1);
    if (got == f.bytes) {
        /* a real picture: not one flat colour, not black or white */
        long sum = 0;
        uint8_t lo = 255, hi = 0;
        for (int32_t i = 0; i < f.bytes; i++) {
            sum += f.frame[i];
            if (f.frame[i] < lo) lo = f.frame[i];
            if (f.frame[i] > hi) hi = f.frame[i];
        }
        double mean = (double)sum / f.bytes;
        CHECK(mean > 10 && mean < 245 && hi - lo > 64, "frame: expected a portrait, got mean %.1f, range %d..%d",
              mean, lo, hi);
    }
    CHECK_EQ("idle_frame (within 2 s)", idle_wait(f.h, f.frame, f.bytes, 2.0), f.bytes);
    CHECK_EQ("last_frame_kind after idle_frame", be_essence2_last_frame_kind(f.h), KIND_IDLE);
done:
    fixture_close(&f);
}

void test_idle_frames_keep_moving_between_replies(void) {
    struct fixture f;
    uint8_t *b = NULL; /* the frame after f.frame; they swap after each comparison */
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 0);
    b = malloc((size_t)f.bytes);
    REQUIRE(b, "out of memory");
    REQUIRE(fixture_pull(&f, 10.0) == f.bytes, "no first frame within 10 s");
    int changed = 0, pairs = 0;
    double biggest = 0;
    for (int i = 0; i < 100; i++) { /* 4 s of video */
        REQUIRE(pull_wait(f.h, b, f.bytes, 5.0) == f.bytes, "no idle frame within 5 s (after %d)", i);
        CHECK_EQ("kind", be_essence2_last_frame_kind(f.h), KIND_IDLE);
        pairs++;
        if (memcmp(f.frame, b, (size_t)f.bytes) != 0) changed++;
        double d = max_block_diff(f.frame, b, f.w, f.ht);
        if (d > biggest) biggest = d;
        uint8_t *t = f.frame;
        f.frame = b;
        b = t;
    }
    NOTE("%d of %d consecutive idle frames differ; largest block change %.1f", changed, pairs, biggest);
    CHECK(changed * 3 >= pairs, "idle motion: expected at least a third of consecutive frames to differ, got %d of %d",
          changed, pairs);
done:
    fixture_close(&f);
    free(b);
}
