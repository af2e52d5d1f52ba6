/*
 * test_abi.c - tests of the C interface of libessence2 (include/essence2.h), from a C host's side.
 *
 * Usage: test_abi [--no-fork] [AVATAR.imx] [NAME-FILTER...]
 *   AVATAR defaults to avatars/grace-hopper.imx (run from the repository root). Each test runs in its own
 *   child process (see harness.h); filters select tests whose name contains them.
 * Output: one line per test, then "N passed, M failed"; exit status 1 when any test failed.
 * Built as build/test_abi and, under AddressSanitizer, build/test_abi_asan (see the Makefile and run.sh).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "essence2.h"
#include "harness.h"
#include "imx_edit.h"
#include "speech_synth.h"

#define SPF BE_ESSENCE2_SAMPLES_PER_FRAME
#define RING BE_ESSENCE2_RING_SAMPLES
#define KIND_IDLE BE_ESSENCE2_FRAME_IDLE
#define KIND_SPEECH BE_ESSENCE2_FRAME_SPEECH
#define KIND_RAMP BE_ESSENCE2_FRAME_RAMP

static const char *g_avatar = "avatars/grace-hopper.imx";

/* ---- helpers --------------------------------------------------------------------------------------- */

static int32_t frames_for(int64_t samples) { return (int32_t)((samples + SPF - 1) / SPF); }

static const char *last_error_text(void) {
    static char buf[1024];
    buf[0] = '\0';
    if (be_essence2_last_error(buf, (int32_t)sizeof buf) < 0) snprintf(buf, sizeof buf, "(last_error failed)");
    return buf;
}

/* Creates an engine on the test avatar with the given pacing and reports its frame size; NULL on failure. */
static be_essence2_handle open_engine_at(const char *file, int line, int32_t pacing, int32_t *w, int32_t *ht) {
    be_essence2_handle h = NULL;
    int32_t rc = be_essence2_create(g_avatar, NULL, 0, &h);
    if (rc != 0 || h == NULL) {
        harness_report(file, line, "be_essence2_create(%s) returned %d (%s): %s", g_avatar, rc,
                       be_essence2_strerror(rc), last_error_text());
        return NULL;
    }
    rc = be_essence2_set_pacing(h, pacing);
    if (rc != 0) harness_report(file, line, "set_pacing(%d): expected 0, got %d", pacing, rc);
    int32_t dw = 0, dh = 0;
    rc = be_essence2_get_info(h, &dw, &dh);
    if (rc != 0 || dw <= 0 || dh <= 0)
        harness_report(file, line, "get_info: expected 0 and a positive size, got %d (%dx%d)", rc, dw, dh);
    if (w) *w = dw;
    if (ht) *ht = dh;
    return h;
}
#define open_engine(pacing, w, ht) open_engine_at(__FILE__, __LINE__, (pacing), (w), (ht))

/* be_essence2_pull_frame or be_essence2_idle_frame. */
typedef int32_t (*frame_call)(be_essence2_handle h, uint8_t *out, int32_t capacity);

/* Calls `call` until it gives a frame, at most timeout_s; returns the bytes, 0 on timeout, or the negative code. */
static int32_t frame_wait(frame_call call, be_essence2_handle h, uint8_t *buf, int32_t cap, double timeout_s) {
    double deadline = now_s() + timeout_s;
    for (;;) {
        int32_t r = call(h, buf, cap);
        if (r != 0) return r;
        if (now_s() > deadline) return 0;
        sleep_ms(1);
    }
}

/* Pulls the next frame, waiting at most timeout_s; returns the bytes, 0 on timeout, or the negative code. */
#define pull_wait(h, buf, cap, timeout_s) frame_wait(be_essence2_pull_frame, (h), (buf), (cap), (timeout_s))
/* As pull_wait, for be_essence2_idle_frame(). */
#define idle_wait(h, buf, cap, timeout_s) frame_wait(be_essence2_idle_frame, (h), (buf), (cap), (timeout_s))

/* Waits (pulling frames, as a host shows idle frames) until is_ready() says 1; returns 1 when it did. */
static int wait_ready(be_essence2_handle h, uint8_t *buf, int32_t cap, double timeout_s) {
    double deadline = now_s() + timeout_s;
    while (now_s() < deadline) {
        if (be_essence2_is_ready(h) == 1) return 1;
        (void)be_essence2_pull_frame(h, buf, cap);
        sleep_ms(5);
    }
    return be_essence2_is_ready(h) == 1;
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t x = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        x ^= p[i];
        x *= 1099511628211ull;
    }
    return x;
}

/* Largest mean absolute difference per byte over 16x16-pixel blocks: where the picture changed most. */
static double max_block_diff(const uint8_t *a, const uint8_t *b, int32_t w, int32_t ht) {
    double worst = 0.0;
    for (int32_t by = 0; by < ht; by += 16) {
        for (int32_t bx = 0; bx < w; bx += 16) {
            long sum = 0, count = 0;
            for (int32_t y = by; y < by + 16 && y < ht; y++) {
                const uint8_t *pa = a + ((size_t)y * w + bx) * 3, *pb = b + ((size_t)y * w + bx) * 3;
                for (int32_t x = bx; x < bx + 16 && x < w; x++, pa += 3, pb += 3)
                    for (int c = 0; c < 3; c++, count++) sum += pa[c] > pb[c] ? pa[c] - pb[c] : pb[c] - pa[c];
            }
            double m = count ? (double)sum / (double)count : 0.0;
            if (m > worst) worst = m;
        }
    }
    return worst;
}

/* The kinds of the frames pulled during one reply, and what the frames showed. */
#define LOG_MAX 8192
struct reply_log {
    int32_t kinds[LOG_MAX];
    int64_t indices[LOG_MAX];
    int n;          /* frames pulled (kinds stored for the first LOG_MAX) */
    int speech;     /* SPEECH frames */
    int ramp;       /* RAMP frames */
    int bad_bytes;  /* pulls that returned a size other than a frame's */
    double seconds; /* wall time of the whole reply */
};

typedef void (*frame_cb)(void *ctx, const uint8_t *frame, int32_t bytes, int32_t kind);

/* Appends a compact form of the kinds ("I3 S25 R6 I1") to out. */
static void kinds_text(const struct reply_log *log, char *out, size_t len) {
    static const char letter[] = {'I', 'S', 'R'};
    size_t used = 0;
    out[0] = '\0';
    int n = log->n < LOG_MAX ? log->n : LOG_MAX;
    for (int i = 0; i < n && used + 16 < len;) {
        int j = i;
        while (j < n && log->kinds[j] == log->kinds[i]) j++;
        int32_t k = log->kinds[i];
        char l = (k >= 0 && k <= 2) ? letter[k] : '?';
        used += (size_t)snprintf(out + used, len - used, "%s%c%d", i ? " " : "", l, j - i);
        i = j;
    }
}

/* Records one pulled frame in the log; returns its kind. */
static int32_t log_frame(be_essence2_handle h, struct reply_log *log, const uint8_t *frame, int32_t got,
                         int32_t frame_bytes, frame_cb cb, void *ctx) {
    int32_t kind = be_essence2_last_frame_kind(h);
    if (log->n < LOG_MAX) {
        log->kinds[log->n] = kind;
        log->indices[log->n] = be_essence2_last_frame_index(h);
    }
    log->n++;
    if (kind == KIND_SPEECH) log->speech++;
    if (kind == KIND_RAMP) log->ramp++;
    if (got != frame_bytes) log->bad_bytes++;
    if (cb) cb(ctx, frame, got, kind);
    return kind;
}

/* ---- the fixture most tests start from ----------------------------------------------------------------- */

/* An engine on the test avatar, a buffer for one of its frames, a reply log and (when asked) test speech. */
struct fixture {
    be_essence2_handle h;
    int32_t w, ht, bytes; /* the frame size, and the bytes of one B,G,R frame */
    uint8_t *frame;       /* `bytes` bytes */
    int16_t *audio;       /* synth_speech_alloc(samples, seed), or NULL; fixture_close frees it */
    struct reply_log *log;
};

/* The first half of FIXTURE_OPEN: clears f, allocates the log and opens the engine; 1 when both are there. */
static int fixture_engine_at(const char *file, int line, struct fixture *f, int32_t pacing) {
    memset(f, 0, sizeof *f);
    f->log = calloc(1, sizeof *f->log);
    f->h = open_engine_at(file, line, pacing, &f->w, &f->ht);
    f->bytes = f->w * f->ht * 3;
    return f->h != NULL && f->log != NULL;
}
#define fixture_engine(f, pacing) fixture_engine_at(__FILE__, __LINE__, (f), (pacing))

/* The second half: the frame buffer and, when samples > 0, the speech; 1 when all was allocated. */
static int fixture_buffers(struct fixture *f, int32_t samples, uint32_t seed) {
    f->frame = malloc((size_t)f->bytes);
    if (samples > 0) f->audio = synth_speech_alloc(samples, seed);
    return f->frame != NULL && (samples <= 0 || f->audio != NULL);
}

/* Opens the fixture (no speech when samples is 0); on failure reports "no engine" or "out of memory" and
   goes to the test's `done:`, where fixture_close(f) must be (f is always cleared first). */
#define FIXTURE_OPEN(f, pacing, samples, seed)                                              \
    do {                                                                                    \
        REQUIRE(fixture_engine((f), (pacing)), "no engine");                                \
        REQUIRE(fixture_buffers((f), (samples), (seed)), "out of memory");                  \
    } while (0)

/* Destroys the engine (when f->h is not NULL), frees the rest and clears f: closing twice is harmless. */
static void fixture_close(struct fixture *f) {
    if (f->h) be_essence2_destroy(f->h);
    free(f->frame);
    free(f->audio);
    free(f->log);
    memset(f, 0, sizeof *f);
}

/* pull_wait into the fixture's buffer. */
static int32_t fixture_pull(struct fixture *f, double timeout_s) {
    return pull_wait(f->h, f->frame, f->bytes, timeout_s);
}

/* wait_ready on the fixture's engine. */
static int fixture_ready(struct fixture *f, double timeout_s) {
    return wait_ready(f->h, f->frame, f->bytes, timeout_s);
}

/*
 * A pull loop as hosts write them: pull_frame into the fixture's buffer, count what came, call on_frame for
 * each frame, sleep pause_ms after a call that gave no frame (after every call with PULL_PAUSE_ALWAYS).
 * A failed pull is reported ("<what>: <code>") and ends the test, or with PULL_COUNT_ERRORS only counted.
 * The counts go on across loops on the same puller.
 */
#define PULL_PAUSE_ALWAYS 1
#define PULL_COUNT_ERRORS 2
#define PULL_UNTIL_IDLE 4 /* stop at an IDLE frame once SPEECH frames came */

struct puller;
/* Called for each frame pulled (the counts include it, p->got is its size); nonzero stops the loop. */
typedef int (*pulled_fn)(struct puller *p, int32_t kind);

struct puller {
    struct fixture *f;
    double pause_ms;
    int flags;
    pulled_fn on_frame; /* or NULL */
    void *ctx;          /* for on_frame */
    const char *what;   /* names the call in a report; NULL: "pull_frame" */
    int32_t got;        /* what the last pull_frame returned */
    int frames, speech, errors;
    int stopped; /* the loop stopped (on_frame or PULL_UNTIL_IDLE), not the clock */
};

/* One pull and its pause: 1 when the loop should stop, 0 to go on, -1 when the pull failed (reported). */
static int pull_step_at(const char *file, int line, struct puller *p) {
    struct fixture *f = p->f;
    int stop = 0;
    p->got = be_essence2_pull_frame(f->h, f->frame, f->bytes);
    if (p->got < 0) {
        if (!(p->flags & PULL_COUNT_ERRORS)) {
            harness_report(file, line, "%s: %d", p->what ? p->what : "pull_frame", p->got);
            return -1;
        }
        p->errors++;
    } else if (p->got > 0) {
        int32_t kind = be_essence2_last_frame_kind(f->h);
        p->frames++;
        if (kind == KIND_SPEECH) p->speech++;
        if (p->on_frame && p->on_frame(p, kind)) stop = 1;
        if ((p->flags & PULL_UNTIL_IDLE) && kind == KIND_IDLE && p->speech > 0) stop = 1;
    }
    if (p->got <= 0 || (p->flags & PULL_PAUSE_ALWAYS)) sleep_ms(p->pause_ms);
    if (stop) p->stopped = 1;
    return stop;
}

/* Steps until the loop stops (p->stopped) or timeout_s passes; -1 when a pull failed (reported). */
static int pull_loop_at(const char *file, int line, struct puller *p, double timeout_s) {
    double deadline = now_s() + timeout_s;
    while (now_s() < deadline) {
        int r = pull_step_at(file, line, p);
        if (r != 0) return r;
    }
    return 0;
}

/* pull_step_at / pull_loop_at at the caller's line; a failed pull goes to the test's `done:`. */
#define PULL_STEP(p)                                                                        \
    do {                                                                                    \
        if (pull_step_at(__FILE__, __LINE__, (p)) < 0) goto done;                           \
    } while (0)
#define PULL_LOOP(p, timeout_s)                                                             \
    do {                                                                                    \
        if (pull_loop_at(__FILE__, __LINE__, (p), (timeout_s)) < 0) goto done;              \
    } while (0)

/* A puller that shows a paced reply as a host does: a pull every 5 ms until an IDLE frame follows the speech. */
static struct puller host_puller(struct fixture *f, pulled_fn on_frame, void *ctx) {
    struct puller p = {.f = f, .pause_ms = 5, .flags = PULL_PAUSE_ALWAYS | PULL_UNTIL_IDLE, .on_frame = on_frame,
                       .ctx = ctx};
    return p;
}

/*
 * A realtime reply shown by a host: waits until the engine is ready, pushes f's first n samples, ends the
 * utterance and pulls with `p` (see host_puller) for 10 s at most; `skipped0` gets skipped_frames as the
 * pulling began. A failure goes to the test's `done:`.
 */
#define SHOW_REALTIME_REPLY(f, n, p, skipped0)                                                \
    do {                                                                                      \
        REQUIRE(fixture_ready((f), 10.0), "not ready");                                       \
        REQUIRE(be_essence2_push_audio((f)->h, (f)->audio, (n)) == 0, "push");                \
        CHECK_EQ("end_utterance", be_essence2_end_utterance((f)->h), 0);                      \
        (skipped0) = be_essence2_skipped_frames((f)->h);                                      \
        PULL_LOOP((p), 10.0);                                                                 \
    } while (0)

/* Frames pulled within `seconds` (failed pulls ignored), sleeping pause_ms after every call. */
static int frames_within(struct fixture *f, double seconds, double pause_ms) {
    struct puller p = {.f = f, .pause_ms = pause_ms, .flags = PULL_PAUSE_ALWAYS | PULL_COUNT_ERRORS};
    (void)pull_loop_at(__FILE__, __LINE__, &p, seconds);
    return p.frames;
}

/* ---- replies ------------------------------------------------------------------------------------------- */

/*
 * One unpaced reply: pushes `n` samples (all-or-nothing pushes of at most a ring's worth; when the ring is
 * full, pulls frames and pushes again), calls end_utterance when `end` is set, then pulls until an IDLE
 * frame follows the reply's speech. Every pulled frame goes to the log (and to cb). Returns 1 when the
 * reply ended within timeout_s, else 0 (with a report).
 */
static int drive_reply_at(const char *file, int line, be_essence2_handle h, const int16_t *audio, int32_t n,
                          int end, uint8_t *frame, int32_t frame_bytes, struct reply_log *log, frame_cb cb,
                          void *ctx, double timeout_s) {
    memset(log, 0, sizeof *log);
    double t0 = now_s(), deadline = t0 + timeout_s;
    int saw_speech = 0;
    int32_t pushed = 0;
    while (pushed < n) {
        int32_t count = n - pushed < RING ? n - pushed : RING;
        int32_t rc = be_essence2_push_audio(h, audio + pushed, count);
        if (rc == 0) {
            pushed += count;
            continue;
        }
        if (rc != BE_ESSENCE2_ERR_FULL) {
            harness_report(file, line, "push_audio(%d samples): expected 0 or -2, got %d (%s)", count, rc,
                           last_error_text());
            return 0;
        }
        int32_t got = be_essence2_pull_frame(h, frame, frame_bytes);
        if (got < 0) {
            harness_report(file, line, "pull_frame while the ring was full: got %d", got);
            return 0;
        }
        if (got > 0 && log_frame(h, log, frame, got, frame_bytes, cb, ctx) == KIND_SPEECH) saw_speech = 1;
        if (got == 0) sleep_ms(1);
        if (now_s() > deadline) {
            harness_report(file, line, "the ring stayed full for %.1f s while frames were pulled", timeout_s);
            return 0;
        }
    }
    if (end) {
        int32_t rc = be_essence2_end_utterance(h);
        if (rc != 0) harness_report(file, line, "end_utterance: expected 0, got %d", rc);
    }
    for (;;) {
        int32_t got = be_essence2_pull_frame(h, frame, frame_bytes);
        if (got < 0) {
            harness_report(file, line, "pull_frame during the reply: got %d (%s)", got, last_error_text());
            return 0;
        }
        if (got > 0) {
            int32_t kind = log_frame(h, log, frame, got, frame_bytes, cb, ctx);
            if (kind == KIND_SPEECH) saw_speech = 1;
            if (saw_speech && kind == KIND_IDLE) break;
        } else {
            sleep_ms(1);
        }
        if (now_s() > deadline) {
            char seq[512];
            kinds_text(log, seq, sizeof seq);
            harness_report(file, line, "no IDLE frame after the reply's speech within %.0f s (%d samples); kinds: %s",
                           timeout_s, n, seq);
            return 0;
        }
    }
    log->seconds = now_s() - t0;
    if (log->bad_bytes)
        harness_report(file, line, "%d pulls returned a size other than the frame's %d bytes", log->bad_bytes,
                       frame_bytes);
    return 1;
}
/* drive_reply_at on the fixture's engine, buffer and log. */
#define drive_reply(f, audio, n, end, cb, ctx, timeout) \
    drive_reply_on((f), (f)->h, (audio), (n), (end), (cb), (ctx), (timeout))
/* The same on another engine `h` (with the fixture's buffer and log). */
#define drive_reply_on(f, h, audio, n, end, cb, ctx, timeout)                                                  \
    drive_reply_at(__FILE__, __LINE__, (h), (audio), (n), (end), (f)->frame, (f)->bytes, (f)->log, (cb), (ctx), \
                   (timeout))

/* Whether the logged kinds read IDLE* SPEECH+ RAMP+ IDLE (the last frame the first IDLE after speech). */
static int reply_shape_ok(const struct reply_log *log) {
    if (log->n > LOG_MAX || log->n < 3) return 0;
    int i = 0;
    while (i < log->n && log->kinds[i] == KIND_IDLE) i++;
    int s = i;
    while (i < log->n && log->kinds[i] == KIND_SPEECH) i++;
    if (i == s) return 0;
    int r = i;
    while (i < log->n && log->kinds[i] == KIND_RAMP) i++;
    if (i == r) return 0;
    return i == log->n - 1 && log->kinds[i] == KIND_IDLE;
}

#define CHECK_SHAPE(log)                                                                        \
    do {                                                                                        \
        if (!reply_shape_ok(log)) {                                                             \
            char seq_[512];                                                                     \
            kinds_text((log), seq_, sizeof seq_);                                               \
            harness_report(__FILE__, __LINE__, "kinds: expected IDLE* SPEECH+ RAMP+ IDLE, got %s", seq_); \
        }                                                                                       \
    } while (0)

/* ---- return values and arguments ------------------------------------------------------------------- */

static void test_version_and_strerror_are_static_strings(void) {
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
    EXPECT(be_essence2_render_status(h, reason, (int32_t)sizeof reason, &failures), -1);
    EXPECT(be_essence2_render_status(h, NULL, 0, NULL), -1);
    EXPECT(be_essence2_pulled_speech_frames(h), -1);
    EXPECT(be_essence2_set_playout_anchor(h, 1), -1);
    EXPECT(be_essence2_set_playout_position(h, 0), -1);
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

static void test_null_handle_is_refused_by_every_function(void) {
    check_unusable_handle(__FILE__, __LINE__, NULL, "NULL");
    CHECK_EQ("destroy(NULL)", be_essence2_destroy(NULL), 0);
}

static void test_unknown_handle_is_refused_by_every_function(void) {
    /* A readable block that never came from create: the library must not take it for an engine. */
    static uint64_t fake[64];
    memset(fake, 0xA5, sizeof fake);
    be_essence2_handle h = (be_essence2_handle)(void *)fake;
    check_unusable_handle(__FILE__, __LINE__, h, "unknown");
    CHECK_EQ("destroy(unknown handle)", be_essence2_destroy(h), -1);
    CHECK(be_essence2_last_error(NULL, 0) > 0, "last_error after destroy(unknown handle): expected a reason");
}

static void test_destroyed_handle_is_refused_and_double_destroy_fails(void) {
    int32_t w, ht;
    be_essence2_handle h = open_engine(BE_ESSENCE2_PACING_UNPACED, &w, &ht);
    if (!h) return;
    CHECK_EQ("destroy(live handle)", be_essence2_destroy(h), 0);
    check_unusable_handle(__FILE__, __LINE__, h, "destroyed");
    CHECK_EQ("destroy(destroyed handle)", be_essence2_destroy(h), -1);
}

static void test_create_rejects_bad_arguments_and_sets_out_to_null(void) {
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

static void test_last_error_and_last_refusal_follow_their_contract(void) {
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

static void test_api_secret_set_and_clear_and_sessions_still_start(void) {
    CHECK_EQ("set_api_secret(\"test-secret\")", be_essence2_set_api_secret("test-secret"), 0);
    be_essence2_handle h = NULL;
    int32_t rc = be_essence2_create(g_avatar, NULL, 0, &h);
    CHECK(rc == 0, "create with a secret and no metering service: expected 0, got %d (%s)", rc, last_error_text());
    if (rc == 0) be_essence2_destroy(h);
    CHECK_EQ("set_api_secret(NULL)", be_essence2_set_api_secret(NULL), 0);
}

static void test_configured_metering_without_client_refuses_with_a_reason(void) {
    /* this build has no metering client: a configured service must refuse sessions, not run unmetered */
    char why[256] = "";
    CHECK_EQ("last_refusal before any refusal", be_essence2_last_refusal(why, (int32_t)sizeof why), 0);
    REQUIRE(setenv("ESSENCE2_METERING_URL", "https://metering.invalid/v1", 1) == 0, "setenv");
    be_essence2_handle h = (be_essence2_handle)(uintptr_t)0x1;
    CHECK_EQ("create with a metering service configured", be_essence2_create(g_avatar, NULL, 0, &h), -3);
    CHECK(h == NULL, "refused create: expected *out == NULL");
    int32_t len = be_essence2_last_refusal(why, (int32_t)sizeof why);
    CHECK(len > 0 && strstr(why, "metering") != NULL, "last_refusal: expected a sentence naming metering, got %d '%s'",
          len, why);
    REQUIRE(unsetenv("ESSENCE2_METERING_URL") == 0, "unsetenv");
    h = NULL;
    CHECK_EQ("create without a metering service", be_essence2_create(g_avatar, NULL, 0, &h), 0);
    if (h) be_essence2_destroy(h);
done:;
}

static void test_short_buffers_negative_counts_and_bad_modes_are_refused(void) {
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
    CHECK_EQ("set_pacing(2)", be_essence2_set_pacing(f.h, 2), -2);
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
    CHECK_EQ("render_status(NULL reason, len 5)", be_essence2_render_status(f.h, NULL, 5, NULL), -1);
    CHECK_EQ("render_status(NULL, 0, NULL)", be_essence2_render_status(f.h, NULL, 0, NULL), 0);
    CHECK_EQ("end_utterance without a reply", be_essence2_end_utterance(f.h), 0);
    CHECK_EQ("reset without a reply", be_essence2_reset(f.h), 0);
    /* the engine still works after all that */
    CHECK_EQ("pull_frame after the refusals", fixture_pull(&f, 5.0), f.bytes);
done:
    fixture_close(&f);
    free(big);
}

static void test_fresh_engine_reports_no_frame_yet_and_is_healthy(void) {
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

static void test_idle_frames_keep_moving_between_replies(void) {
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

/* ---- avatar files ----------------------------------------------------------------------------------- */

/* create on `path` must fail with -2, *out NULL and a reason; the reason must contain `word` when given. */
static void expect_refused_avatar(const char *file, int line, const char *label, const char *path, const char *word) {
    be_essence2_handle sentinel = (be_essence2_handle)(void *)&sentinel, h = sentinel;
    int32_t rc = be_essence2_create(path, NULL, 0, &h);
    char reason[512];
    int32_t len = be_essence2_last_error(reason, (int32_t)sizeof reason);
    if (rc != BE_ESSENCE2_ERR_AVATAR) harness_report(file, line, "%s: create: expected -2, got %d", label, rc);
    if (h != NULL) harness_report(file, line, "%s: expected *out == NULL", label);
    if (len <= 0) harness_report(file, line, "%s: expected a reason from last_error, got length %d", label, len);
    if (len > 0 && word) {
        int found = 0;
        for (const char *p = reason; *p && !found; p++) found = strncasecmp(p, word, strlen(word)) == 0;
        if (!found) harness_report(file, line, "%s: expected the reason to mention \"%s\", got \"%s\"", label, word, reason);
    }
    if (len > 0) printf("    %-28s -> %s\n", label, reason);
    if (rc == 0 && h != NULL && h != sentinel) be_essence2_destroy(h);
}
#define EXPECT_REFUSED(label, path, word) expect_refused_avatar(__FILE__, __LINE__, (label), (path), (word))

/* Overwrites a section's stored bytes with zeros and re-seals its digest: only the content is wrong. */
static void zero_section(struct imx_file *f, const char *name) {
    uint8_t *e = imx_entry(f, name);
    if (!e) return;
    uint64_t off = imx_get_u64(e + IMX_ENTRY_OFF_OFFSET), len = imx_get_u64(e + IMX_ENTRY_OFF_STORED);
    if (off <= f->size && len <= f->size - off) memset(f->bytes + off, 0, (size_t)len);
    imx_reseal_section(f, e);
}

static void test_corrupt_avatar_files_are_refused_with_a_reason(void) {
    char dir[] = "/tmp/essence2-imx-XXXXXX", path[512];
    struct imx_file orig = {NULL, 0}, f = {NULL, 0};
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp failed");
    REQUIRE(imx_load(g_avatar, &orig) == 0, "cannot read %s", g_avatar);
    REQUIRE(orig.size > IMX_HEADER_SIZE + IMX_ENTRY_SIZE, "%s is too small (%zu bytes)", g_avatar, orig.size);
    REQUIRE(imx_table_digest_ok(&orig), "%s: the test's reading of docs/imx-format.md does not match the file "
            "(header digest differs)", g_avatar);
    uint8_t *image = imx_entry(&orig, "image");
    REQUIRE(image != NULL, "%s has no 'image' section", g_avatar);
    size_t image_entry = (size_t)(image - orig.bytes);
    uint64_t image_off = imx_get_u64(image + IMX_ENTRY_OFF_OFFSET), image_len = imx_get_u64(image + IMX_ENTRY_OFF_STORED);
    REQUIRE(image_len > 16 && image_off + image_len <= orig.size, "bad image section in %s", g_avatar);

    /* controls: an unchanged copy and a re-sealed unchanged copy load */
    snprintf(path, sizeof path, "%s/copy.imx", dir);
    REQUIRE(imx_save(&orig, orig.size, path) == 0, "cannot write %s", path);
    be_essence2_handle h = NULL;
    int32_t rc = be_essence2_create(path, NULL, 0, &h);
    CHECK(rc == 0, "control: an exact copy must load, got %d (%s)", rc, last_error_text());
    if (rc == 0) be_essence2_destroy(h);

#define CASE(label, word, edit)                                      \
    do {                                                             \
        f = imx_copy(&orig);                                         \
        size_t size_ = f.size;                                       \
        edit;                                                        \
        snprintf(path, sizeof path, "%s/case.imx", dir);             \
        if (imx_save(&f, size_, path) != 0) {                        \
            CHECK(0, "cannot write %s", path);                       \
        } else {                                                     \
            EXPECT_REFUSED(label, path, word);                       \
        }                                                            \
        free(f.bytes);                                               \
        f.bytes = NULL;                                              \
    } while (0)

    snprintf(path, sizeof path, "%s/missing.imx", dir);
    EXPECT_REFUSED("missing", path, NULL);
    EXPECT_REFUSED("a directory", dir, NULL);
    CASE("empty", NULL, size_ = 0);
    CASE("truncated in the magic", NULL, size_ = 4);
    CASE("truncated in the header", NULL, size_ = 40);
    CASE("truncated in the table", NULL, size_ = IMX_HEADER_SIZE + IMX_ENTRY_SIZE / 2);
    CASE("truncated to half", NULL, size_ = orig.size / 2);
    CASE("truncated by one byte", NULL, size_ = orig.size - 1);
    CASE("one byte appended", NULL, (f.bytes[orig.size] = 0, size_ = orig.size + 1));
    CASE("wrong magic", NULL, f.bytes[1] = 'J');
    CASE("garbage in the table", "checksum", memset(f.bytes + IMX_HEADER_SIZE + 20, 0x5A, 24));
    CASE("all bytes garbage", NULL, for (size_t i = 0; i < f.size; i++) f.bytes[i] = (uint8_t)(i * 131 + 7));
    CASE("checksum: image byte flipped", "checksum", f.bytes[image_off + image_len / 2] ^= 0x01);
    CASE("checksum: header byte changed", "checksum", f.bytes[IMX_OFF_WIDTH] ^= 0x01);
    CASE("version 2 (re-sealed)", "version", (imx_put_u32(f.bytes + IMX_OFF_VERSION, 2), imx_reseal_table(&f)));
    CASE("version 0 (re-sealed)", "version", (imx_put_u32(f.bytes + IMX_OFF_VERSION, 0), imx_reseal_table(&f)));
    CASE("version 0xFFFFFFFF", "version", imx_put_u32(f.bytes + IMX_OFF_VERSION, 0xFFFFFFFFu));
    CASE("absurd file size (re-sealed)", NULL,
         (imx_put_u64(f.bytes + IMX_OFF_FILE_SIZE, UINT64_MAX / 2), imx_reseal_table(&f)));
    CASE("absurd section count", NULL, (imx_put_u32(f.bytes + IMX_OFF_SECTIONS, 0xFFFFFFF0u), imx_reseal_table(&f)));
    CASE("absurd width (re-sealed)", NULL, (imx_put_u32(f.bytes + IMX_OFF_WIDTH, 0x7FFFFFFFu), imx_reseal_table(&f)));
    CASE("absurd height (re-sealed)", NULL, (imx_put_u32(f.bytes + IMX_OFF_HEIGHT, 0xFFFFFFFFu), imx_reseal_table(&f)));
    CASE("zero width (re-sealed)", NULL, (imx_put_u32(f.bytes + IMX_OFF_WIDTH, 0), imx_reseal_table(&f)));
    CASE("absurd section length (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_LENGTH, 1ull << 40), imx_reseal_table(&f)));
    CASE("absurd stored length (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_STORED, UINT64_MAX - 8), imx_reseal_table(&f)));
    CASE("absurd section offset (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_OFFSET, UINT64_MAX - 100), imx_reseal_table(&f)));
    /* payload corrupted and its digest re-sealed: the content check must still refuse a bad decode */
    CASE("image length off by one (re-sealed)", NULL,
         (imx_put_u64(f.bytes + image_entry + IMX_ENTRY_OFF_LENGTH,
                      imx_get_u64(f.bytes + image_entry + IMX_ENTRY_OFF_LENGTH) + 1),
          imx_reseal_table(&f)));
    CASE("section renamed (re-sealed)", NULL, (f.bytes[image_entry] = 'J', imx_reseal_table(&f)));
    CASE("manifest zeroed (re-sealed)", NULL, zero_section(&f, "manifest"));
    CASE("landmarks zeroed (re-sealed)", NULL, zero_section(&f, "landmarks"));
    CASE("mesh zeroed (re-sealed)", NULL, zero_section(&f, "mesh"));
#undef CASE

    /* after all these refusals the good file still loads */
    h = NULL;
    rc = be_essence2_create(g_avatar, NULL, 0, &h);
    CHECK(rc == 0, "the original avatar must still load, got %d", rc);
    if (rc == 0) be_essence2_destroy(h);
done:
    free(orig.bytes);
    free(f.bytes);
    if (dir[strlen(dir) - 1] != 'X') {
        snprintf(path, sizeof path, "%s/copy.imx", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/case.imx", dir);
        unlink(path);
        rmdir(dir);
    }
}

/* ---- audio, frames, replies ------------------------------------------------------------------------- */

static void test_ring_full_returns_minus2_and_queues_nothing(void) {
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

static void test_unpaced_speech_frames_equal_ceil_samples_over_640(void) {
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

static void test_unpaced_first_speech_frame_needs_at_most_0_2_s_of_audio(void) {
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

static void test_reply_kinds_read_idle_speech_ramp_idle(void) {
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

static void test_reset_mid_reply_ramps_from_the_last_frame_shown(void) {
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

static void test_reset_while_idle_does_nothing(void) {
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

static void test_end_utterance_ends_at_once_silence_ends_after_0_6_s(void) {
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

static void test_realtime_tight_loop_gets_at_most_25_frames_a_second(void) {
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
            (void)be_essence2_pull_frame(f.h, f.frame, f.bytes);
        }
    }
    NOTE("frames_available said 0 %d times, and a frame came anyway %d times (a frame may fall due in between)",
         checks, lies);
    CHECK(lies <= 13, "frames_available said 0 but pull_frame returned a frame %d times in 0.5 s", lies);
done:
    fixture_close(&f);
}

static void test_realtime_caller_sleeping_40ms_gets_a_frame_each_call(void) {
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

static void test_ramp_straight_into_new_speech_is_two_replies(void) {
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

static void test_set_mode_during_a_reply_loses_no_frame(void) {
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

static void test_realtime_stalls_catch_up_at_most_2_frames_and_long_ones_reanchor(void) {
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

static void test_realtime_reply_skips_late_frames_and_stays_on_its_audio(void) {
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

static void test_playout_position_skips_frames_already_heard(void) {
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

static void test_playout_anchor_starts_a_reply_at_the_live_audio_position(void) {
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

static void test_engines_are_independent(void) {
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

/* ---- threads and lifecycle ---------------------------------------------------------------------------- */

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

static void test_four_pushers_and_one_puller_share_a_handle(void) {
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
            ok = rc == 0 || rc == -1;
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

static void test_random_calls_from_two_threads_get_documented_results(void) {
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

static void test_create_destroy_cycles_do_not_grow_memory(void) {
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

static void test_quiesce_all_stops_eight_live_engines(void) {
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

/* ---- determinism and modes -------------------------------------------------------------------------- */

struct hash_log {
    uint64_t hashes[LOG_MAX];
    int32_t kinds[LOG_MAX];
    int n;
    int lead_idle; /* IDLE frames handed out before the reply's first frame */
};

static void on_frame_hash(void *ctx, const uint8_t *frame, int32_t bytes, int32_t kind) {
    struct hash_log *l = ctx;
    if (kind == KIND_IDLE && l->n == 0) l->lead_idle++;
    if (kind == KIND_IDLE || l->n >= LOG_MAX) return; /* the reply's frames: SPEECH and RAMP */
    l->hashes[l->n] = fnv1a(frame, (size_t)bytes);
    l->kinds[l->n] = kind;
    l->n++;
}

static void test_unpaced_output_is_deterministic_for_a_seed(void) {
    struct fixture f; /* engine 1 */
    int32_t w2 = 0, ht2 = 0;
    struct hash_log *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    /* two engines alive together; the second waits idle while the first renders */
    int have_1 = fixture_engine(&f, BE_ESSENCE2_PACING_UNPACED);
    be_essence2_handle h2 = open_engine(BE_ESSENCE2_PACING_UNPACED, &w2, &ht2);
    REQUIRE(have_1 && h2 && a && b, "no engines");
    REQUIRE(f.w == w2 && f.ht == ht2, "sizes differ");
    CHECK_EQ("set_seed", be_essence2_set_seed(f.h, 1234), 0);
    CHECK_EQ("set_seed", be_essence2_set_seed(h2, 1234), 0);
    const int32_t n = 2 * 16000 + 321;
    REQUIRE(fixture_buffers(&f, n, 99), "out of memory");
    REQUIRE(drive_reply(&f, f.audio, n, 1, on_frame_hash, a, 30.0), "reply 1");
    sleep_ms(300);
    REQUIRE(drive_reply_on(&f, h2, f.audio, n, 1, on_frame_hash, b, 30.0), "reply 2");
    CHECK_EQ("reply frames (speech + ramp), engine 1 vs 2", b->n, a->n);
    int first_diff = -1;
    for (int i = 0; i < a->n && i < b->n; i++)
        if (a->hashes[i] != b->hashes[i] || a->kinds[i] != b->kinds[i]) {
            first_diff = i;
            break;
        }
    CHECK(first_diff < 0, "same seed and audio: frame %d of the reply differs between the two engines "
          "(of %d frames)", first_diff, a->n);
    NOTE("%d reply frames compared; idle frames before the reply: %d and %d", a->n, a->lead_idle, b->lead_idle);
done:
    fixture_close(&f);
    if (h2) be_essence2_destroy(h2);
    free(a);
    free(b);
}

/* Index of the first reply frame where two hash logs differ; -1 when they are the same. */
static int first_hash_diff(const struct hash_log *a, const struct hash_log *b) {
    for (int i = 0; i < a->n && i < b->n; i++)
        if (a->hashes[i] != b->hashes[i] || a->kinds[i] != b->kinds[i]) return i;
    return a->n == b->n ? -1 : (a->n < b->n ? a->n : b->n);
}

static void test_set_lipsync_chooses_the_next_reply_model_and_a_running_reply_keeps_its_own(void) {
    struct fixture f; /* engine 1 */
    int32_t w2 = 0, ht2 = 0, w3 = 0, ht3 = 0;
    struct hash_log *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    struct hash_log *c = calloc(1, sizeof *c), *d = calloc(1, sizeof *d), *e = calloc(1, sizeof *e);
    int have_1 = fixture_engine(&f, BE_ESSENCE2_PACING_UNPACED);
    be_essence2_handle h2 = open_engine(BE_ESSENCE2_PACING_UNPACED, &w2, &ht2);
    be_essence2_handle h3 = open_engine(BE_ESSENCE2_PACING_UNPACED, &w3, &ht3);
    REQUIRE(have_1 && h2 && h3 && a && b && c && d && e, "no engines");
    REQUIRE(f.w == w2 && f.ht == ht2 && f.w == w3 && f.ht == ht3, "sizes differ");
    CHECK_EQ("set_seed", be_essence2_set_seed(f.h, 77), 0);
    CHECK_EQ("set_seed", be_essence2_set_seed(h2, 77), 0);
    CHECK_EQ("set_seed", be_essence2_set_seed(h3, 77), 0);
    const int32_t n = 2 * 16000 + 99;
    REQUIRE(fixture_buffers(&f, n, 5), "out of memory");

    /* engine 1: a V1 reply. Engine 2: LEARNED then V1 (the last setting wins), the reply's audio queued,
       then LEARNED again while that reply runs: the reply keeps V1, so its frames equal engine 1's. */
    CHECK_EQ("set_lipsync(V1)", be_essence2_set_lipsync(f.h, BE_ESSENCE2_LIPSYNC_V1), 0);
    REQUIRE(drive_reply(&f, f.audio, n, 1, on_frame_hash, a, 30.0), "V1 reply, engine 1");
    CHECK_EQ("set_lipsync(LEARNED)", be_essence2_set_lipsync(h2, BE_ESSENCE2_LIPSYNC_LEARNED), 0);
    CHECK_EQ("set_lipsync(V1)", be_essence2_set_lipsync(h2, BE_ESSENCE2_LIPSYNC_V1), 0);
    REQUIRE(be_essence2_push_audio(h2, f.audio, n) == 0, "push");
    CHECK_EQ("set_lipsync(LEARNED) mid-reply", be_essence2_set_lipsync(h2, BE_ESSENCE2_LIPSYNC_LEARNED), 0);
    REQUIRE(drive_reply_on(&f, h2, f.audio, 0, 1, on_frame_hash, b, 30.0), "V1 reply, engine 2");
    CHECK_EQ("reply frames, engine 1 vs 2", b->n, a->n);
    int diff = first_hash_diff(a, b);
    CHECK(diff < 0, "a reply started under V1 changed at frame %d of %d after set_lipsync(LEARNED)", diff, a->n);

    /* the next replies: engines 1 and 2 on LEARNED now agree with each other; engine 3 stays on V1 */
    CHECK_EQ("set_lipsync(LEARNED)", be_essence2_set_lipsync(f.h, BE_ESSENCE2_LIPSYNC_LEARNED), 0);
    REQUIRE(drive_reply(&f, f.audio, n, 1, on_frame_hash, c, 30.0), "LEARNED reply, engine 1");
    REQUIRE(drive_reply_on(&f, h2, f.audio, n, 1, on_frame_hash, d, 30.0), "LEARNED reply, engine 2");
    CHECK_EQ("LEARNED reply frames, engine 1 vs 2", d->n, c->n);
    diff = first_hash_diff(c, d);
    CHECK(diff < 0, "LEARNED replies of two engines differ at frame %d of %d", diff, c->n);
    CHECK_EQ("set_lipsync(V1)", be_essence2_set_lipsync(h3, BE_ESSENCE2_LIPSYNC_V1), 0);
    REQUIRE(drive_reply_on(&f, h3, f.audio, n, 1, NULL, NULL, 30.0), "V1 reply, engine 3");
    REQUIRE(drive_reply_on(&f, h3, f.audio, n, 1, on_frame_hash, e, 30.0), "second V1 reply, engine 3");
    CHECK_EQ("second reply frames, LEARNED vs V1", e->n, c->n);
    int differing = 0;
    for (int i = 0; i < c->n && i < e->n; i++) differing += c->hashes[i] != e->hashes[i];
    NOTE("%d frames in the second reply; %d of them differ between LEARNED and V1", c->n, differing);
    CHECK(differing > 0, "the LEARNED and the V1 reply of the same audio are identical: the switch did nothing");
done:
    fixture_close(&f);
    if (h2) be_essence2_destroy(h2);
    if (h3) be_essence2_destroy(h3);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

static void test_head_mode_frames_are_square(void) {
    struct fixture f;
    int32_t hw = 0, hh = 0, fw = 0, fh = 0;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 0);
    REQUIRE(fixture_pull(&f, 10.0) == f.bytes, "no FULL frame");
    CHECK_EQ("set_mode(HEAD)", be_essence2_set_mode(f.h, BE_ESSENCE2_MODE_HEAD), 0);
    CHECK_EQ("get_info in HEAD mode", be_essence2_get_info(f.h, &hw, &hh), 0);
    NOTE("FULL %dx%d, HEAD %dx%d", f.w, f.ht, hw, hh);
    CHECK(hw == hh && hw > 0, "HEAD mode: expected a square, got %dx%d", hw, hh);
    CHECK(hw <= f.w && hh <= f.ht, "HEAD mode: expected a crop inside %dx%d, got %dx%d", f.w, f.ht, hw, hh);
    if (hw > 0 && hh > 0 && hw <= f.w && hh <= f.ht) {
        int32_t hb = hw * hh * 3;
        uint8_t *head = malloc((size_t)hb); /* exact size: AddressSanitizer catches an overflow */
        if (head) {
            CHECK_EQ("pull_frame(HEAD, one byte short)", be_essence2_pull_frame(f.h, head, hb - 1), -1);
            for (int i = 0; i < 3; i++)
                CHECK_EQ("pull_frame in HEAD mode returns a HEAD frame", pull_wait(f.h, head, hb, 5.0), hb);
            free(head);
        }
    }
    CHECK_EQ("set_mode(FULL)", be_essence2_set_mode(f.h, BE_ESSENCE2_MODE_FULL), 0);
    CHECK_EQ("get_info in FULL mode", be_essence2_get_info(f.h, &fw, &fh), 0);
    CHECK(fw == f.w && fh == f.ht, "FULL mode again: expected %dx%d, got %dx%d", f.w, f.ht, fw, fh);
    CHECK_EQ("pull_frame in FULL mode again", fixture_pull(&f, 5.0), f.bytes);
done:
    fixture_close(&f);
}

/* ---- main ------------------------------------------------------------------------------------------- */

static const struct test_case tests[] = {
    {"version_and_strerror_are_static_strings", test_version_and_strerror_are_static_strings, 10},
    {"null_handle_is_refused_by_every_function", test_null_handle_is_refused_by_every_function, 10},
    {"unknown_handle_is_refused_by_every_function", test_unknown_handle_is_refused_by_every_function, 10},
    {"destroyed_handle_is_refused_and_double_destroy_fails", test_destroyed_handle_is_refused_and_double_destroy_fails, 20},
    {"create_rejects_bad_arguments_and_sets_out_to_null", test_create_rejects_bad_arguments_and_sets_out_to_null, 20},
    {"last_error_and_last_refusal_follow_their_contract", test_last_error_and_last_refusal_follow_their_contract, 20},
    {"api_secret_set_and_clear_and_sessions_still_start", test_api_secret_set_and_clear_and_sessions_still_start, 20},
    {"configured_metering_without_client_refuses_with_a_reason", test_configured_metering_without_client_refuses_with_a_reason, 20},
    {"short_buffers_negative_counts_and_bad_modes_are_refused", test_short_buffers_negative_counts_and_bad_modes_are_refused, 30},
    {"fresh_engine_reports_no_frame_yet_and_is_healthy", test_fresh_engine_reports_no_frame_yet_and_is_healthy, 30},
    {"idle_frames_keep_moving_between_replies", test_idle_frames_keep_moving_between_replies, 60},
    {"corrupt_avatar_files_are_refused_with_a_reason", test_corrupt_avatar_files_are_refused_with_a_reason, 60},
    {"ring_full_returns_minus2_and_queues_nothing", test_ring_full_returns_minus2_and_queues_nothing, 120},
    {"unpaced_speech_frames_equal_ceil_samples_over_640", test_unpaced_speech_frames_equal_ceil_samples_over_640, 120},
    {"unpaced_first_speech_frame_needs_at_most_0_2_s_of_audio", test_unpaced_first_speech_frame_needs_at_most_0_2_s_of_audio, 30},
    {"reply_kinds_read_idle_speech_ramp_idle", test_reply_kinds_read_idle_speech_ramp_idle, 90},
    {"reset_mid_reply_ramps_from_the_last_frame_shown", test_reset_mid_reply_ramps_from_the_last_frame_shown, 60},
    {"reset_while_idle_does_nothing", test_reset_while_idle_does_nothing, 30},
    {"end_utterance_ends_at_once_silence_ends_after_0_6_s", test_end_utterance_ends_at_once_silence_ends_after_0_6_s, 60},
    {"realtime_tight_loop_gets_at_most_25_frames_a_second", test_realtime_tight_loop_gets_at_most_25_frames_a_second, 30},
    {"realtime_caller_sleeping_40ms_gets_a_frame_each_call", test_realtime_caller_sleeping_40ms_gets_a_frame_each_call, 30},
    {"ramp_straight_into_new_speech_is_two_replies", test_ramp_straight_into_new_speech_is_two_replies, 60},
    {"set_mode_during_a_reply_loses_no_frame", test_set_mode_during_a_reply_loses_no_frame, 60},
    {"realtime_stalls_catch_up_at_most_2_frames_and_long_ones_reanchor", test_realtime_stalls_catch_up_at_most_2_frames_and_long_ones_reanchor, 30},
    {"realtime_reply_skips_late_frames_and_stays_on_its_audio", test_realtime_reply_skips_late_frames_and_stays_on_its_audio, 30},
    {"playout_position_skips_frames_already_heard", test_playout_position_skips_frames_already_heard, 30},
    {"playout_anchor_starts_a_reply_at_the_live_audio_position", test_playout_anchor_starts_a_reply_at_the_live_audio_position, 30},
    {"engines_are_independent", test_engines_are_independent, 30},
    {"four_pushers_and_one_puller_share_a_handle", test_four_pushers_and_one_puller_share_a_handle, 120},
    {"random_calls_from_two_threads_get_documented_results", test_random_calls_from_two_threads_get_documented_results, 120},
    {"create_destroy_cycles_do_not_grow_memory", test_create_destroy_cycles_do_not_grow_memory, 120},
    {"quiesce_all_stops_eight_live_engines", test_quiesce_all_stops_eight_live_engines, 60},
    {"unpaced_output_is_deterministic_for_a_seed", test_unpaced_output_is_deterministic_for_a_seed, 90},
    {"set_lipsync_chooses_the_next_reply_model_and_a_running_reply_keeps_its_own",
     test_set_lipsync_chooses_the_next_reply_model_and_a_running_reply_keeps_its_own, 120},
    {"head_mode_frames_are_square", test_head_mode_frames_are_square, 30},
};

int main(int argc, char **argv) {
    int fork_each = 1, first_filter = argc;
    int a = 1;
    if (a < argc && strcmp(argv[a], "--no-fork") == 0) {
        fork_each = 0;
        a++;
    }
    if (a < argc) {
        struct stat st;
        if (strstr(argv[a], ".imx") || stat(argv[a], &st) == 0) {
            g_avatar = argv[a];
            a++;
        }
    }
    first_filter = a;
    struct stat st;
    if (stat(g_avatar, &st) != 0) {
        fprintf(stderr, "test_abi: avatar %s not found (usage: test_abi [--no-fork] [AVATAR.imx] [FILTER...])\n",
                g_avatar);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("test_abi: libessence2 %s, avatar %s\n", be_essence2_version(), g_avatar);
    return harness_main(tests, sizeof tests / sizeof tests[0], fork_each, argv + first_filter, argc - first_filter);
}
