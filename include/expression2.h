/*
 * expression2.h - the C interface of Expression 2 in libessence2: any character (a cartoon, an animal, a
 * mascot, a plush toy, a drawing) talking from one picture.
 *
 * Speech audio goes in (16 kHz, mono, signed 16-bit native-endian samples with be_expression2_push_audio(),
 * or mono at any rate from 1000 to 384000 Hz with be_expression2_feed_audio() and be_expression2_feed_float());
 * lip-synced video frames come out (packed B,G,R, rows top to bottom, no row padding, 20 frames a second,
 * 416x720 for an avatar built with the default size). One frame covers 50 ms, that is 800 samples of 16 kHz
 * audio. The avatar is a character .imx (`essence2 avatar build PICTURE --character`); a photoreal one is
 * refused with -2 (it goes to be_essence2_create(); be_essence2_avatar_kind() tells which a file is).
 *
 * Minimal loop (realtime pacing; error handling shortened, see examples/expression2_loop.c):
 *
 *     be_expression2_handle h = NULL;
 *     if (be_expression2_create("avatars/squirrel.imx", NULL, NULL, &h) != 0) { ...be_expression2_last_error()... }
 *     int32_t w, ht; be_expression2_get_info(h, &w, &ht);
 *     uint8_t *pixels = malloc((size_t)w * ht * 3);
 *     be_expression2_frame_info info = { .size = sizeof info };
 *     if (be_expression2_push_audio(h, speech, n) == 0) be_expression2_end_utterance(h);  // n <= 16 s
 *     for (;;) {                                           // poll be_expression2_frame_fd(), or every 10 ms:
 *         info.size = sizeof info;
 *         int32_t got = be_expression2_take_frame(h, pixels, w * ht * 3, &info);  // 0: nothing due yet
 *         if (got > 0) show(pixels, w, ht, info.audio, info.audio_samples);      // the frame and its 50 ms
 *         if (got > 0 && info.ends_reply) break;
 *     }
 *     free(pixels); be_expression2_destroy(h);
 *
 * Conventions: essence2.h's. The return codes are its codes (BE_ESSENCE2_OK, BE_ESSENCE2_ERR_*:
 * be_essence2_strerror() names them), with each function's meaning listed with it; every negative return is
 * a failure. The reason of a failure: every function except be_expression2_last_error() sets the calling
 * thread's reason when it fails and clears it when it succeeds, exactly as each function's "Reason:" line
 * says; the reason is per thread and is the same one that be_essence2_last_error() reads (the two families
 * share it). The pacing modes, display modes and frame kinds are essence2.h's BE_ESSENCE2_PACING_*,
 * BE_ESSENCE2_MODE_* and BE_ESSENCE2_FRAME_* values. Sessions and metering (the API secret, the service URL,
 * refusals with be_essence2_last_refusal()) are essence2.h's Credentials: the same secret, service and
 * rules, with Expression 2's 50 ms frames as the rendered video.
 *
 * Handles: a be_expression2_handle comes from be_expression2_create() only. Every be_expression2_* function
 * refuses a handle from be_essence2_create() (-1, or 0 from be_expression2_is_ready(), with a reason saying
 * it is an Essence 2 handle), and an unknown or destroyed handle likewise. The other way, the be_essence2_*
 * functions that take a handle accept an Expression 2 handle (cast to be_essence2_handle) and act on that
 * engine at its own cadence, 20 frames a second and 800 samples a frame, with one exception:
 * be_essence2_take_frame() refuses it (-1, the reason naming be_expression2_take_frame()), since its record
 * holds only 640 samples. So a host that serves both kinds may keep one be_essence2_handle, open it with
 * whichever create be_essence2_avatar_kind() calls for, and use the be_essence2_* calls for everything but the
 * frame record (be_expression2_take_frame()). Calls that exist only in essence2.h (set_lipsync,
 * render_status, last_frame_kind, last_frame_index, pulled_speech_frames, set_playout_anchor,
 * reanchor_slots, anchor_slots) are used that way. be_essence2_quiesce_all() stops Expression 2 engines too.
 * integration/c/test_expression2.c checks this rule call by call.
 *
 * Threading: as essence2.h. Every function is safe from any thread; calls on one handle are serialised inside
 * the library (one thread may push audio while another takes frames); different handles are independent. No
 * call waits for rendering, which runs on one background thread per engine. be_expression2_destroy() must not
 * race other calls on the same handle.
 *
 * Ownership: the library copies every buffer it is given (audio, paths) before the call returns and writes
 * only into buffers the caller owns; the handle is the caller's until be_expression2_destroy(); the
 * descriptor of be_expression2_frame_fd() is the engine's.
 *
 * Linking: the same library, libessence2.so.1 (see essence2.h, Linking); the be_expression2_* functions are
 * exported beside the be_essence2_* ones, in the same version node ESSENCE2_1. Include this header (it
 * includes essence2.h) and link -lessence2. A plugin host checks be_essence2_version_number() >=
 * ESSENCE2_VERSION_NUMBER(1, 4, 0) before it looks them up.
 *
 * Since 1.4 (#if ESSENCE2_VERSION_AT_LEAST(1, 4, 0)): the header and every function in it.
 */
#ifndef EXPRESSION2_H
#define EXPRESSION2_H

#include "essence2.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Audio and frame constants ---------------------------------------------------------------------- */
#define BE_EXPRESSION2_FPS               20  /**< frames a second */
#define BE_EXPRESSION2_SAMPLES_PER_FRAME 800 /**< samples of 16 kHz audio per frame (50 ms) */
#define BE_EXPRESSION2_WIDTH             416 /**< frame width of an avatar built with the default size */
#define BE_EXPRESSION2_HEIGHT            720 /**< frame height of an avatar built with the default size */

/** Opaque handle to one Expression 2 engine (one character, one audio stream, one frame stream). A distinct
 *  type from be_essence2_handle: see Handles above for which calls take which. */
typedef struct be_expression2_engine *be_expression2_handle;

/* ---- The frame record -------------------------------------------------------------------------------- */

/** Samples of audio in one frame (50 ms at 16 kHz): the size of be_expression2_frame_info.audio. */
#define BE_EXPRESSION2_FRAME_AUDIO_SAMPLES 800

/**
 * What the engine knows about a frame it hands out, filled by be_expression2_take_frame(): the fields of
 * be_essence2_frame_info at the same offsets, with room for 800 samples of audio (1664 bytes in all). Set
 * `size` to sizeof(be_expression2_frame_info) before each call; the library writes no byte past `size` and
 * refuses a smaller size. Since 1.4.
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

/* ---- Lifecycle -------------------------------------------------------------------------------------- */

/**
 * Opens a character avatar and starts its engine (its background render thread starts at once).
 * @param imx_path    the character's .imx file, NUL-terminated; may not be NULL.
 * @param engine_path a shared engine container (`essence2 engine export -o FILE.engine`), NUL-terminated,
 *                    sha256-checked; NULL uses the models built into the library.
 * @param staging_dir a writable directory (made when missing) where the engine's checked weights are kept, so
 *                    later starts with the same container do not check it again; NULL: none is kept. Ignored
 *                    when engine_path is NULL.
 * @param out         receives the handle; set to NULL on failure. May not be NULL.
 * @return 0; -1 bad argument (NULL imx_path or out, staging_dir not a writable directory); -2 the avatar is
 *         missing, truncated, corrupt, fails its checksum or has an unsupported version, or it is a photoreal
 *         avatar (the reason names be_essence2_create()), or the engine container is missing, damaged or not
 *         an engine container (the reason begins "engine container:"); -3 the session was refused by the
 *         credential check, as be_essence2_create() (be_essence2_last_refusal() gives the reason).
 * Reason: set on every failure (for -3 the refusal sentence), cleared on success.
 * Blocking: with a metering service configured, waits for its first answer (at most
 *         ESSENCE2_SERVICE_TIMEOUT_MS, default 5000 ms); without one, never. A first start with an engine
 *         container reads and checks it (a staged copy is not checked again).
 * Ownership: the paths are copied; the caller owns the handle and releases it with be_expression2_destroy().
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_create(const char *imx_path, const char *engine_path, const char *staging_dir,
                              be_expression2_handle *out);

/**
 * Releases one engine. Queued audio and frames are dropped; the render thread leaves its frame and exits by
 * itself (this call does not wait for it). With a metering service configured, the session's final report is
 * sent and waited for at most 2 s.
 * @param h a handle from be_expression2_create(); NULL is a no-op.
 * @return 0; -1 for an unknown or already destroyed handle, or an Essence 2 handle (nothing is released).
 * Reason: set on -1, cleared otherwise (also for NULL).
 * Ownership: h and the descriptor of be_expression2_frame_fd() are invalid once this call returns.
 * Thread safety: no other call may be in progress or made on h once this call has started.
 * Since 1.4.
 */
int32_t be_expression2_destroy(be_expression2_handle h);

/**
 * Whether speech frames can flow: 1 once warm-up is over (the first idle frame has rendered), else 0. Until
 * then show be_expression2_idle_frame() output or nothing.
 * @return 1 or 0; 0 also for a NULL, unknown or Essence 2 handle.
 * Reason: set for a NULL, unknown or Essence 2 handle (tell it from "not ready yet" by
 *         be_expression2_last_error()), cleared otherwise.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_is_ready(be_expression2_handle h);

/* ---- Audio ------------------------------------------------------------------------------------------ */

/**
 * Queues 16 kHz speech of the current reply (or starts a new reply when none is running). Never blocks. All or
 * nothing: either every sample is queued, or none is.
 * @param samples count samples, 16 kHz mono int16, copied; may be NULL when count is 0.
 * @param count   number of samples (not bytes), 0 .. BE_ESSENCE2_RING_SAMPLES (16 s); 0 queues nothing and
 *                returns 0.
 * @return 0 all queued; -2 nothing queued because the ring (BE_ESSENCE2_RING_SAMPLES) has no room for count
 *         samples beside what it holds (take frames, then push again), or because be_essence2_quiesce_all()
 *         stopped the engine; -1 bad argument (NULL, unknown or Essence 2 handle, samples NULL with count > 0,
 *         count < 0 or larger than the ring).
 * Reason: set on -1 and -2 (for -2: how full the ring is, or that the engine was stopped), cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_push_audio(be_expression2_handle h, const int16_t *samples, int32_t count);

/**
 * Queues speech of the running reply (or starts one): any amount, mono, at any sample rate from 1000 to
 * 384000 Hz, resampled to 16 kHz by the library (its filter carried from call to call; 16 kHz goes in
 * unchanged). Never blocks and never waits for ring room: what the ring cannot take yet waits inside the
 * engine (up to 10 minutes of 16 kHz audio) and moves into the ring, in order, as frames are taken; as
 * be_essence2_feed_audio().
 * @param samples     count samples, copied; may be NULL when count is 0.
 * @param count       number of samples, >= 0.
 * @param sample_rate the samples' rate in Hz, 1000 ... 384000.
 * @return 0 queued; -1 bad argument (NULL, unknown or Essence 2 handle, samples NULL with count > 0, count < 0,
 *         a rate out of range); -2 nothing was queued: the audio waiting would exceed 10 minutes (take frames,
 *         then feed again), or be_essence2_quiesce_all() stopped the engine.
 * Reason: set on -1 and -2, cleared on 0.
 * Thread safety: safe from any thread; calls from several threads queue in the order they take the engine's
 *         feed lock.
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_feed_audio(be_expression2_handle h, const int16_t *samples, int32_t count, int32_t sample_rate);

/**
 * be_expression2_feed_audio() for float samples, full scale -1...1: each becomes round(x * 32768) clipped to
 * -32768...32767 (NaN and infinities are silence).
 * @param samples     count samples, copied; may be NULL when count is 0.
 * @param count       number of samples, >= 0.
 * @param sample_rate the samples' rate in Hz, 1000 ... 384000.
 * @return as be_expression2_feed_audio().
 * Reason: as be_expression2_feed_audio().
 * Thread safety: as be_expression2_feed_audio().
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_feed_float(be_expression2_handle h, const float *samples, int32_t count, int32_t sample_rate);

/**
 * Samples (16 kHz) fed with be_expression2_feed_audio() or be_expression2_feed_float() that still wait beyond
 * the ring.
 * @return >= 0, or -1 for a NULL, unknown or Essence 2 handle.
 * Reason: set on -1, cleared otherwise.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int64_t be_expression2_pending_samples(be_expression2_handle h);

/**
 * Marks the current reply's audio complete: its remaining frames render (the last partial 50 ms padded with
 * silence), audio still waiting beyond the ring included, then the face eases back to rest at once (RAMP
 * frames, then IDLE) instead of after 0.6 s without audio. Audio queued afterwards starts a new reply. Without
 * a running reply it does nothing.
 * @return 0, or -1 for a NULL, unknown or Essence 2 handle.
 * Reason: set on -1, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_end_utterance(be_expression2_handle h);

/**
 * Interrupt (barge-in): drops the queued audio (audio waiting beyond the ring too) and the queued frames of
 * the current reply at once. The next frames continue from the frame last handed out and ease to rest (RAMP,
 * then IDLE); the picture never jumps. The reply ends here, once. Without a running reply it does nothing.
 * @return 0, or -1 for a NULL, unknown or Essence 2 handle.
 * Reason: set on -1, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_reset(be_expression2_handle h);

/* ---- Frames ----------------------------------------------------------------------------------------- */

/**
 * Frames that can be taken now: 0 when the next take would return 0 (in realtime pacing: no frame is due
 * yet, or the due frame has not rendered), else the number of rendered frames waiting (at least 1).
 * @return >= 0, or -1 for a NULL, unknown or Essence 2 handle.
 * Reason: set on -1, cleared otherwise.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_frames_available(be_expression2_handle h);

/**
 * Takes the next frame that is due into `pixels` and fills `info` with its record: its kind (a SPEECH or RAMP
 * frame of a reply, or an IDLE frame between replies), its place among the frames handed out and in its reply,
 * its audio time, whether it ends a reply, the frames skipped before it and its own 800 samples of speech. In
 * realtime pacing at most 20 frames a second are handed out (shared with be_expression2_pull_frame() and
 * be_expression2_idle_frame()); a reply's frame k is due k/20 s after its first frame was handed out, and
 * frames that would be shown a full frame period (50 ms) late are skipped (be_expression2_skipped_frames()).
 * In unpaced pacing frames come as fast as they render; in audio-clock pacing speech frame k comes once the
 * host has reported sample k * 800 of the reply played (be_expression2_set_playout_position()).
 * @param pixels   receives width*height*3 bytes (B,G,R) for the current mode.
 * @param capacity size of pixels in bytes, at least width*height*3.
 * @param info     caller-owned, `size` set by the caller (see be_expression2_frame_info); written only when a
 *                 frame is returned.
 * @return the number of bytes written; 0 when no frame is due yet (keep showing the current one; info
 *         untouched); -1 bad argument (NULL, unknown or Essence 2 handle, NULL info, info->size smaller than
 *         be_expression2_frame_info, NULL pixels, capacity smaller than a frame); -3 the session refuses frames
 *         (only with a metering service configured; be_essence2_last_refusal() gives the reason): the service
 *         has been unreachable for 5 minutes of rendered video (frames resume once it answers: call again
 *         after a pause), or it rejected the secret mid-session (final: destroy the engine).
 * Reason: set on -1 and -3, cleared otherwise (0 is not a failure).
 * Ownership: pixels and info stay the caller's; nothing is kept after the call.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_take_frame(be_expression2_handle h, uint8_t *pixels, int32_t capacity,
                                  be_expression2_frame_info *info);

/**
 * be_expression2_take_frame() without the record: takes the next due frame into `out` (frames taken this way
 * count in the record's `index` too).
 * @param out      receives width*height*3 bytes (B,G,R) for the current mode.
 * @param capacity size of out in bytes, at least width*height*3.
 * @return the number of bytes written; 0 when no frame is due yet; -1 bad argument (NULL, unknown or Essence 2
 *         handle, NULL out, capacity smaller than a frame); -3 the session refuses frames, as
 *         be_expression2_take_frame().
 * Reason: set on -1 and -3, cleared otherwise (0 is not a failure).
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_pull_frame(be_expression2_handle h, uint8_t *out, int32_t capacity);

/**
 * Takes the next idle frame (kind IDLE, mouth at rest, idle motion going on), whatever the reply state; for
 * showing while not ready. It obeys the same 20-a-second pacing as be_expression2_pull_frame().
 * @param out      receives width*height*3 bytes (B,G,R) for the current mode.
 * @param capacity size of out in bytes, at least width*height*3.
 * @return as be_expression2_pull_frame().
 * Reason: as be_expression2_pull_frame().
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_expression2_idle_frame(be_expression2_handle h, uint8_t *out, int32_t capacity);

/**
 * A file descriptor that is readable while a frame can be taken (be_expression2_frames_available() > 0), for
 * poll(), epoll, select or an event loop, as be_essence2_frame_fd(): level-triggered, made on the first call,
 * the same one on every call. Wait for POLLIN only; never read, write or close it. A take after it became
 * readable may still return 0 in a race with the pacing clock: then wait again.
 * @return the descriptor (>= 0), or -1 (NULL, unknown or Essence 2 handle, or no descriptor could be made: too
 *         many open files).
 * Reason: set on -1, cleared otherwise.
 * Ownership: the engine owns it and closes it when it is destroyed: remove it from your event loop before
 *         be_expression2_destroy().
 * Thread safety: safe from any thread; any thread may wait on the descriptor.
 * Since 1.4.
 */
int32_t be_expression2_frame_fd(be_expression2_handle h);

/**
 * How many replies have started and ended, as seen in the frames handed out: a reply starts with its first
 * SPEECH frame and ends with the first IDLE frame after it (or when an interrupt ends it).
 * @param started optional (may be NULL): receives the replies started so far.
 * @param ended   optional (may be NULL): receives the replies ended so far (started - 1 <= ended <= started).
 * @return 0, or -1 for a NULL, unknown or Essence 2 handle.
 * Reason: set on -1, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_reply_counts(be_expression2_handle h, int64_t *started, int64_t *ended);

/**
 * Reply frames skipped to stay on the audio's timeline: late by a full frame period, or their audio already
 * played (be_expression2_set_playout_position()).
 * @return >= 0, or -1 for a NULL, unknown or Essence 2 handle.
 * Reason: set on -1, cleared otherwise.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int64_t be_expression2_skipped_frames(be_expression2_handle h);

/* ---- Display and pacing ----------------------------------------------------------------------------- */

/**
 * Frame size of the current mode, in pixels (BE_EXPRESSION2_WIDTH x BE_EXPRESSION2_HEIGHT in full mode for an
 * avatar built with the default size).
 * @param width  receives the width; may not be NULL.
 * @param height receives the height; may not be NULL.
 * @return 0, or -1 (NULL, unknown or Essence 2 handle, NULL pointer).
 * Reason: set on -1, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_get_info(be_expression2_handle h, int32_t *width, int32_t *height);

/**
 * Chooses what the frames show; takes effect with the next frame rendered (queued frames of the old mode are
 * dropped and rendered again).
 * @param mode BE_ESSENCE2_MODE_FULL (the whole picture, the default) or BE_ESSENCE2_MODE_HEAD (a square around
 *             the head).
 * @return 0; -1 NULL, unknown or Essence 2 handle; -2 unknown mode.
 * Reason: set on -1 and -2, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_set_mode(be_expression2_handle h, int32_t mode);

/**
 * Chooses the pacing.
 * @param mode BE_ESSENCE2_PACING_REALTIME (at most 20 frames a second on the wall clock, the default),
 *             BE_ESSENCE2_PACING_UNPACED (as fast as they render; speech frames only from queued audio, and
 *             the same avatar, audio and seed give byte-identical frames) or BE_ESSENCE2_PACING_AUDIO_CLOCK
 *             (speech frame k once the host reports sample k * 800 of the reply played with
 *             be_expression2_set_playout_position(); idle and ramp frames keep the wall clock).
 * @return 0; -1 NULL, unknown or Essence 2 handle; -2 unknown mode.
 * Reason: set on -1 and -2, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_set_pacing(be_expression2_handle h, int32_t mode);

/**
 * How many samples (16 kHz) of the current reply's audio the host has played: drives audio-clock pacing, and
 * in any pacing frames whose 800 samples have all played are skipped (be_expression2_skipped_frames()).
 * Applies to the running reply; a new reply starts at 0.
 * @param samples_played samples, >= 0.
 * @return 0, or -1 (NULL, unknown or Essence 2 handle, negative value).
 * Reason: set on -1, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_set_playout_position(be_expression2_handle h, int64_t samples_played);

/**
 * Seeds the idle motion (blink times, head movement) of the frames planned from now on (queued idle frames
 * are planned again). Call it right after create for reproducible output; the default seed comes from the
 * avatar file.
 * @param seed any value.
 * @return 0, or -1 for a NULL, unknown or Essence 2 handle.
 * Reason: set on -1, cleared on 0.
 * Thread safety: safe from any thread.
 * Since 1.4.
 */
int32_t be_expression2_set_seed(be_expression2_handle h, uint64_t seed);

/* ---- Errors ----------------------------------------------------------------------------------------- */

/**
 * Copies the reason of the latest failed call on the calling thread, of either family: the same per-thread
 * reason as be_essence2_last_error() (for example why be_expression2_create() returned -2).
 * @param out      destination, may be NULL when capacity is 0; receives a NUL-terminated, truncated copy (cut at
 *                 a UTF-8 character boundary).
 * @param capacity size of out in bytes.
 * @return the full length of the reason in bytes (without NUL), 0 when the latest call on this thread
 *         succeeded (or none failed yet), -1 when out is NULL with capacity > 0 or capacity < 0.
 * Reason: never changed, not even by its own -1, so it can be read again.
 * Thread safety: the reason is per thread.
 * Since 1.4.
 */
int32_t be_expression2_last_error(char *out, int32_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* EXPRESSION2_H */
