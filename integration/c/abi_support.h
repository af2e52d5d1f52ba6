/*
 * abi_support.h - what the ABI tests share: the test avatar, engines and frames, reply logs, the fixture
 * most tests start from, pull loops and unpaced replies (the code is in abi_support.c).
 *
 * The macros that report a failure (open_engine, fixture_engine, FIXTURE_OPEN, PULL_STEP, PULL_LOOP,
 * SHOW_REALTIME_REPLY, drive_reply, drive_reply_on, CHECK_SHAPE) pass the caller's __FILE__ and __LINE__;
 * those that end in REQUIRE or `goto done` need a `done:` label in the test.
 */
#ifndef ESSENCE2_TEST_ABI_SUPPORT_H
#define ESSENCE2_TEST_ABI_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "essence2.h"
#include "harness.h"

#define SPF BE_ESSENCE2_SAMPLES_PER_FRAME
#define RING BE_ESSENCE2_RING_SAMPLES
#define KIND_IDLE BE_ESSENCE2_FRAME_IDLE
#define KIND_SPEECH BE_ESSENCE2_FRAME_SPEECH
#define KIND_RAMP BE_ESSENCE2_FRAME_RAMP

/* The test avatar: avatars/grace-hopper.imx unless main() was given another one. */
extern const char *g_avatar;

/* ---- helpers --------------------------------------------------------------------------------------- */

/* The frames of `samples` samples of speech: ceil(samples / 640). */
int32_t frames_for(int64_t samples);

/* be_essence2_last_error() of this thread as a string (in a static buffer), for reports. */
const char *last_error_text(void);

/* Creates an engine on the test avatar with the given pacing and reports its frame size; NULL on failure. */
be_essence2_handle open_engine_at(const char *file, int line, int32_t pacing, int32_t *w, int32_t *ht);
#define open_engine(pacing, w, ht) open_engine_at(__FILE__, __LINE__, (pacing), (w), (ht))

/* be_essence2_pull_frame or be_essence2_idle_frame. */
typedef int32_t (*frame_call)(be_essence2_handle h, uint8_t *out, int32_t capacity);

/* Calls `call` until it gives a frame, at most timeout_s; returns the bytes, 0 on timeout, or the negative code. */
int32_t frame_wait(frame_call call, be_essence2_handle h, uint8_t *buf, int32_t cap, double timeout_s);

/* Pulls the next frame, waiting at most timeout_s; returns the bytes, 0 on timeout, or the negative code. */
#define pull_wait(h, buf, cap, timeout_s) frame_wait(be_essence2_pull_frame, (h), (buf), (cap), (timeout_s))
/* As pull_wait, for be_essence2_idle_frame(). */
#define idle_wait(h, buf, cap, timeout_s) frame_wait(be_essence2_idle_frame, (h), (buf), (cap), (timeout_s))

/* Waits (pulling frames, as a host shows idle frames) until is_ready() says 1; returns 1 when it did. */
int wait_ready(be_essence2_handle h, uint8_t *buf, int32_t cap, double timeout_s);

/* FNV-1a hash of n bytes (to compare frames). */
uint64_t fnv1a(const uint8_t *p, size_t n);

/* Largest mean absolute difference per byte over 16x16-pixel blocks: where the picture changed most. */
double max_block_diff(const uint8_t *a, const uint8_t *b, int32_t w, int32_t ht);

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
void kinds_text(const struct reply_log *log, char *out, size_t len);

/* Records one pulled frame in the log; returns its kind. */
int32_t log_frame(be_essence2_handle h, struct reply_log *log, const uint8_t *frame, int32_t got,
                  int32_t frame_bytes, frame_cb cb, void *ctx);

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
int fixture_engine_at(const char *file, int line, struct fixture *f, int32_t pacing);
#define fixture_engine(f, pacing) fixture_engine_at(__FILE__, __LINE__, (f), (pacing))

/* The second half: the frame buffer and, when samples > 0, the speech; 1 when all was allocated. */
int fixture_buffers(struct fixture *f, int32_t samples, uint32_t seed);

/* Opens the fixture (no speech when samples is 0); on failure reports "no engine" or "out of memory" and
   goes to the test's `done:`, where fixture_close(f) must be (f is always cleared first). */
#define FIXTURE_OPEN(f, pacing, samples, seed)                                              \
    do {                                                                                    \
        REQUIRE(fixture_engine((f), (pacing)), "no engine");                                \
        REQUIRE(fixture_buffers((f), (samples), (seed)), "out of memory");                  \
    } while (0)

/* Destroys the engine (when f->h is not NULL), frees the rest and clears f: closing twice is harmless. */
void fixture_close(struct fixture *f);

/* pull_wait into the fixture's buffer. */
int32_t fixture_pull(struct fixture *f, double timeout_s);

/* wait_ready on the fixture's engine. */
int fixture_ready(struct fixture *f, double timeout_s);

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
int pull_step_at(const char *file, int line, struct puller *p);

/* Steps until the loop stops (p->stopped) or timeout_s passes; -1 when a pull failed (reported). */
int pull_loop_at(const char *file, int line, struct puller *p, double timeout_s);

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
struct puller host_puller(struct fixture *f, pulled_fn on_frame, void *ctx);

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
int frames_within(struct fixture *f, double seconds, double pause_ms);

/* ---- replies ------------------------------------------------------------------------------------------- */

/*
 * One unpaced reply: pushes `n` samples (all-or-nothing pushes of at most a ring's worth; when the ring is
 * full, pulls frames and pushes again), calls end_utterance when `end` is set, then pulls until an IDLE
 * frame follows the reply's speech. Every pulled frame goes to the log (and to cb). Returns 1 when the
 * reply ended within timeout_s, else 0 (with a report).
 */
int drive_reply_at(const char *file, int line, be_essence2_handle h, const int16_t *audio, int32_t n, int end,
                   uint8_t *frame, int32_t frame_bytes, struct reply_log *log, frame_cb cb, void *ctx,
                   double timeout_s);
/* drive_reply_at on the fixture's engine, buffer and log. */
#define drive_reply(f, audio, n, end, cb, ctx, timeout) \
    drive_reply_on((f), (f)->h, (audio), (n), (end), (cb), (ctx), (timeout))
/* The same on another engine `h` (with the fixture's buffer and log). */
#define drive_reply_on(f, h, audio, n, end, cb, ctx, timeout)                                                  \
    drive_reply_at(__FILE__, __LINE__, (h), (audio), (n), (end), (f)->frame, (f)->bytes, (f)->log, (cb), (ctx), \
                   (timeout))

/* Whether the logged kinds read IDLE* SPEECH+ RAMP+ IDLE (the last frame the first IDLE after speech). */
int reply_shape_ok(const struct reply_log *log);

#define CHECK_SHAPE(log)                                                                        \
    do {                                                                                        \
        if (!reply_shape_ok(log)) {                                                             \
            char seq_[512];                                                                     \
            kinds_text((log), seq_, sizeof seq_);                                               \
            harness_report(__FILE__, __LINE__, "kinds: expected IDLE* SPEECH+ RAMP+ IDLE, got %s", seq_); \
        }                                                                                       \
    } while (0)

#endif /* ESSENCE2_TEST_ABI_SUPPORT_H */
