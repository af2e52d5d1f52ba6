/*
 * abi_support.c - the helpers and the fixture the ABI tests share (declared, and described, in
 * abi_support.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_support.h"
#include "speech_synth.h"

const char *g_avatar = "avatars/grace-hopper.imx";

/* ---- helpers --------------------------------------------------------------------------------------- */

int32_t frames_for(int64_t samples) { return (int32_t)((samples + SPF - 1) / SPF); }

const char *last_error_text(void) {
    static char buf[1024];
    buf[0] = '\0';
    if (be_essence2_last_error(buf, (int32_t)sizeof buf) < 0) snprintf(buf, sizeof buf, "(last_error failed)");
    return buf;
}

be_essence2_handle open_engine_at(const char *file, int line, int32_t pacing, int32_t *w, int32_t *ht) {
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

int32_t frame_wait(frame_call call, be_essence2_handle h, uint8_t *buf, int32_t cap, double timeout_s) {
    double deadline = now_s() + timeout_s;
    for (;;) {
        int32_t r = call(h, buf, cap);
        if (r != 0) return r;
        if (now_s() > deadline) return 0;
        sleep_ms(1);
    }
}

int wait_ready(be_essence2_handle h, uint8_t *buf, int32_t cap, double timeout_s) {
    double deadline = now_s() + timeout_s;
    while (now_s() < deadline) {
        if (be_essence2_is_ready(h) == 1) return 1;
        if (be_essence2_pull_frame(h, buf, cap) < 0) break;
        sleep_ms(5);
    }
    return be_essence2_is_ready(h) == 1;
}

uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t x = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        x ^= p[i];
        x *= 1099511628211ull;
    }
    return x;
}

double max_block_diff(const uint8_t *a, const uint8_t *b, int32_t w, int32_t ht) {
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

void kinds_text(const struct reply_log *log, char *out, size_t len) {
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

int32_t log_frame(be_essence2_handle h, struct reply_log *log, const uint8_t *frame, int32_t got,
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

int fixture_engine_at(const char *file, int line, struct fixture *f, int32_t pacing) {
    memset(f, 0, sizeof *f);
    f->log = calloc(1, sizeof *f->log);
    f->h = open_engine_at(file, line, pacing, &f->w, &f->ht);
    f->bytes = f->w * f->ht * 3;
    return f->h != NULL && f->log != NULL;
}

int fixture_buffers(struct fixture *f, int32_t samples, uint32_t seed) {
    f->frame = malloc((size_t)f->bytes);
    if (samples > 0) f->audio = synth_speech_alloc(samples, seed);
    return f->frame != NULL && (samples <= 0 || f->audio != NULL);
}

void fixture_close(struct fixture *f) {
    if (f->h) be_essence2_destroy(f->h);
    free(f->frame);
    free(f->audio);
    free(f->log);
    memset(f, 0, sizeof *f);
}

int32_t fixture_pull(struct fixture *f, double timeout_s) {
    return pull_wait(f->h, f->frame, f->bytes, timeout_s);
}

int fixture_ready(struct fixture *f, double timeout_s) {
    return wait_ready(f->h, f->frame, f->bytes, timeout_s);
}

int pull_step_at(const char *file, int line, struct puller *p) {
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

int pull_loop_at(const char *file, int line, struct puller *p, double timeout_s) {
    double deadline = now_s() + timeout_s;
    while (now_s() < deadline) {
        int r = pull_step_at(file, line, p);
        if (r != 0) return r;
    }
    return 0;
}

struct puller host_puller(struct fixture *f, pulled_fn on_frame, void *ctx) {
    struct puller p = {.f = f, .pause_ms = 5, .flags = PULL_PAUSE_ALWAYS | PULL_UNTIL_IDLE, .on_frame = on_frame,
                       .ctx = ctx};
    return p;
}

int frames_within(struct fixture *f, double seconds, double pause_ms) {
    struct puller p = {.f = f, .pause_ms = pause_ms, .flags = PULL_PAUSE_ALWAYS | PULL_COUNT_ERRORS};
    (void)pull_loop_at(__FILE__, __LINE__, &p, seconds);
    return p.frames;
}

/* ---- replies ------------------------------------------------------------------------------------------- */

int drive_reply_at(const char *file, int line, be_essence2_handle h, const int16_t *audio, int32_t n,
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

int reply_shape_ok(const struct reply_log *log) {
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
