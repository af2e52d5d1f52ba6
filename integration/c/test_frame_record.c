/*
 * test_frame_record.c - ABI tests of be_essence2_take_frame (1.3): the struct's layout, its size rule, and
 * what each record says about a reply taken unpaced: one index per frame handed out, the reply's number and
 * the frame's place in it, audio times 0, 0.04, ..., the frame's own samples equal to what was pushed, one
 * ends_reply per reply; audio-clock pacing, where speech frames follow the played position; and feeding audio
 * beyond the ring at any rate (be_essence2_feed_audio, _feed_float, _pending_samples).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_support.h"
#include "speech_synth.h"
#include "tests.h"

/* The layout the library writes is checked where the header is compiled into the library's own C module
   (Sources/Essence2/essence2_layout.c); here, the size a host compiles matches it. */
_Static_assert(sizeof(be_essence2_frame_info) == 1344, "be_essence2_frame_info is 1344 bytes in 1.3");

/* Takes the next frame with its record, waiting at most timeout_s; the bytes, 0 on timeout, or the code. */
static int32_t take_wait(struct fixture *f, be_essence2_frame_info *info, double timeout_s) {
    for (double waited = 0; waited < timeout_s; waited += 0.001) {
        info->size = sizeof *info;
        int32_t got = be_essence2_take_frame(f->h, f->frame, f->bytes, info);
        if (got != 0) return got;
        sleep_ms(1);
    }
    return 0;
}

void test_take_frame_refuses_bad_arguments_and_a_short_info(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 1);
    be_essence2_frame_info info;
    memset(&info, 0xAB, sizeof info);
    info.size = sizeof info;
    CHECK_EQ("take_frame(NULL handle)", be_essence2_take_frame(NULL, f.frame, f.bytes, &info), -1);
    CHECK_EQ("take_frame(NULL pixels)", be_essence2_take_frame(f.h, NULL, f.bytes, &info), -1);
    CHECK_EQ("take_frame(NULL info)", be_essence2_take_frame(f.h, f.frame, f.bytes, NULL), -1);
    CHECK_EQ("take_frame(capacity 0)", be_essence2_take_frame(f.h, f.frame, 0, &info), -1);
    CHECK_EQ("take_frame(capacity one byte short)", be_essence2_take_frame(f.h, f.frame, f.bytes - 1, &info), -1);
    info.size = (uint32_t)offsetof(be_essence2_frame_info, audio);
    CHECK_EQ("take_frame(info->size smaller than 1.3's)", be_essence2_take_frame(f.h, f.frame, f.bytes, &info), -1);
    CHECK(strstr(last_error_text(), "sizeof(be_essence2_frame_info)") != NULL,
          "the reason names sizeof(be_essence2_frame_info): \"%s\"", last_error_text());
    /* A caller compiled against a later, larger struct is fine: nothing past 1.3's fields is written. */
    struct {
        be_essence2_frame_info info;
        uint8_t later[64];
    } bigger;
    memset(&bigger, 0x5A, sizeof bigger);
    int32_t got = 0;
    for (int i = 0; i < 3000 && got == 0; i++) {
        bigger.info.size = sizeof bigger;
        got = be_essence2_take_frame(f.h, f.frame, f.bytes, &bigger.info);
        if (got == 0) sleep_ms(1);
    }
    CHECK_EQ("take_frame with a larger info: a frame", got, f.bytes);
    int untouched = 1;
    for (size_t i = 0; i < sizeof bigger.later; i++) untouched &= bigger.later[i] == 0x5A;
    CHECK(untouched, "bytes past the 1.3 struct were written");
    CHECK_EQ("an idle frame's kind", bigger.info.kind, KIND_IDLE);
    CHECK_EQ("an idle frame has no audio time", bigger.info.has_audio_time, 0);
done:
    fixture_close(&f);
}

void test_take_frame_records_a_reply_with_its_own_audio(void) {
    const int32_t samples = 16000 + 123; /* 26 frames, the last one partial (123 samples) */
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, samples, 91);
    be_essence2_frame_info info;
    /* frames before the reply are idle: index counts them */
    REQUIRE(take_wait(&f, &info, 10.0) == f.bytes, "no idle frame");
    CHECK_EQ("first frame's index", info.index, 0);
    CHECK_EQ("idle frame's reply", info.reply, 0);
    CHECK_EQ("idle frame's reply_frame", info.reply_frame, -1);
    CHECK_EQ("idle frame's audio_samples", info.audio_samples, 0);
    int64_t next_index = 1;

    for (int reply = 1; reply <= 2; reply++) {
        REQUIRE(be_essence2_push_audio(f.h, f.audio, samples) == 0, "push");
        REQUIRE(be_essence2_end_utterance(f.h) == 0, "end_utterance");
        int speech = 0, ramp = 0, ends = 0, audio_bad = 0, time_bad = 0;
        int64_t pushed_at = 0;
        for (int n = 0; n < 200; n++) {
            REQUIRE(take_wait(&f, &info, 10.0) == f.bytes, "no frame (reply %d, frame %d): %s", reply, n,
                    last_error_text());
            CHECK_EQ("index: frames handed out before", info.index, next_index);
            next_index++;
            CHECK_EQ("bytes", info.bytes, f.bytes);
            if (info.ends_reply) ends++;
            if (info.kind == KIND_IDLE) {
                CHECK_EQ("the idle frame after the reply ends it", info.ends_reply, 1);
                break;
            }
            CHECK_EQ("reply number", info.reply, reply);
            if (info.kind == KIND_SPEECH) {
                CHECK_EQ("speech reply_frame", info.reply_frame, speech);
                if (!info.has_audio_time || info.audio_time != speech * 0.04) time_bad++;
                int32_t want = samples - pushed_at < SPF ? samples - (int32_t)pushed_at : SPF;
                if (info.audio_samples != want || memcmp(info.audio, f.audio + pushed_at, (size_t)want * 2) != 0)
                    audio_bad++;
                for (int i = want; i < SPF; i++) audio_bad += info.audio[i] != 0;
                pushed_at += info.audio_samples;
                speech++;
            } else {
                CHECK_EQ("ramp frame has no audio time", info.has_audio_time, 0);
                CHECK_EQ("ramp frame's audio_samples", info.audio_samples, 0);
                CHECK_EQ("ramp frame's reply_frame", info.reply_frame, speech + ramp);
                ramp++;
            }
            CHECK_EQ("skipped (unpaced: none)", info.skipped, 0);
        }
        NOTE("reply %d: %d speech frames, %d ramp frames, %d ends_reply", reply, speech, ramp, ends);
        CHECK_EQ("speech frames", speech, frames_for(samples));
        CHECK_EQ("frames whose audio is not what was pushed", audio_bad, 0);
        CHECK_EQ("speech frames whose audio_time is not reply_frame * 0.04", time_bad, 0);
        CHECK_EQ("samples covered by the speech frames", pushed_at, samples);
        CHECK_EQ("ends_reply once per reply", ends, 1);
    }
done:
    fixture_close(&f);
}

void test_audio_clock_pacing_shows_speech_frames_on_the_played_position(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_AUDIO_CLOCK, 3 * 16000, 93);
    REQUIRE(fixture_ready(&f, 10.0), "not ready");
    REQUIRE(be_essence2_push_audio(f.h, f.audio, 3 * 16000) == 0, "push");
    REQUIRE(be_essence2_end_utterance(f.h) == 0, "end_utterance");
    be_essence2_frame_info info;
    int32_t got = 0;
    do {
        REQUIRE((got = take_wait(&f, &info, 10.0)) == f.bytes, "no frame");
    } while (info.kind != KIND_SPEECH);
    CHECK_EQ("the first speech frame comes at once", info.reply_frame, 0);
    /* Nothing played for 0.3 s (the card has not started): the wall clock does not move the reply on. */
    CHECK_EQ("set_playout_position(0)", be_essence2_set_playout_position(f.h, 0), 0);
    sleep_ms(300);
    info.size = sizeof info;
    got = be_essence2_take_frame(f.h, f.frame, f.bytes, &info);
    CHECK(got == 0, "a frame came before its audio was heard (kind %d, reply_frame %lld)", info.kind,
          (long long)info.reply_frame);
    /* 2.5 frames heard: frame 1's audio has wholly played (skipped), frame 2 is being heard. */
    CHECK_EQ("set_playout_position", be_essence2_set_playout_position(f.h, 2 * SPF + SPF / 2), 0);
    REQUIRE(take_wait(&f, &info, 2.0) == f.bytes, "no frame after the audio moved on");
    CHECK_EQ("the frame being heard", info.reply_frame, 2);
    CHECK_EQ("skipped before it: frame 1, whose audio had played", info.skipped, 1);
    CHECK_EQ("its audio time", (int)(info.audio_time * 1000 + 0.5), 80);
done:
    fixture_close(&f);
}

void test_feed_refuses_bad_arguments_with_a_reason(void) {
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 640, 3);
    float one = 0.5f;
    CHECK_EQ("feed_audio(NULL handle)", be_essence2_feed_audio(NULL, f.audio, 640, 16000), -1);
    CHECK_EQ("feed_audio(count -1)", be_essence2_feed_audio(f.h, f.audio, -1, 16000), -1);
    CHECK_EQ("feed_audio(NULL samples, count 640)", be_essence2_feed_audio(f.h, NULL, 640, 16000), -1);
    CHECK_EQ("feed_audio(NULL samples, count 0)", be_essence2_feed_audio(f.h, NULL, 0, 16000), 0);
    static const int32_t bad_rates[] = {0, -16000, 999, 384001, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < sizeof bad_rates / sizeof bad_rates[0]; i++) {
        CHECK_EQ("feed_audio(a rate out of range)", be_essence2_feed_audio(f.h, f.audio, 640, bad_rates[i]), -1);
        CHECK(strstr(last_error_text(), "sample_rate") != NULL, "the reason names sample_rate: \"%s\"", last_error_text());
        CHECK_EQ("feed_float(a rate out of range)", be_essence2_feed_float(f.h, &one, 1, bad_rates[i]), -1);
    }
    CHECK_EQ("pending_samples(NULL)", be_essence2_pending_samples(NULL), -1);
    CHECK_EQ("pending_samples after refused feeds", be_essence2_pending_samples(f.h), 0);
done:
    fixture_close(&f);
}

/* Takes frames until the idle frame after a reply; appends each speech frame's audio to `heard`. */
static int take_reply_audio(struct fixture *f, int16_t *heard, int64_t capacity, int64_t *count, int *speech) {
    be_essence2_frame_info info;
    int spoke = 0;
    for (int n = 0; n < 100000; n++) {
        if (take_wait(f, &info, 20.0) != f->bytes) return 0;
        if (info.kind == KIND_SPEECH) {
            spoke = 1;
            (*speech)++;
            if (*count + info.audio_samples <= capacity)
                memcpy(heard + *count, info.audio, (size_t)info.audio_samples * sizeof *heard);
            *count += info.audio_samples;
        } else if (spoke && info.kind == KIND_IDLE) {
            return 1;
        }
    }
    return 0;
}

void test_feed_takes_a_whole_reply_beyond_the_ring_and_frames_carry_it_back(void) {
    const int32_t samples = 40 * 16000 + 77; /* 40 s: 2.5 rings */
    struct fixture f;
    int16_t *heard = NULL;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, samples, 95);
    heard = malloc((size_t)samples * sizeof *heard);
    REQUIRE(heard != NULL, "out of memory");
    CHECK_EQ("push_audio of 40 s is refused (the ring holds 16 s)", be_essence2_push_audio(f.h, f.audio, samples), -1);
    CHECK_EQ("feed_audio of 40 s", be_essence2_feed_audio(f.h, f.audio, samples, 16000), 0);
    int64_t pending = be_essence2_pending_samples(f.h);
    NOTE("waiting beyond the ring after the feed: %lld samples", (long long)pending);
    CHECK(pending >= samples - RING, "pending_samples: expected at least %d, got %lld", samples - RING, (long long)pending);
    CHECK_EQ("end_utterance", be_essence2_end_utterance(f.h), 0);
    int64_t count = 0;
    int speech = 0;
    REQUIRE(take_reply_audio(&f, heard, samples, &count, &speech), "the reply did not end");
    CHECK_EQ("speech frames of the fed audio (one reply, the end after all of it)", speech, frames_for(samples));
    CHECK_EQ("samples carried by the frames", count, samples);
    CHECK(count == samples && memcmp(heard, f.audio, (size_t)samples * sizeof *heard) == 0,
          "the frames' audio is not the fed audio, in order");
    CHECK_EQ("pending_samples at the end", be_essence2_pending_samples(f.h), 0);
done:
    free(heard);
    fixture_close(&f);
}

void test_feed_float_at_48khz_is_resampled_once_by_the_library(void) {
    const int32_t seconds = 3, rate = 48000, n = seconds * rate;
    struct fixture f;
    float *tone = NULL;
    int16_t *heard = NULL;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, 0, 5);
    tone = malloc((size_t)n * sizeof *tone);
    heard = malloc((size_t)seconds * 16000 * 2 * sizeof *heard);
    REQUIRE(tone && heard, "out of memory");
    /* 440 Hz at half scale, fed in uneven pieces: the filter carries across calls */
    for (int32_t i = 0; i < n; i++) tone[i] = 0.5f * (float)sin(2 * 3.14159265358979 * 440.0 * i / rate);
    for (int32_t at = 0, piece = 1; at < n; at += piece, piece = piece * 3 % 4801 + 1) {
        int32_t len = n - at < piece ? n - at : piece;
        REQUIRE(be_essence2_feed_float(f.h, tone + at, len, rate) == 0, "feed_float: %s", last_error_text());
    }
    CHECK_EQ("end_utterance", be_essence2_end_utterance(f.h), 0);
    int64_t count = 0;
    int speech = 0;
    REQUIRE(take_reply_audio(&f, heard, seconds * 16000 * 2, &count, &speech), "the reply did not end");
    CHECK_EQ("16 kHz samples from 3 s at 48 kHz", count, seconds * 16000);
    /* away from the ends, each 16 kHz sample is the tone at its time, within 1% of full scale */
    int32_t worst = 0;
    for (int64_t i = 200; i < count - 200; i++) {
        int32_t want = (int32_t)(0.5 * 32768 * sin(2 * 3.14159265358979 * 440.0 * i / 16000.0));
        int32_t d = heard[i] - want;
        if (d < 0) d = -d;
        if (d > worst) worst = d;
    }
    NOTE("48 kHz float to 16 kHz: largest error %d of 32768", worst);
    CHECK(worst < 328, "resampled tone differs by %d (more than 1%% of full scale)", worst);
done:
    free(tone);
    free(heard);
    fixture_close(&f);
}

void test_reset_drops_fed_audio_waiting_beyond_the_ring(void) {
    const int32_t samples = 30 * 16000;
    struct fixture f;
    FIXTURE_OPEN(&f, BE_ESSENCE2_PACING_UNPACED, samples, 97);
    CHECK_EQ("feed_audio of 30 s", be_essence2_feed_audio(f.h, f.audio, samples, 16000), 0);
    CHECK(be_essence2_pending_samples(f.h) > 0, "nothing waits beyond the ring after 30 s");
    CHECK_EQ("reset", be_essence2_reset(f.h), 0);
    CHECK_EQ("pending_samples after reset", be_essence2_pending_samples(f.h), 0);
done:
    fixture_close(&f);
}
