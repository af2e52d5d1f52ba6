/*
 * expression2.h - the C interface of Expression 2 in libessence2: any character (a cartoon, an animal, a
 * mascot, a plush toy, a drawing) talking from one picture.
 *
 * Speech audio goes in (16 kHz, mono, signed 16-bit native-endian samples, or any rate through the feed
 * calls); lip-synced video frames come out (packed B,G,R, rows top to bottom, no row padding, 20 frames a
 * second, 416x720 for an avatar built with the default size). One frame covers 50 ms, that is 800 samples.
 * The avatar is a character .imx (`essence2 avatar build PICTURE --character`); a photoreal one is refused
 * (it goes to be_essence2_create()).
 *
 * The conventions are essence2.h's, and so are the return codes, the per-thread reason
 * (be_essence2_last_error(), or be_expression2_last_error()), the pacing modes, the display modes, the frame
 * kinds, the session contract (credentials, metering: the same secret and service as Essence 2) and the
 * version of the library (ESSENCE2_VERSION; this header is part of 1.4). Every be_expression2_* call takes a
 * be_expression2_handle: the same engine machinery as Essence 2 at Expression 2's cadence. A reply's first
 * speech frame anchors its timeline, late frames are skipped, ends_reply comes once per reply.
 *
 * Minimal loop (realtime pacing; error handling shortened, see examples/expression2_loop.c):
 *
 *     be_expression2_handle h = NULL;
 *     if (be_expression2_create("wise-pup.imx", NULL, NULL, &h) != 0) { ...be_expression2_last_error()... }
 *     int32_t w, ht; be_expression2_get_info(h, &w, &ht);
 *     uint8_t *pixels = malloc((size_t)w * ht * 3);
 *     be_expression2_frame_info info = { .size = sizeof info };
 *     be_expression2_feed_audio(h, speech, n, 16000);  be_expression2_end_utterance(h);
 *     for (;;) {                                         // every 50 ms:
 *         int32_t got = be_expression2_take_frame(h, pixels, w * ht * 3, &info);
 *         if (got > 0) show(pixels, w, ht);              // info: kind, audio time, the frame's own audio
 *     }
 *     be_expression2_destroy(h);
 *
 * Thread safety: as essence2.h. Any call may come from any thread; calls on one handle are serialised
 * inside the library; be_expression2_destroy() must not race other calls on the same handle.
 *
 * Since 1.4.
 */
#ifndef EXPRESSION2_H
#define EXPRESSION2_H

#include "essence2.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BE_EXPRESSION2_FPS               20  /**< frames a second */
#define BE_EXPRESSION2_SAMPLES_PER_FRAME 800 /**< samples of 16 kHz audio per frame (50 ms) */
#define BE_EXPRESSION2_WIDTH             416 /**< frame width of an avatar built with the default size */
#define BE_EXPRESSION2_HEIGHT            720 /**< frame height of an avatar built with the default size */

/** Opaque handle to one Expression 2 engine (one character). */
typedef struct be_expression2_engine *be_expression2_handle;

/** Samples of audio in one frame (50 ms at 16 kHz): the size of be_expression2_frame_info.audio. */
#define BE_EXPRESSION2_FRAME_AUDIO_SAMPLES 800

/**
 * What the engine knows about a frame it hands out, filled by be_expression2_take_frame(): the fields of
 * be_essence2_frame_info, with room for 800 samples of audio. Set `size` to sizeof(be_expression2_frame_info)
 * before each call; the library writes no byte past `size` and refuses a smaller size. Since 1.4.
 */
typedef struct be_expression2_frame_info {
    uint32_t size;          /**< in: sizeof(be_expression2_frame_info) as the caller compiled it */
    int32_t kind;           /**< BE_ESSENCE2_FRAME_IDLE, _SPEECH or _RAMP */
    int64_t index;          /**< frames this engine handed out before this one (0 for the first) */
    int64_t reply;          /**< speech and ramp frames: the reply's number, 1 for the engine's first; 0 for idle */
    int64_t reply_frame;    /**< speech and ramp frames: the frame's index within its reply; -1 for idle */
    double audio_time;      /**< speech frames: seconds into the reply's audio where this frame's audio starts
                                 (0, 0.05, ...: start the reply's sound on 0); -1 when has_audio_time is 0 */
    int32_t has_audio_time; /**< 1 for speech frames, 0 otherwise */
    int32_t ends_reply;     /**< 1 on the first frame after a reply ended, once per reply */
    int64_t skipped;        /**< reply frames skipped (late, or their audio already played) since the frame before */
    int32_t bytes;          /**< bytes written to pixels: width * height * 3 of the current mode */
    int32_t audio_samples;  /**< samples of the reply's audio this frame covers, 0 to 800 */
    int16_t audio[BE_EXPRESSION2_FRAME_AUDIO_SAMPLES]; /**< the frame's own speech, 16 kHz mono: audio_samples
                                 samples of the reply, then silence (all silence outside speech) */
} be_expression2_frame_info;

/**
 * Opens a character avatar and starts its engine (a background thread renders ahead).
 * @param imx_path    the character's .imx file; may not be NULL.
 * @param engine_path a shared engine container (`essence2 engine export -o FILE.engine`), sha256-checked;
 *                    NULL uses the models built into the library.
 * @param staging_dir a writable directory (made when missing) where the engine's checked weights are kept, so
 *                    later starts with the same container do not read it again; NULL: none is kept. Ignored
 *                    without engine_path.
 * @param out         receives the handle (NULL on failure); may not be NULL.
 * @return 0; -1 bad argument (NULL imx_path or out, unusable staging_dir); -2 the avatar (or the engine
 *         container) is missing, corrupt, fails its checksum, or is not a character avatar (the reason names
 *         be_essence2_create() for a photoreal one); -3 the session was refused (as be_essence2_create()).
 * Reason: set on every failure, cleared on success.
 * Blocking: with a metering service configured, waits for its first answer (as be_essence2_create()).
 * Ownership: the caller owns the handle and releases it with be_expression2_destroy().
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_create(const char *imx_path, const char *engine_path, const char *staging_dir,
                              be_expression2_handle *out);

/**
 * Releases one engine (queued audio and frames are dropped; a metered session's final report is waited for
 * at most 2 s). NULL is a no-op.
 * @return 0; -1 for an unknown (or already destroyed) handle.
 * Reason: set on -1, cleared otherwise.
 * Thread safety: no other call may be in progress or made on h once this call has started.
 */
int32_t be_expression2_destroy(be_expression2_handle h);

/** 1 once the first frame has rendered, else 0 (also for an unknown handle, which sets the reason). */
int32_t be_expression2_is_ready(be_expression2_handle h);

/**
 * Queues 16 kHz speech into the engine's 16 s ring, all or nothing (as be_essence2_push_audio()).
 * @return 0; -1 bad argument; -2 the ring cannot take it now (nothing queued: take frames, then retry).
 */
int32_t be_expression2_push_audio(be_expression2_handle h, const int16_t *samples, int32_t count);

/**
 * Queues speech at any rate (1000 ... 384000 Hz, mono), resampled to 16 kHz; never blocks: what the ring cannot
 * take waits inside the engine (up to 10 minutes), as be_essence2_feed_audio().
 * @return 0; -1 bad argument (NULL samples with count > 0, negative count, rate out of range); -2 over the
 *         10-minute limit (nothing queued).
 */
int32_t be_expression2_feed_audio(be_expression2_handle h, const int16_t *samples, int32_t count, int32_t sample_rate);

/** be_expression2_feed_audio() for float samples in -1...1 (clipped; NaN is silence). */
int32_t be_expression2_feed_float(be_expression2_handle h, const float *samples, int32_t count, int32_t sample_rate);

/** Fed samples (16 kHz) the engine has not taken yet; -1 for an unknown handle. */
int64_t be_expression2_pending_samples(be_expression2_handle h);

/** The reply's audio is complete: what was queued renders, then the face eases to rest. @return 0 or -1. */
int32_t be_expression2_end_utterance(be_expression2_handle h);

/** Barge-in: drops the speech not yet shown; the face eases to rest from the frame last shown. @return 0 or -1. */
int32_t be_expression2_reset(be_expression2_handle h);

/** Frames that can be taken now without waiting; -1 for an unknown handle. */
int32_t be_expression2_frames_available(be_expression2_handle h);

/**
 * Takes the next due frame with its record (see be_expression2_frame_info).
 * @param capacity size of pixels in bytes, at least width*height*3.
 * @param info     caller-owned, `size` set; written only when a frame is returned.
 * @return bytes written; 0 when no frame is due yet; -1 bad argument (unknown handle, NULL pixels or info,
 *         short capacity, info->size smaller than this struct); -3 the session refuses frames.
 * Reason: set on -1 and -3, cleared otherwise.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_take_frame(be_expression2_handle h, uint8_t *pixels, int32_t capacity,
                                  be_expression2_frame_info *info);

/** be_expression2_take_frame() without the record: bytes written, 0 when none is due, -1 or -3. */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_pull_frame(be_expression2_handle h, uint8_t *out, int32_t capacity);

/** The next idle frame (mouth at rest, idle motion going on), whatever the reply state: as pull_frame. */
int32_t be_expression2_idle_frame(be_expression2_handle h, uint8_t *out, int32_t capacity);

/**
 * A descriptor that is readable while a frame can be taken, for an event loop (poll, epoll, asyncio), as
 * be_essence2_frame_fd(): created on the first call, owned and closed by the engine.
 * @return the descriptor, or -1 (unknown handle, or it could not be created: the reason says which).
 */
int32_t be_expression2_frame_fd(be_expression2_handle h);

/** Frame size of the current mode in pixels. @return 0, or -1 (unknown handle, NULL pointer). */
int32_t be_expression2_get_info(be_expression2_handle h, int32_t *width, int32_t *height);

/** BE_ESSENCE2_MODE_FULL (the whole frame) or _HEAD (a square around the head). @return 0, -1, or -2 unknown mode. */
int32_t be_expression2_set_mode(be_expression2_handle h, int32_t mode);

/**
 * BE_ESSENCE2_PACING_REALTIME (at most 20 frames a second on the wall clock, the default), _UNPACED (as fast as
 * they render) or _AUDIO_CLOCK (speech frame k once the host reports sample k*800 of the reply played, with
 * be_expression2_set_playout_position()). @return 0, -1, or -2 unknown mode.
 */
int32_t be_expression2_set_pacing(be_expression2_handle h, int32_t mode);

/** Samples of the current reply the host has played (audio-clock pacing). @return 0 or -1. */
int32_t be_expression2_set_playout_position(be_expression2_handle h, int64_t samples_played);

/** Seeds the idle motion of the frames planned from now on. @return 0 or -1. */
int32_t be_expression2_set_seed(be_expression2_handle h, uint64_t seed);

/** Reply frames skipped to stay on the audio's timeline; -1 for an unknown handle. */
int64_t be_expression2_skipped_frames(be_expression2_handle h);

/** Replies started and ended as seen in the frames handed out (either pointer may be NULL). @return 0 or -1. */
int32_t be_expression2_reply_counts(be_expression2_handle h, int64_t *started, int64_t *ended);

/** The calling thread's reason for its last failed call (as be_essence2_last_error()). */
int32_t be_expression2_last_error(char *out, int32_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* EXPRESSION2_H */
