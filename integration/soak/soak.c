/*
 * soak.c - the soak test of libessence2 (`make soak`, issue 25): many live Essence 2 engines at once for a
 * long time, each driven by its own host loop thread the way a real live host drives one, and checks that
 * nothing degrades: no skipped frames, resident memory flat, threads and file descriptors flat.
 *
 * Usage: soak [--seconds N] [--warmup N] [--small N] [--large N] [--seed N] SMALL.imx LARGE.imx SPEECH.wav...
 * SOAK_VERBOSE=1 in the environment adds a line for every skipped or late frame.
 *
 *   --small N engines open SMALL.imx (default 8; `make soak` builds it at 512x600), --large N engines open
 *   LARGE.imx (default 2; 1080x1920). SPEECH files are 16 kHz mono (libsndfile reads them); each reply plays
 *   one of them, chosen at random.
 *
 * Each engine thread (a host loop):
 *   - waits in poll() on be_essence2_frame_fd() and takes every frame that falls due with
 *     be_essence2_take_frame() (25 a second on the engine's monotonic clock), as a display would;
 *   - runs a random sequence of actions: replies (the clip pushed in 20 ms chunks at real-time pace on
 *     CLOCK_MONOTONIC, as a microphone or a TTS stream delivers it, then be_essence2_end_utterance(), until
 *     be_essence2_reply_counts() says the reply ended), interrupted replies (be_essence2_reset() part way
 *     through), idle stretches (2 to 8 s of idle frames) and, every 40 to 120 s, a destroy and a new create.
 *   The engines start 0.3 s apart.
 *
 * Skipped frames, checked for every engine life: be_essence2_skipped_frames() (reply frames skipped as late),
 * be_essence2_reanchor_slots() (slots dropped after a long stall), be_essence2_anchor_slots(), the sum of
 * be_essence2_frame_info.skipped (which must agree), gaps in be_essence2_frame_info.index, and the host's
 * own count of missed slots: frames received against the 25-a-second slots between an engine's first and last
 * frame (a short stall of 1 to 2 periods drops a slot that no counter of the library reports).
 *
 * Checkpoints: every 60 s of the run (and at the end of the warm-up, and at the end) the main thread asks the engine
 * threads to finish their current action and hold (alive, taking idle frames); once all hold and 1 s has
 * passed (so the render threads of destroyed engines are gone) it reads VmRSS (/proc/self/status: the lowest of
 * 20 readings over 2 s, as the engines' queues of rendered frames fill and drain), the threads (/proc/self/task)
 * and the open descriptors (/proc/self/fd), prints a line, and lets them go on. The first
 * checkpoint at the end of the warm-up (--warmup, default a tenth of the run, at most 300 s) is the baseline (those
 * before it are printed as "warm-up" and not compared): threads
 * and descriptors must equal it at every later checkpoint, and VmRSS at the end may exceed it by less than 5 MB.
 *
 * Exit status: 0 when every check passed, 1 on any failure (every failed call prints the library's reason),
 * 2 on bad usage.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <malloc.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sndfile.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "essence2.h"

#define CHUNK_SAMPLES 320         /* 20 ms at 16 kHz: what a live source delivers at a time */
#define PERIOD 0.040              /* one frame */
#define RSS_LIMIT_KB (5 * 1024)   /* resident memory drift allowed between the baseline and the end */
#define MAX_CLIPS 64
#define CHECKPOINT_EVERY 60.0

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the speech --------------------------------------------------------------------------------------- */

struct clip {
    const char *path;
    int16_t *samples;
    int32_t count;
};
static struct clip clips[MAX_CLIPS];
static int nclips;

static int read_clip(const char *path, struct clip *c) {
    SF_INFO info;
    memset(&info, 0, sizeof info);
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (!sf) {
        fprintf(stderr, "soak: cannot read %s: %s\n", path, sf_strerror(NULL));
        return -1;
    }
    if (info.samplerate != BE_ESSENCE2_SAMPLE_RATE || info.channels != 1 || info.frames <= 0 ||
        info.frames > 60 * BE_ESSENCE2_SAMPLE_RATE) {
        fprintf(stderr, "soak: %s: %d Hz, %d channel(s), %lld samples; the soak takes 16 kHz mono clips of 1 to 60 s\n",
                path, info.samplerate, info.channels, (long long)info.frames);
        sf_close(sf);
        return -1;
    }
    c->samples = malloc((size_t)info.frames * sizeof *c->samples);
    if (!c->samples) {
        fprintf(stderr, "soak: out of memory\n");
        sf_close(sf);
        return -1;
    }
    sf_count_t got = sf_readf_short(sf, c->samples, info.frames);
    sf_close(sf);
    if (got <= 0) {
        fprintf(stderr, "soak: %s: read error\n", path);
        return -1;
    }
    c->path = path;
    c->count = (int32_t)got;
    return 0;
}

/* ---- the process's figures ---------------------------------------------------------------------------- */

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - (strcmp(dir, "/proc/self/fd") == 0 ? 1 : 0); /* not the descriptor opendir itself holds */
}

static double cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

/* The whole machine's CPU time from /proc/stat's "cpu" line, in seconds: busy (user, nice, system, irq, softirq)
   and steal (taken by the hypervisor for other guests). A checkpoint's line shows them beside the soak's own, so
   a stretch of skipped frames can be told apart: the soak's work, another process, or a host that took the CPU. */
static void machine_cpu_s(double *busy, double *steal) {
    *busy = *steal = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (f == NULL) return;
    unsigned long long user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, st = 0;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait, &irq, &softirq,
               &st) == 8) {
        double tick = (double)sysconf(_SC_CLK_TCK);
        *busy = (double)(user + nice + sys + irq + softirq) / tick;
        *steal = (double)st / tick;
    }
    fclose(f);
}

/* ---- shared state ------------------------------------------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int checkpoint_wanted;   /* generation asked for by the main thread */
static int checkpoint_released; /* generation the engines may go on after */
static int holding;             /* engines holding at checkpoint_wanted */
static atomic_int done;         /* the run is over: engines stop after their hold */
static atomic_int failed;       /* any failure: everyone stops */
static int verbose;             /* SOAK_VERBOSE=1: a line for each skipped or late frame */
static double t_start;

struct engine {
    int index;
    const char *avatar;
    const char *size_name;
    uint64_t rng;
    be_essence2_handle h;
    int fd;
    int32_t width, height, frame_bytes;
    uint8_t *frame;
    be_essence2_frame_info info;
    /* this engine life */
    double life_first, life_last; /* times of its first and last frame; 0 before the first */
    int64_t life_frames, next_index, info_skipped;
    double next_recreate;
    /* totals over all lives (the live engine's counters added when it is destroyed); atomics for the
       main thread's periodic line */
    atomic_llong frames, speech_frames, replies, interrupts, idles, lives;
    atomic_llong skipped, reanchored, anchored, info_skipped_total, missed, index_gaps, late;
    atomic_llong live_skipped, live_missed; /* the live engine's figures so far (in the totals from its close) */
    double max_gap;
    int arrived; /* last checkpoint generation it held at */
};

static void report(struct engine *e, const char *what, int64_t code) {
    char reason[512] = "";
    be_essence2_last_error(reason, (int32_t)sizeof reason);
    fprintf(stderr, "soak: engine %d (%s): %s failed (%lld): %s\n", e->index, e->size_name, what, (long long)code,
            reason[0] ? reason : be_essence2_strerror((int32_t)code));
    atomic_store(&failed, 1);
}

__attribute__((format(printf, 2, 3))) static void failure(struct engine *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "soak: engine %d (%s): ", e->index, e->size_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    atomic_store(&failed, 1);
}

static uint64_t next_random(struct engine *e) { /* xorshift64* */
    e->rng ^= e->rng >> 12;
    e->rng ^= e->rng << 25;
    e->rng ^= e->rng >> 27;
    return e->rng * 2685821657736338717ULL;
}
static double uniform(struct engine *e, double lo, double hi) {
    return lo + (hi - lo) * (double)(next_random(e) >> 11) / 9007199254740992.0;
}

/* ---- one engine life ---------------------------------------------------------------------------------- */

static int open_engine(struct engine *e) {
    int32_t rc = be_essence2_create(e->avatar, NULL, 0, &e->h);
    if (rc != 0) {
        e->h = NULL;
        report(e, "be_essence2_create", rc);
        return -1;
    }
    int32_t w = 0, ht = 0;
    if ((rc = be_essence2_get_info(e->h, &w, &ht)) != 0) {
        report(e, "be_essence2_get_info", rc);
        return -1;
    }
    if (e->frame && (w != e->width || ht != e->height)) {
        failure(e, "be_essence2_get_info: the frame size changed across a recreate");
        return -1;
    }
    e->width = w;
    e->height = ht;
    e->frame_bytes = w * ht * 3;
    if (!e->frame && !(e->frame = malloc((size_t)e->frame_bytes))) {
        failure(e, "out of memory");
        return -1;
    }
    if ((e->fd = be_essence2_frame_fd(e->h)) < 0) {
        report(e, "be_essence2_frame_fd", e->fd);
        return -1;
    }
    e->life_first = e->life_last = 0;
    e->life_frames = e->next_index = e->info_skipped = 0;
    e->next_recreate = now_s() + uniform(e, 40, 120);
    atomic_fetch_add(&e->lives, 1);
    return 0;
}

/* Adds this life's counters to the totals and checks them; destroys the engine. */
static int close_engine(struct engine *e) {
    if (!e->h) return 0;
    int status = 0;
    int64_t skipped = be_essence2_skipped_frames(e->h);
    int64_t reanchored = be_essence2_reanchor_slots(e->h);
    int64_t anchored = be_essence2_anchor_slots(e->h);
    if (skipped < 0) report(e, "be_essence2_skipped_frames", skipped), status = -1;
    if (reanchored < 0) report(e, "be_essence2_reanchor_slots", reanchored), status = -1;
    if (anchored < 0) report(e, "be_essence2_anchor_slots", anchored), status = -1;
    char reason[512] = "";
    int64_t render_failures = 0;
    int32_t rc = be_essence2_render_status(e->h, reason, (int32_t)sizeof reason, &render_failures);
    if (rc != 0) {
        fprintf(stderr, "soak: engine %d (%s): %lld renders failed: %s\n", e->index, e->size_name,
                (long long)render_failures, reason);
        atomic_store(&failed, 1);
        status = -1;
    }
    if (status == 0) {
        atomic_fetch_add(&e->skipped, skipped);
        atomic_fetch_add(&e->reanchored, reanchored);
        atomic_fetch_add(&e->anchored, anchored);
        atomic_fetch_add(&e->info_skipped_total, e->info_skipped);
        if (e->info_skipped != skipped + anchored) {
            fprintf(stderr, "soak: engine %d (%s): the frame records count %lld skipped, the engine %lld\n", e->index,
                    e->size_name, (long long)e->info_skipped, (long long)(skipped + anchored));
            atomic_store(&failed, 1);
            status = -1;
        }
        if (e->life_frames > 0) {
            int64_t slots = llround((e->life_last - e->life_first) / PERIOD) + 1;
            if (slots > e->life_frames) atomic_fetch_add(&e->missed, slots - e->life_frames);
        }
    }
    atomic_store(&e->live_skipped, 0);
    atomic_store(&e->live_missed, 0);
    if ((rc = be_essence2_destroy(e->h)) != 0) report(e, "be_essence2_destroy", rc), status = -1;
    e->h = NULL;
    e->fd = -1;
    return status;
}

/* One turn of the host loop: waits (at most until `until`) for the frame fd, then takes every frame due. */
static int pump(struct engine *e, double until) {
    double now = now_s();
    int timeout_ms = (int)((until - now) * 1000.0 + 0.999);
    if (timeout_ms < 0) timeout_ms = 0;
    if (timeout_ms > 100) timeout_ms = 100;
    struct pollfd p = {.fd = e->fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) < 0 && errno != EINTR) {
        failure(e, "poll: %s", strerror(errno));
        return -1;
    }
    for (;;) {
        e->info.size = sizeof e->info;
        int32_t got = be_essence2_take_frame(e->h, e->frame, e->frame_bytes, &e->info);
        if (got < 0) {
            report(e, "be_essence2_take_frame", got);
            return -1;
        }
        if (got == 0) return 0;
        double t = now_s();
        if (got != e->frame_bytes) {
            failure(e, "be_essence2_take_frame wrote %d bytes, not %d", got, e->frame_bytes);
            return -1;
        }
        if (e->info.index != e->next_index) {
            atomic_fetch_add(&e->index_gaps, e->info.index > e->next_index ? e->info.index - e->next_index : 1);
        }
        e->next_index = e->info.index + 1;
        e->info_skipped += e->info.skipped;
        if (verbose && (e->info.skipped > 0 || (e->life_frames > 0 && t - e->life_last > 1.5 * PERIOD)))
            fprintf(stderr, "soak: %7.2f s engine %d (%s): frame %lld kind %d reply %lld frame %lld, %.0f ms after the one "
                    "before, %lld skipped before it\n", t - t_start, e->index, e->size_name, (long long)e->info.index,
                    e->info.kind, (long long)e->info.reply, (long long)e->info.reply_frame,
                    e->life_frames > 0 ? (t - e->life_last) * 1000 : 0.0, (long long)e->info.skipped);
        if (e->life_frames > 0) {
            double gap = t - e->life_last;
            if (gap > 1.5 * PERIOD) atomic_fetch_add(&e->late, 1);
            if (gap > e->max_gap) e->max_gap = gap;
        } else {
            e->life_first = t;
        }
        e->life_last = t;
        e->life_frames++;
        atomic_fetch_add(&e->frames, 1);
        if (e->info.kind == BE_ESSENCE2_FRAME_SPEECH) atomic_fetch_add(&e->speech_frames, 1);
        int64_t reanchored = be_essence2_reanchor_slots(e->h);
        if (reanchored < 0) {
            report(e, "be_essence2_reanchor_slots", reanchored);
            return -1;
        }
        int64_t slots = llround((e->life_last - e->life_first) / PERIOD) + 1;
        atomic_store(&e->live_skipped, e->info_skipped + reanchored);
        atomic_store(&e->live_missed, slots > e->life_frames ? slots - e->life_frames : 0);
    }
}

static int wait_ready(struct engine *e) {
    double give_up = now_s() + 60;
    while (!be_essence2_is_ready(e->h)) {
        if (now_s() > give_up) {
            failure(e, "not ready within 60 s of be_essence2_create");
            return -1;
        }
        if (pump(e, now_s() + 0.02) != 0) return -1;
    }
    return 0;
}

static int idle(struct engine *e, double seconds) {
    double end = now_s() + seconds;
    while (now_s() < end)
        if (pump(e, end) != 0 || atomic_load(&failed)) return -1;
    return 0;
}

/* A reply: `c` pushed at real-time pace; with interrupt_at >= 0, be_essence2_reset() once that many samples
   are pushed. Returns when the engine's count of ended replies grows. */
static int reply(struct engine *e, const struct clip *c, int32_t interrupt_at) {
    int64_t ended_before = 0, ended = 0;
    int32_t rc;
    if ((rc = be_essence2_reply_counts(e->h, NULL, &ended_before)) != 0) {
        report(e, "be_essence2_reply_counts", rc);
        return -1;
    }
    double start = now_s();
    double give_up = start + c->count / (double)BE_ESSENCE2_SAMPLE_RATE + 10.0;
    int32_t pushed = 0;
    int audio_done = 0;
    for (;;) {
        double now = now_s();
        while (!audio_done && now >= start + (double)pushed / BE_ESSENCE2_SAMPLE_RATE) {
            int32_t n = c->count - pushed < CHUNK_SAMPLES ? c->count - pushed : CHUNK_SAMPLES;
            rc = be_essence2_push_audio(e->h, c->samples + pushed, n);
            if (rc != 0) { /* -2 (ring full) cannot happen at real-time pace: a failure too */
                report(e, "be_essence2_push_audio", rc);
                return -1;
            }
            pushed += n;
            if (interrupt_at >= 0 && pushed >= interrupt_at) {
                if ((rc = be_essence2_reset(e->h)) != 0) {
                    report(e, "be_essence2_reset", rc);
                    return -1;
                }
                audio_done = 1;
            } else if (pushed == c->count) {
                if ((rc = be_essence2_end_utterance(e->h)) != 0) {
                    report(e, "be_essence2_end_utterance", rc);
                    return -1;
                }
                audio_done = 1;
            }
        }
        double next_chunk = audio_done ? now + 0.1 : start + (double)pushed / BE_ESSENCE2_SAMPLE_RATE;
        if (pump(e, next_chunk) != 0 || atomic_load(&failed)) return -1;
        if (audio_done) {
            if ((rc = be_essence2_reply_counts(e->h, NULL, &ended)) != 0) {
                report(e, "be_essence2_reply_counts", rc);
                return -1;
            }
            if (ended > ended_before) break;
        }
        if (now_s() > give_up) {
            failure(e, "the reply of %s did not end within %.0f s", c->path, give_up - start);
            return -1;
        }
    }
    atomic_fetch_add(interrupt_at >= 0 ? &e->interrupts : &e->replies, 1);
    return 0;
}

/* Holds at a checkpoint the main thread asked for: alive, taking idle frames, until it is released. */
static int hold(struct engine *e) {
    pthread_mutex_lock(&lock);
    int gen = checkpoint_wanted;
    if (gen == e->arrived) {
        pthread_mutex_unlock(&lock);
        return 0;
    }
    e->arrived = gen;
    holding++;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    for (;;) {
        pthread_mutex_lock(&lock);
        int released = checkpoint_released >= gen;
        pthread_mutex_unlock(&lock);
        if (released || atomic_load(&failed)) return 0;
        if (pump(e, now_s() + 0.1) != 0) return -1;
    }
}

static void *engine_main(void *arg) {
    struct engine *e = arg;
    /* Sessions start one after another, 0.3 s apart, as a host's users arrive, not all in the same instant
       (ten creates and warm-ups at once are a burst no live host makes). */
    usleep((useconds_t)e->index * 300000);
    if (open_engine(e) != 0 || wait_ready(e) != 0) goto out;
    while (!atomic_load(&failed)) {
        if (hold(e) != 0) break;
        if (atomic_load(&done)) break;
        double r = uniform(e, 0, 1);
        int rc;
        if (now_s() >= e->next_recreate) {
            double t = now_s();
            rc = close_engine(e);
            double t1 = now_s();
            if (rc == 0) rc = open_engine(e);
            double t2 = now_s();
            if (rc == 0) rc = wait_ready(e);
            if (verbose && rc == 0)
                fprintf(stderr, "soak: %7.2f s engine %d (%s): recreated: destroy %.0f ms, create %.0f ms, ready %.0f ms "
                        "later\n", t - t_start, e->index, e->size_name, (t1 - t) * 1000, (t2 - t1) * 1000,
                        (now_s() - t2) * 1000);
        } else if (r < 0.55) {
            rc = reply(e, &clips[next_random(e) % (uint64_t)nclips], -1);
        } else if (r < 0.75) {
            const struct clip *c = &clips[next_random(e) % (uint64_t)nclips];
            rc = reply(e, c, (int32_t)(c->count * uniform(e, 0.2, 0.8)));
        } else {
            rc = idle(e, uniform(e, 2, 8));
            if (rc == 0) atomic_fetch_add(&e->idles, 1);
        }
        if (rc != 0) break;
    }
out:
    close_engine(e);
    if (atomic_load(&failed)) { /* wake the main thread if it waits for this engine at a checkpoint */
        pthread_mutex_lock(&lock);
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

/* ---- the main thread ---------------------------------------------------------------------------------- */

struct sample {
    double t, cpu;
    double machine_busy, machine_steal; /* machine_cpu_s() */
    long rss, heap_kb; /* VmRSS; malloc's bytes in use (mallinfo2: in its arenas and mmapped), a diagnostic */
    int threads, fds;
};

static struct engine *engines;
static int nengines;

static long long total(size_t offset) {
    long long sum = 0;
    for (int i = 0; i < nengines; i++) sum += atomic_load((atomic_llong *)((char *)&engines[i] + offset));
    return sum;
}
#define TOTAL(field) total(offsetof(struct engine, field))

/* Asks every engine to hold, waits for all (at most 90 s), lets 2 s pass, samples, releases them. */
static int checkpoint(struct sample *s, double t0) {
    pthread_mutex_lock(&lock);
    checkpoint_wanted++;
    holding = 0;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 90;
    while (holding < nengines && !atomic_load(&failed))
        if (pthread_cond_timedwait(&changed, &lock, &deadline) == ETIMEDOUT) break;
    int all = holding == nengines;
    pthread_mutex_unlock(&lock);
    if (!all) {
        if (!atomic_load(&failed)) fprintf(stderr, "soak: the engines did not reach a checkpoint within 90 s\n");
        atomic_store(&failed, 1);
        return -1;
    }
    /* The render threads of destroyed engines end within a frame; the engines' queues of rendered frames
       (6 MB a frame at 1080x1920) fill and drain as frames are taken, so VmRSS is read 20 times over 2 s
       and its lowest value kept: the memory the process holds, not where a queue happened to stand. */
    usleep(1000000);
    long rss = -1;
    size_t heap = 0;
    for (int k = 0; k < 20; k++) {
        long r = rss_kb();
        if (rss < 0 || (r >= 0 && r < rss)) rss = r;
        struct mallinfo2 m = mallinfo2();
        if (k == 0 || m.uordblks + m.hblkhd < heap) heap = m.uordblks + m.hblkhd;
        usleep(100000);
    }
    s->t = now_s() - t0;
    s->cpu = cpu_s();
    machine_cpu_s(&s->machine_busy, &s->machine_steal);
    s->rss = rss;
    s->heap_kb = (long)(heap / 1024);
    s->threads = count_entries("/proc/self/task");
    s->fds = count_entries("/proc/self/fd");
    pthread_mutex_lock(&lock);
    checkpoint_released = checkpoint_wanted;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* Frames the library reports skipped or dropped: late reply frames, re-anchored slots, anchor slots. */
static long long skipped_now(void) {
    return TOTAL(skipped) + TOTAL(reanchored) + TOTAL(anchored) + TOTAL(live_skipped);
}
/* The host's own count: 25-a-second slots without a frame (they include the re-anchored ones), and gaps in
   be_essence2_frame_info.index. */
static long long missed_now(void) { return TOTAL(missed) + TOTAL(live_missed) + TOTAL(index_gaps); }

static void print_line(const char *label, const struct sample *s, const struct sample *prev) {
    double span = s->t - prev->t;
    double ours = span > 0 ? (s->cpu - prev->cpu) / span * 100.0 : 0.0;
    double others = span > 0 ? (s->machine_busy - prev->machine_busy) / span * 100.0 - ours : 0.0;
    double steal = span > 0 ? (s->machine_steal - prev->machine_steal) / span * 100.0 : 0.0;
    printf("soak: %-8s %6.0f s  frames %9lld  skipped %lld  missed %lld  rss %6.1f MB  threads %3d  fds %3d  cpu %4.0f%%"
           "  (other processes %.0f%%, steal %.1f%%; malloc in use %.1f MB)\n",
           label, s->t, TOTAL(frames), skipped_now(), missed_now(), s->rss / 1024.0, s->threads, s->fds, ours,
           others < 0 ? 0.0 : others, steal, s->heap_kb / 1024.0);
    fflush(stdout);
}

static void usage(void) {
    fprintf(stderr,
            "usage: soak [--seconds N] [--warmup N] [--small N] [--large N] [--seed N] [--leaks-only]\n"
            "            SMALL.imx LARGE.imx SPEECH.wav...\n"
            "  N live engines of SMALL.imx (8) and of LARGE.imx (2), each with its own host loop, for --seconds\n"
            "  (3600) of replies, interrupts, idle stretches and recreates; checks skipped frames, VmRSS drift\n"
            "  (< 5 MB after --warmup, default a tenth of the run, at most 300 s), threads and descriptors.\n"
            "  --leaks-only (make test's two minutes): skipped frames and VmRSS drift are printed, not judged (they\n"
            "  need the full run on an otherwise idle machine); judged are errors, threads and descriptors, and\n"
            "  malloc's bytes in use (< 5 MB drift).\n");
}

int main(int argc, char **argv) {
    double seconds = 3600, warmup = -1;
    int nsmall = 8, nlarge = 2, leaks_only = 0;
    unsigned long long seed = 1;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--leaks-only") == 0) {
            leaks_only = 1;
            i--;
            continue;
        }
        if (i + 1 >= argc) return usage(), 2;
        const char *v = argv[i + 1];
        if (strcmp(argv[i], "--seconds") == 0) seconds = atof(v);
        else if (strcmp(argv[i], "--warmup") == 0) warmup = atof(v);
        else if (strcmp(argv[i], "--small") == 0) nsmall = atoi(v);
        else if (strcmp(argv[i], "--large") == 0) nlarge = atoi(v);
        else if (strcmp(argv[i], "--seed") == 0) seed = strtoull(v, NULL, 10);
        else return usage(), 2;
    }
    if (argc - i < 3 || seconds < 10 || nsmall < 0 || nlarge < 0 || nsmall + nlarge < 1 || nsmall + nlarge > 64)
        return usage(), 2;
    if (warmup < 0) warmup = seconds / 10 < 300 ? seconds / 10 : 300;
    const char *small = argv[i], *large = argv[i + 1];
    for (i += 2; i < argc; i++) {
        if (nclips == MAX_CLIPS) {
            fprintf(stderr, "soak: at most %d speech clips\n", MAX_CLIPS);
            return 2;
        }
        if (read_clip(argv[i], &clips[nclips++]) != 0) return 1;
    }
    double speech_s = 0;
    for (int c = 0; c < nclips; c++) speech_s += clips[c].count / (double)BE_ESSENCE2_SAMPLE_RATE;

    nengines = nsmall + nlarge;
    engines = calloc((size_t)nengines, sizeof *engines);
    pthread_t *threads = calloc((size_t)nengines, sizeof *threads);
    if (!engines || !threads) {
        fprintf(stderr, "soak: out of memory\n");
        return 1;
    }
    struct sample start = {.t = 0, .cpu = cpu_s(), .rss = rss_kb(), .threads = count_entries("/proc/self/task"),
                           .fds = count_entries("/proc/self/fd")};
    machine_cpu_s(&start.machine_busy, &start.machine_steal);
    printf("soak: libessence2 %s: %d engines of %s and %d of %s, %.0f s (warm-up %.0f s), %d speech clips "
           "(%.0f s)\n",
           be_essence2_version(), nsmall, small, nlarge, large, seconds, warmup, nclips, speech_s);
    printf("soak: before the engines: rss %.1f MB, threads %d, fds %d\n", start.rss / 1024.0, start.threads, start.fds);
    fflush(stdout);
    double t0 = now_s();
    t_start = t0;
    const char *v = getenv("SOAK_VERBOSE");
    verbose = v && *v && strcmp(v, "0") != 0;
    int started = 0;
    for (int k = 0; k < nengines; k++) {
        struct engine *e = &engines[k];
        e->index = k;
        e->avatar = k < nsmall ? small : large;
        e->size_name = k < nsmall ? "small" : "large";
        e->rng = (seed * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)(k + 1) * 0xD1B54A32D192ED03ULL;
        if (e->rng == 0) e->rng = 1;
        e->fd = -1;
        if (pthread_create(&threads[k], NULL, engine_main, e) != 0) {
            fprintf(stderr, "soak: cannot start a thread\n");
            atomic_store(&failed, 1);
            break;
        }
        started++;
    }

    struct sample base = {0}, prev = start, last = {0};
    int have_base = 0, flat = 1;
    long rss_max = 0;
    double next_check = warmup < CHECKPOINT_EVERY ? warmup : CHECKPOINT_EVERY;
    while (!atomic_load(&failed)) {
        double target = next_check < seconds ? next_check : seconds;
        while (now_s() - t0 < target && !atomic_load(&failed)) usleep(200000);
        if (atomic_load(&failed)) break;
        int final = target >= seconds;
        struct sample s;
        if (checkpoint(&s, t0) != 0) break;
        int warming = !have_base && s.t < warmup - 1 && !final;
        const char *label = warming ? "warm-up" : !have_base ? "baseline" : final ? "end" : "check";
        print_line(label, &s, &prev);
        if (warming) {
            /* not compared: the engines are still settling */
        } else if (!have_base) {
            base = s;
            have_base = 1;
        } else if (s.threads != base.threads || s.fds != base.fds) {
            printf("soak: threads %d, fds %d at %.0f s: the baseline had %d and %d\n", s.threads, s.fds, s.t,
                   base.threads, base.fds);
            flat = 0;
        }
        if (s.rss > rss_max) rss_max = s.rss;
        prev = s;
        last = s;
        if (final) break;
        /* every 60 s of the run, and the end of the warm-up */
        next_check = floor(s.t / CHECKPOINT_EVERY) * CHECKPOINT_EVERY + CHECKPOINT_EVERY;
        if (!have_base && warmup > s.t && warmup < next_check) next_check = warmup;
        if (seconds - next_check < CHECKPOINT_EVERY / 2) next_check = seconds; /* no short last stretch */
    }
    atomic_store(&done, 1);
    pthread_mutex_lock(&lock);
    checkpoint_released = checkpoint_wanted;
    pthread_mutex_unlock(&lock);
    for (int k = 0; k < started; k++) pthread_join(threads[k], NULL);
    double wall = now_s() - t0;
    double cpu = cpu_s() - start.cpu;
    usleep(1000000); /* the render threads of the destroyed engines end by themselves */
    struct sample after = {.t = now_s() - t0, .rss = rss_kb(), .threads = count_entries("/proc/self/task"),
                           .fds = count_entries("/proc/self/fd")};

    printf("soak: summary after %.0f s: %d engines (%d at %dx%d, %d at %dx%d), %lld lives (%lld recreates), "
           "%lld replies, %lld interrupts, %lld idle stretches\n",
           wall, nengines, nsmall, nsmall ? engines[0].width : 0, nsmall ? engines[0].height : 0, nlarge,
           nlarge ? engines[nengines - 1].width : 0, nlarge ? engines[nengines - 1].height : 0, TOTAL(lives),
           TOTAL(lives) - nengines, TOTAL(replies), TOTAL(interrupts), TOTAL(idles));
    double max_gap = 0;
    for (int k = 0; k < nengines; k++)
        if (engines[k].max_gap > max_gap) max_gap = engines[k].max_gap;
    printf("soak: frames %lld (%lld speech); skipped %lld (reply frames late %lld, re-anchored slots %lld, "
           "anchor slots %lld); the host's count: slots without a frame %lld, index gaps %lld; frames over 60 ms "
           "after the one before %lld, longest gap %.0f ms\n",
           TOTAL(frames), TOTAL(speech_frames), skipped_now(), TOTAL(skipped), TOTAL(reanchored), TOTAL(anchored),
           TOTAL(missed), TOTAL(index_gaps), TOTAL(late), max_gap * 1000);
    printf("soak: cpu %.0f s in %.0f s (%.0f%% of one core, %ld cores online)\n", cpu, wall, cpu / wall * 100,
           sysconf(_SC_NPROCESSORS_ONLN));
    for (int k = 0; k < nengines; k++)
        printf("soak:   engine %d (%s %dx%d): %lld frames, %lld replies, %lld interrupts, %lld lives, skipped %lld, "
               "re-anchored %lld, missed %lld\n",
               k, engines[k].size_name, engines[k].width, engines[k].height, (long long)atomic_load(&engines[k].frames),
               (long long)atomic_load(&engines[k].replies), (long long)atomic_load(&engines[k].interrupts),
               (long long)atomic_load(&engines[k].lives), (long long)atomic_load(&engines[k].skipped),
               (long long)atomic_load(&engines[k].reanchored), (long long)atomic_load(&engines[k].missed));
    printf("soak: after destroying them all: rss %.1f MB, threads %d, fds %d\n", after.rss / 1024.0, after.threads,
           after.fds);

    int ok = !atomic_load(&failed);
    if (!have_base || last.t < seconds - 1) {
        printf("soak: FAIL: the run stopped at %.0f s of %.0f\n", wall, seconds);
        ok = 0;
    }
    long long skipped = skipped_now(), missed = missed_now();
    const char *judged_skips = skipped == 0 && missed == 0 ? "pass" : leaks_only ? "not judged" : "FAIL";
    printf("soak: %s: skipped frames %lld, slots without a frame %lld (none allowed)\n", judged_skips, skipped,
           missed);
    if ((skipped != 0 || missed != 0) && !leaks_only) ok = 0;
    if (have_base) {
        long drift = last.rss - base.rss;
        long heap_drift = last.heap_kb - base.heap_kb;
        int rss_ok = drift < RSS_LIMIT_KB || leaks_only;
        int heap_ok = heap_drift < RSS_LIMIT_KB;
        printf("soak: %s: resident memory %.1f MB at the baseline (%.0f s), %.1f MB at the end, drift %+.1f MB "
               "(under 5 MB), highest %.1f MB\n",
               drift < RSS_LIMIT_KB ? "pass" : leaks_only ? "not judged" : "FAIL", base.rss / 1024.0, base.t,
               last.rss / 1024.0, drift / 1024.0, rss_max / 1024.0);
        printf("soak: %s: malloc's bytes in use %.1f MB at the baseline, %.1f MB at the end, %+.1f MB (under 5 MB; VmRSS "
               "growth beyond it is memory malloc keeps, not memory the program holds)\n", heap_ok ? "pass" : "FAIL",
               base.heap_kb / 1024.0, last.heap_kb / 1024.0, heap_drift / 1024.0);
        printf("soak: %s: threads %d and fds %d at the baseline, %d and %d at the end, the same at every checkpoint\n",
               flat ? "pass" : "FAIL", base.threads, base.fds, last.threads, last.fds);
        if (!rss_ok || !heap_ok || !flat) ok = 0;
    }
    printf("soak: %s\n", ok ? "PASS" : "FAIL");
    for (int c = 0; c < nclips; c++) free(clips[c].samples);
    for (int k = 0; k < nengines; k++) free(engines[k].frame);
    free(engines);
    free(threads);
    return ok ? 0 : 1;
}
