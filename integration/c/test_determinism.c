/*
 * test_determinism.c - ABI tests of determinism and modes: the same seed gives the same frames,
 * set_lipsync chooses the next reply's model, HEAD mode frames.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi_support.h"
#include "tests.h"

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

void test_unpaced_output_is_deterministic_for_a_seed(void) {
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

void test_set_lipsync_chooses_the_next_reply_model_and_a_running_reply_keeps_its_own(void) {
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

void test_head_mode_frames_are_square(void) {
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
