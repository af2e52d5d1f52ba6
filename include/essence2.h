/*
 * essence2.h - the C interface of libessence2, an on-device talking-avatar engine.
 *
 * Speech audio goes in (16 kHz, mono, signed 16-bit native-endian samples); lip-synced video frames come
 * out (packed B,G,R, rows top to bottom, no row padding, 25 frames a second). One frame covers 40 ms,
 * that is 640 samples of audio. The interface follows bitHuman's Essence 2 C API: a program written for
 * that interface compiles and runs against this library unchanged.
 *
 * Minimal loop (realtime pacing; error handling shortened, see examples/minimal_loop.c):
 *
 *     be_essence2_handle h = NULL;
 *     if (be_essence2_create("avatars/grace-hopper.imx", NULL, 0, &h) != 0) { ...be_essence2_last_error()... }
 *     int32_t w, ht; be_essence2_get_info(h, &w, &ht);
 *     uint8_t *frame = malloc((size_t)w * ht * 3);
 *     for (;;) {
 *         if (have_audio && be_essence2_push_audio(h, chunk, n) == 0) advance_audio();  // -2: ring full, retry later
 *         if (audio_done) be_essence2_end_utterance(h);
 *         int32_t got = be_essence2_pull_frame(h, frame, w * ht * 3);          // 0: nothing due, keep showing
 *         if (got > 0) show(frame);
 *         if (got > 0 && audio_done && be_essence2_last_frame_kind(h) == BE_ESSENCE2_FRAME_IDLE) break;
 *         sleep_ms(5);
 *     }
 *     free(frame); be_essence2_destroy(h);
 *
 * Return codes: every int32_t function returns 0 or a positive count on success and a negative code on
 * failure. The negative codes are stable; their meaning for each function is listed with it, and
 * be_essence2_strerror() names them.
 *
 * The reason of a failure: every function except be_essence2_last_error(), be_essence2_version(),
 * be_essence2_version_number() and be_essence2_strerror() sets the calling thread's reason when it fails (a
 * sentence that says what happened and what to do, read with be_essence2_last_error()) and clears it when it
 * succeeds. "Fails" is exactly what each function's "Reason:" line names; every negative return is a failure
 * with a reason. The reason is per thread: a failure on one thread never shows on another.
 *
 * Threading: all functions are thread-safe. One handle may be used from several threads at once (for
 * example one thread pushing audio while another pulls frames); each call is atomic with respect to the
 * others on the same handle. Different handles are independent. No call waits for rendering, which runs on
 * one background thread per engine into a bounded queue; the only call that may block is
 * be_essence2_quiesce_all(), and with a metering service configured (see Credentials) be_essence2_create()
 * waits for the service's first answer and be_essence2_destroy() for the final report, both bounded. A handle must not be used after be_essence2_destroy() returned for it (calls
 * with a destroyed handle are detected and return -1, but the check cannot help once the address is reused).
 *
 * Expression 2 handles (since 1.4): the library also runs character avatars, through include/expression2.h
 * and its be_expression2_handle. Every function here that takes a handle accepts an Expression 2 handle (cast
 * to be_essence2_handle) and acts on that engine at its own cadence (20 frames a second, 800 samples a frame),
 * except be_essence2_take_frame(), which refuses it with -1 and a reason naming be_expression2_take_frame()
 * (this record holds 640 samples). The be_expression2_* functions refuse a handle from be_essence2_create().
 * expression2.h, Handles, has the whole rule; the GStreamer element and the Python package rely on it.
 *
 * Linking: the library is libessence2.so.1 (its SONAME; the file is libessence2.so.MAJOR.MINOR.PATCH, and
 * libessence2.so links to it for the linker). It exports the be_essence2_* functions of this header and
 * (since 1.4) the be_expression2_* functions of include/expression2.h, nothing else, all in the one version
 * node ESSENCE2_1: the functions added in 1.1 to 1.4 joined that node too, so a symbol's version does not
 * say which minor version added it. It carries its own (static) Swift runtime: it needs nothing but libc,
 * libm, libstdc++ and libgcc_s. Compare ESSENCE2_VERSION (what you compiled against) with
 * be_essence2_version_number() (what was loaded) when you load it as a plugin, before looking up a function
 * newer than 1.0.
 *
 * Unloading: the library is linked with -z nodelete, so dlclose() never unmaps it; a later dlopen() returns
 * the same loaded copy, with its engines, settings and secret. This is deliberate: the Swift runtime and
 * Dispatch inside it keep threads and thread-local state that cannot be torn down safely, so a real unload
 * would crash the host once any engine had run. Before dlclose(), call be_essence2_quiesce_all() and destroy
 * every handle (examples/plugin_host.c does); memory of destroyed engines is freed, the code stays mapped.
 */
#ifndef ESSENCE2_H
#define ESSENCE2_H

#include <stdint.h>

/* ---- Version ---------------------------------------------------------------------------------------- */
#define ESSENCE2_VERSION_MAJOR 1 /**< incompatible ABI changes (a new SONAME) */
#define ESSENCE2_VERSION_MINOR 4 /**< functions and codes added, compatible (1.1: frame_fd, reply_counts, version_number;
                                      1.2: set_service_url, metered sessions: see Credentials;
                                      download_avatar: see Downloads; 1.3: take_frame and its frame_info,
                                      BE_ESSENCE2_PACING_AUDIO_CLOCK; 1.4: Expression 2, include/expression2.h:
                                      be_essence2_create refuses character avatars with -2) */
#define ESSENCE2_VERSION_PATCH 0 /**< fixes */
/** One number for a version: major * 1000000 + minor * 1000 + patch. */
#define ESSENCE2_VERSION_NUMBER(major, minor, patch) ((major) * 1000000 + (minor) * 1000 + (patch))
/** The version of this header, as ESSENCE2_VERSION_NUMBER(); be_essence2_version_number() gives the library's. */
#define ESSENCE2_VERSION \
    ESSENCE2_VERSION_NUMBER(ESSENCE2_VERSION_MAJOR, ESSENCE2_VERSION_MINOR, ESSENCE2_VERSION_PATCH)
/** True when this header is at least version major.minor.patch: #if ESSENCE2_VERSION_AT_LEAST(1, 1, 0). */
#define ESSENCE2_VERSION_AT_LEAST(major, minor, patch) (ESSENCE2_VERSION >= ESSENCE2_VERSION_NUMBER(major, minor, patch))

/* ---- Attributes ------------------------------------------------------------------------------------- */
/* Pointer arguments are not marked nonnull: every function checks them and documents what NULL does.
 * Results that must be looked at (create, push_audio, feed_audio, feed_float, pull_frame, take_frame,
 * idle_frame, and their be_expression2_* twins: ignoring them loses the handle, audio or a frame) warn when
 * ignored with GCC and Clang; define BE_ESSENCE2_NO_WARN_UNUSED_RESULT before including this header to turn
 * that off. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(BE_ESSENCE2_NO_WARN_UNUSED_RESULT)
#define BE_ESSENCE2_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define BE_ESSENCE2_WARN_UNUSED_RESULT
#endif
#if defined(__GNUC__) || defined(__clang__)
#define BE_ESSENCE2_RETURNS_NONNULL __attribute__((returns_nonnull))
#else
#define BE_ESSENCE2_RETURNS_NONNULL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque engine handle: one avatar, one audio stream, one frame stream. */
typedef struct be_essence2_engine *be_essence2_handle;

/* ---- Return codes ----------------------------------------------------------------------------------- */
#define BE_ESSENCE2_OK              0  /**< success */
#define BE_ESSENCE2_ERR_ARGUMENT  (-1) /**< bad argument: NULL pointer, unknown or destroyed handle, short buffer, value out of range */
#define BE_ESSENCE2_ERR_AVATAR    (-2) /**< create: the avatar file is missing, truncated, corrupt, fails its checksum or has an unsupported version */
#define BE_ESSENCE2_ERR_FULL      (-2) /**< push_audio: the audio ring is full, nothing was queued */
#define BE_ESSENCE2_ERR_MODE      (-2) /**< set_mode / set_pacing / set_lipsync: unknown mode or model */
#define BE_ESSENCE2_ERR_REFUSED   (-3) /**< the session was refused by the credential check */
#define BE_ESSENCE2_ERR_RENDER    (-1) /**< render_status: the engine's rendering failed (as in the reference interface) */
#define BE_ESSENCE2_ERR_STATUS_ARGUMENT (-4) /**< render_status only: unknown handle or bad reason buffer (its -1 means a failed render) */

/* ---- Frame kinds (be_essence2_last_frame_kind) ------------------------------------------------------ */
#define BE_ESSENCE2_FRAME_IDLE    0 /**< idle motion: blinks, breathing, small head movement, mouth at rest */
#define BE_ESSENCE2_FRAME_SPEECH  1 /**< a frame of a reply, lips following its audio */
#define BE_ESSENCE2_FRAME_RAMP    2 /**< easing back to rest after speech (end of reply or reset) */

/* ---- Display modes (be_essence2_set_mode) ----------------------------------------------------------- */
#define BE_ESSENCE2_MODE_FULL     0 /**< the whole portrait at its own size (default) */
#define BE_ESSENCE2_MODE_HEAD     1 /**< a square crop around the head */

/* ---- Pacing (be_essence2_set_pacing) ---------------------------------------------------------------- */
#define BE_ESSENCE2_PACING_REALTIME 0 /**< at most 25 frames a second, on the wall clock (default) */
#define BE_ESSENCE2_PACING_UNPACED  1 /**< frames as fast as they render, for offline rendering to a file */
/** Realtime, except that a reply's speech frames follow the host's audio clock (be_essence2_set_playout_position)
 *  instead of the wall clock: speech frame k is handed out once sample k x 640 of the reply has played (up to
 *  10 ms early; the reply's first frame at once, so the host can start its sound on it), and skipped only when
 *  all of its 640 samples have played. Idle and ramp frames keep the 25-a-second wall clock. The host reports
 *  its played position as it advances (every loop iteration); speech frames wait for it. Since 1.3. */
#define BE_ESSENCE2_PACING_AUDIO_CLOCK 2

/* ---- Lip-sync models (be_essence2_set_lipsync) ----------------------------------------------------- */
#define BE_ESSENCE2_LIPSYNC_LEARNED 0 /**< the learned audio-to-articulation model (default) */
#define BE_ESSENCE2_LIPSYNC_V1      1 /**< version 1: the hand-tuned mapping from loudness and spectral cues */

/* ---- Audio and frame constants ---------------------------------------------------------------------- */
#define BE_ESSENCE2_SAMPLE_RATE       16000 /**< Hz, the only input rate */
#define BE_ESSENCE2_FPS               25    /**< frames a second */
#define BE_ESSENCE2_SAMPLES_PER_FRAME 640   /**< samples of audio per frame (40 ms) */
#define BE_ESSENCE2_RING_SAMPLES      256000 /**< capacity of the audio ring in samples (16 s); the largest single push */

/* ---- Credentials ------------------------------------------------------------------------------------ */
/*
 * Sessions and metering (docs/sessions.md has the whole contract, docs/service-protocol.md the HTTP).
 *
 * No service configured (the default): sessions run unmetered and are never refused; nothing leaves the
 * machine and libcurl is not even loaded.
 *
 * A service configured (be_essence2_set_service_url(), else the environment variable ESSENCE2_SERVICE_URL,
 * else its older name ESSENCE2_METERING_URL): every be_essence2_create() checks the API secret and names the
 * avatar (the SHA-256 of the .imx file) to the service, waiting at most ESSENCE2_SERVICE_TIMEOUT_MS
 * milliseconds (default 5000) for the answer. No secret, a rejected secret (401), an account not entitled to
 * the avatar (403; the reason names AGENT_NOT_ENTITLED; nothing is billed) or no answer make create return
 * -3, with the reason from be_essence2_last_refusal(). Once a session runs:
 *   - usage is reported every report_interval_s (from the service) of wall time or of rendered video, in whole
 *     seconds: session time is rendered video, 40 ms per frame handed out by pull_frame / idle_frame, split
 *     into talking (SPEECH and RAMP frames) and idle; with an install identifier (a UUID kept in
 *     $XDG_STATE_HOME/essence2/install-id, default ~/.local/state/essence2/install-id). No audio, video or
 *     text ever leaves the machine.
 *   - the service unreachable: frames go on for 5 minutes of rendered video (7500 frames) after the first
 *     failed request, then pull_frame and idle_frame return -3 ("unreachable since ...") until a request
 *     succeeds again (retried every 2 s), then frames resume.
 *   - the secret rejected mid-session (401): final, pull_frame and idle_frame return -3 from then on.
 *   - no frame asked for during 60 s (wall clock): the session ends (a final report, billed to then); the
 *     next frame asked for starts a new session and is served while that check is pending.
 * The network is used by a background thread per engine; pull_frame and idle_frame never wait for it.
 * be_essence2_destroy() waits at most 2 s for the session's final report; be_essence2_quiesce_all() at most
 * its timeout. libcurl (libcurl.so.4, package libcurl4) is loaded at run time, only when a service is
 * configured; without it sessions are refused with a reason saying to install it. HTTPS is verified with the
 * system's CA bundle, and the proxy variables (https_proxy, http_proxy, no_proxy) apply.
 */

/**
 * Stores the API secret used by sessions created after this call.
 * @param secret NUL-terminated secret, copied; NULL clears it. Without a stored secret a session reads
 *               the environment: ESSENCE2_API_SECRET, then BITHUMAN_API_SECRET.
 * @return 0.
 * Reason: cleared.
 * Thread safety: safe from any thread.
 */
int32_t be_essence2_set_api_secret(const char *secret);

/**
 * Sets the metering service used by sessions created after this call (engines already created keep theirs).
 * Since 1.2 (#if ESSENCE2_VERSION_AT_LEAST(1, 2, 0)).
 * @param url NUL-terminated base URL, copied, for example "https://metering.example.com" or
 *            "http://127.0.0.1:8787" (http:// or https://, no spaces); NULL goes back to the environment
 *            (ESSENCE2_SERVICE_URL, else ESSENCE2_METERING_URL); "" means no service: sessions run unmetered
 *            whatever the environment says.
 * @return 0; -1 when url is not an http:// or https:// URL (nothing changes).
 * Reason: set on -1, cleared on 0.
 * Thread safety: safe from any thread.
 */
int32_t be_essence2_set_service_url(const char *url);

/**
 * Copies the sentence behind the latest refusal (-3) of this process: create's, or a frame's (pull_frame,
 * idle_frame).
 * @param out      destination, may be NULL when capacity is 0; receives a NUL-terminated, truncated copy.
 * @param capacity size of out in bytes.
 * @return the full length of the sentence in bytes (without NUL), 0 when nothing was refused, -1 when
 *         out is NULL with capacity > 0 or capacity < 0.
 * Reason: set on -1, cleared otherwise.
 * Thread safety: safe from any thread.
 */
int32_t be_essence2_last_refusal(char *out, int32_t capacity);

/**
 * Copies the reason of the latest failed call on the calling thread (for example why be_essence2_create
 * returned -2: "checksum mismatch in section 'image'").
 * @param out      destination, may be NULL when capacity is 0; receives a NUL-terminated, truncated copy
 *                 (cut at a UTF-8 character boundary).
 * @param capacity size of out in bytes.
 * @return the full length of the reason in bytes (without NUL), 0 when the latest call on this thread
 *         succeeded (or none failed yet), -1 when out is NULL with capacity > 0 or capacity < 0.
 * Reason: never changed, not even by its own -1, so it can be read again.
 * Thread safety: the reason is per thread.
 */
int32_t be_essence2_last_error(char *out, int32_t capacity);

/* ---- Downloads -------------------------------------------------------------------------------------- */
/*
 * Avatars by agent code from the configured service (see Credentials; docs/sessions.md, Downloads), with the
 * API secret: GET /v1/avatars/{code} (the metadata: sha256, size, format_version), then, when that sha256 is
 * not cached, GET /v1/avatars/{code}/file, whose SHA-256 and size must be the metadata's (otherwise nothing
 * is written). Files are cached, content-addressed, as <directory>/<sha256>.imx (default directory
 * $XDG_CACHE_HOME/essence2/avatars, else ~/.cache/essence2/avatars), each written atomically (a temporary file
 * renamed into place). The cache's index records, per service and code, the sha256 cached last and the
 * SHA-256 of each secret the service allowed to open it (never the secret).
 *
 * A copy cached for the code that this secret was allowed to open before is returned at once, and the
 * service is asked again on a background thread: a newer version is downloaded for the next call, and a
 * refusal (401, 403) forgets this secret's permission, so the next call is refused. Without an answer
 * (offline, timeout, 5xx) the call succeeds only with such a copy. Limits: 10 s for the metadata, 600 s and
 * 512 MiB for the file.
 */

/**
 * Downloads (or finds in the cache) the avatar `agent_code` and copies the path of its .imx file.
 * Since 1.2 (#if ESSENCE2_VERSION_AT_LEAST(1, 2, 0)).
 * @param agent_code NUL-terminated code of the avatar at the service (not empty).
 * @param directory  NUL-terminated cache directory (created if needed), or NULL for the default.
 * @param path_out   destination, may be NULL when capacity is 0; receives a NUL-terminated, truncated copy of
 *                   the path (a return value >= capacity means it was truncated: call again, larger).
 * @param capacity   size of path_out in bytes.
 * @return the full length of the path in bytes (without NUL), > 0;
 *         -1 agent_code NULL or empty, path_out NULL with capacity > 0, or capacity < 0;
 *         -2 no service configured, the service unreachable with no copy cached for this secret, no such
 *            avatar (404), a file whose sha256 or size is not the metadata's (nothing written), the avatar's
 *            format_version newer than this library reads ("outdated"), or the cache not writable;
 *         -3 no API secret, or the service refused this secret for this avatar (401 INVALID_SECRET,
 *            403 AGENT_NOT_ENTITLED), even when a copy is cached; be_essence2_last_refusal() gives the reason.
 * Reason: set on a negative return (the sentence, for -3 too), cleared otherwise.
 * Thread safety: safe from any thread; blocks for the network (up to the limits above) unless a copy is
 * cached. libcurl is loaded on the first call.
 */
int32_t be_essence2_download_avatar(const char *agent_code, const char *directory, char *path_out,
                                    int32_t capacity);

/* ---- Lifecycle -------------------------------------------------------------------------------------- */

/**
 * Opens an avatar file and starts an engine for it (its background render thread starts at once).
 * @param imx_path   path of the .imx avatar file.
 * @param motion_dir optional directory of runtime files, NULL for the defaults. This version carries
 *                   everything it needs inside the library and needs no runtime files; when given, the
 *                   directory must exist.
 * @param chunk      reserved, pass 0 (values outside 0..65536 are refused with -1).
 * @param out        receives the handle; set to NULL on failure.
 * @return 0; -1 bad argument (NULL imx_path or out, chunk out of range, motion_dir not a directory);
 *         -2 the file could not be opened or is not a valid avatar (missing, truncated, corrupt, failed
 *         checksum, unsupported version, absurd size; be_essence2_last_error() gives the reason);
 *         -3 refused by the credential check (be_essence2_last_refusal() gives the reason): no API secret,
 *         secret rejected, account not entitled to the avatar (AGENT_NOT_ENTITLED), metering service
 *         unreachable or not answering within ESSENCE2_SERVICE_TIMEOUT_MS, libcurl missing. Only with a
 *         metering service configured (see Credentials).
 * Reason: set on every failure (for -3 the refusal sentence), cleared on success.
 * Blocking: with a metering service configured, waits for its first answer (at most
 *         ESSENCE2_SERVICE_TIMEOUT_MS, default 5000 ms); without one, never.
 * Ownership: the caller owns the handle and releases it with be_essence2_destroy().
 * Memory: the first engine of the process fixes glibc's mmap threshold at 1 MiB (mallopt M_MMAP_THRESHOLD),
 *         unless the environment sets MALLOC_MMAP_THRESHOLD_, so that freed avatars and frames go back to the
 *         system instead of staying in malloc's per-thread arenas (a host that runs engines for hours keeps a
 *         flat resident size); be_essence2_destroy() returns the arenas' free pages (malloc_trim). Since 1.4.
 * Thread safety: safe from any thread.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_essence2_create(const char *imx_path, const char *motion_dir, int32_t chunk, be_essence2_handle *out);

/** be_essence2_avatar_kind(): a photoreal portrait (Essence 2: be_essence2_create). Since 1.4. */
#define BE_ESSENCE2_AVATAR_PHOTOREAL 0
/** be_essence2_avatar_kind(): a character (Expression 2: be_expression2_create, include/expression2.h). Since 1.4. */
#define BE_ESSENCE2_AVATAR_CHARACTER 1

/**
 * Which engine an avatar file is for, read and fully checked (as create does) without starting anything: a
 * host that takes any avatar calls this first and opens it with be_essence2_create() or be_expression2_create().
 * @param imx_path the .imx file; may not be NULL.
 * @return BE_ESSENCE2_AVATAR_PHOTOREAL or BE_ESSENCE2_AVATAR_CHARACTER; -1 for NULL; -2 the file is missing or
 *         invalid (the reason says why).
 * Reason: set on failure, cleared on success.
 * Thread safety: safe from any thread. Since 1.4.
 */
int32_t be_essence2_avatar_kind(const char *imx_path);

/**
 * Whether speech frames can flow: 1 once warm-up is over (the first idle frame has rendered), else 0.
 * Until then show be_essence2_idle_frame() output or nothing.
 * @return 1 or 0; 0 also for a NULL or unknown handle.
 * Reason: set for a NULL or unknown handle (tell it from "not ready yet" by be_essence2_last_error()),
 *         cleared otherwise.
 */
int32_t be_essence2_is_ready(be_essence2_handle h);

/**
 * Releases one engine. Queued audio and frames are dropped; the background thread finishes its current
 * frame and exits by itself (this call does not wait for it). With a metering service configured, the
 * session's final report is sent and waited for at most 2 s.
 * @param h handle from be_essence2_create(); NULL is a no-op.
 * @return 0; -1 for an unknown (or already destroyed) handle.
 * Reason: set on -1, cleared otherwise (also for NULL).
 * Thread safety: no other call may be in progress or made on h once this call has started.
 */
int32_t be_essence2_destroy(be_essence2_handle h);

/**
 * Stops every live engine of the process and waits, at most timeout_ms milliseconds in all, for their
 * background threads to finish (and, with a metering service, for their sessions' final reports). Stopped engines return no more frames (pull_frame and idle_frame return
 * 0); their handles must still be destroyed. Call it at process exit, or before unloading the library.
 * @param timeout_ms upper bound of the wait in milliseconds; values < 0 count as 0.
 * @return the number of engines stopped by this call.
 * Reason: cleared.
 * Thread safety: safe from any thread; the only call that may block.
 */
int32_t be_essence2_quiesce_all(int32_t timeout_ms);

/* ---- Audio and frames ------------------------------------------------------------------------------- */

/**
 * Queues speech audio of the current reply (or starts a new reply when none is running). Never blocks.
 * All or nothing: either every sample is queued, or none is.
 * @param samples count samples, 16 kHz mono int16, copied.
 * @param count   number of samples (not bytes), 0 .. BE_ESSENCE2_RING_SAMPLES; 0 queues nothing and returns 0.
 * @return 0 all queued; -2 nothing queued because the ring (BE_ESSENCE2_RING_SAMPLES, 16 s) has no room for
 *         count samples beside what it holds (pull frames and push again later), or because
 *         be_essence2_quiesce_all() stopped the engine; -1 bad argument (unknown handle, samples NULL with
 *         count > 0, count < 0 or larger than the ring).
 * Reason: set on -1 and -2 (for -2: how full the ring is, or that the engine was stopped), cleared on 0.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_essence2_push_audio(be_essence2_handle h, const int16_t *samples, int32_t count);

/**
 * Queues speech of the running reply (or starts one): any amount, mono, at any sample rate from 1000 to
 * 384000 Hz. The library resamples it to 16 kHz (one band-limited resampler, its filter carried from one call
 * to the next so pieces join seamlessly; a new rate starts a new filter; 16 kHz goes in unchanged). It never
 * blocks and never waits for ring room: what the ring cannot take yet waits inside the engine (up to 10
 * minutes of 16 kHz audio) and goes into the ring, in order, as frames are taken. be_essence2_push_audio()
 * after it queues behind what waits; be_essence2_end_utterance() ends the reply after it; be_essence2_reset()
 * drops it. Since 1.3.
 * @param samples     count samples (may be NULL when count is 0).
 * @param count       >= 0.
 * @param sample_rate the samples' rate in Hz.
 * @return 0 queued; -1 bad argument (unknown handle, samples NULL with count > 0, count < 0, a sample rate
 *         outside 1000...384000); -2 nothing was queued: the audio waiting would exceed 10 minutes (take frames,
 *         then feed again), or be_essence2_quiesce_all() stopped the engine.
 * Reason: set on -1 and -2, cleared on 0. Thread safety: any thread; calls from several threads queue in the
 * order they take the engine's feed lock.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_essence2_feed_audio(be_essence2_handle h, const int16_t *samples, int32_t count, int32_t sample_rate);

/**
 * be_essence2_feed_audio() for float samples, full scale -1...1: each becomes round(x * 32768) clipped to
 * -32768...32767 (NaN and infinities are silence), the library's one rule (the inverse of reading 16-bit
 * audio as x / 32768). Since 1.3.
 * @return as be_essence2_feed_audio(). Reason: as be_essence2_feed_audio().
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_essence2_feed_float(be_essence2_handle h, const float *samples, int32_t count, int32_t sample_rate);

/** Samples (16 kHz) fed with be_essence2_feed_audio() / _feed_float() that still wait beyond the ring. @return
 *  >= 0, or -1 for an unknown handle. Reason: set on -1, cleared otherwise. Since 1.3. */
int64_t be_essence2_pending_samples(be_essence2_handle h);

/**
 * Marks the current reply's audio complete: its remaining frames render (the last partial 40 ms padded
 * with silence), then the face eases back to rest at once (RAMP frames, then IDLE), instead of waiting for
 * 0.6 s without audio. Audio pushed afterwards starts a new reply. Without a running reply it does nothing.
 * Audio fed with be_essence2_feed_audio() or be_essence2_feed_float() that still waits beyond the ring belongs
 * to the reply: it ends after that audio (since 1.3).
 * @return 0, or -1 for an unknown handle.
 * Reason: set on -1, cleared on 0.
 */
int32_t be_essence2_end_utterance(be_essence2_handle h);

/**
 * Frames ready to pull now: 0 when the next pull would return 0 (in realtime pacing: no frame is due yet,
 * or the due frame has not rendered), else the number of rendered frames waiting (at least 1).
 * @return >= 0, or -1 for an unknown handle.
 * Reason: set on -1, cleared otherwise.
 */
int32_t be_essence2_frames_available(be_essence2_handle h);

/**
 * Takes the next frame that is due: a SPEECH or RAMP frame of a reply, or an IDLE frame between replies
 * (be_essence2_last_frame_kind() tells which). In realtime pacing at most 25 frames a second are handed out,
 * shared with be_essence2_idle_frame(); a reply's frame k is due k/25 s after its first frame was handed out,
 * and frames that would be shown a full frame period late are skipped (be_essence2_skipped_frames()).
 * In unpaced pacing frames come as fast as they render: while a reply's audio is queued only its frames.
 * @param out      receives width*height*3 bytes (B,G,R) for the current mode.
 * @param capacity size of out in bytes, at least width*height*3.
 * @return the number of bytes written; 0 when no frame is due yet (keep showing the current one);
 *         -1 bad argument (unknown handle, NULL out, capacity smaller than a frame);
 *         -3 the session refuses frames (only with a metering service configured; be_essence2_last_refusal()
 *         and be_essence2_last_error() give the reason): the service has been unreachable for 5 minutes of
 *         rendered video (frames resume once it answers: call again after a pause, a second say, since
 *         be_essence2_frame_fd() stays readable meanwhile), or it rejected the secret mid-session (final:
 *         destroy the engine).
 * Reason: set on -1 and -3, cleared otherwise (0 is not a failure).
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_essence2_pull_frame(be_essence2_handle h, uint8_t *out, int32_t capacity);

/* ---- The frame record (since 1.3) ---------------------------------------------------------------- */

/** Samples of audio in one frame (40 ms at 16 kHz): the size of be_essence2_frame_info.audio. */
#define BE_ESSENCE2_FRAME_AUDIO_SAMPLES 640

/**
 * What the engine knows about a frame it hands out, filled by be_essence2_take_frame(). The struct grows only
 * at its end: set `size` to sizeof(be_essence2_frame_info) before each call; the library writes no byte past
 * `size` and refuses a size smaller than this version's (1.3) struct. Since 1.3.
 */
typedef struct be_essence2_frame_info {
    uint32_t size;          /**< in: sizeof(be_essence2_frame_info) as the caller compiled it */
    int32_t kind;           /**< BE_ESSENCE2_FRAME_IDLE, _SPEECH or _RAMP */
    int64_t index;          /**< frames this engine handed out before this one (0 for the first) */
    int64_t reply;          /**< speech and ramp frames: the reply's number, 1 for the engine's first; 0 for idle */
    int64_t reply_frame;    /**< speech and ramp frames: the frame's index within its reply; -1 for idle */
    double audio_time;      /**< speech frames: seconds into the reply's audio where this frame's audio starts
                                 (0, 0.04, ...: start the reply's sound on 0); -1 when has_audio_time is 0 */
    int32_t has_audio_time; /**< 1 for speech frames, 0 otherwise (no audio time) */
    int32_t ends_reply;     /**< 1 on the first frame after a reply ended, once per reply (the idle frame after its
                                 ramp, the frame after an interrupt, or speech straight after a ramp) */
    int64_t skipped;        /**< reply frames skipped (late, their audio already played, or passed over by the
                                 playout anchor) since the frame handed out before this one */
    int32_t bytes;          /**< bytes written to pixels: width * height * 3 of the current mode */
    int32_t audio_samples;  /**< samples of the reply's audio this frame covers, 0 to 640 (640 for speech frames
                                 but a reply's last partial one or a frame held while live audio ran dry) */
    int16_t audio[BE_ESSENCE2_FRAME_AUDIO_SAMPLES]; /**< the frame's own speech, 16 kHz mono: audio_samples
                                 samples of the reply, then silence (all silence outside speech) */
} be_essence2_frame_info;

/**
 * be_essence2_pull_frame() with the frame's record: takes the next due frame into `pixels` and fills `info`
 * with its kind, its place among the frames handed out and in its reply, its audio time, whether it ends a
 * reply, the frames skipped before it and its own 640 samples of speech. A host that plays the sound of the
 * frames it shows (a muxer, a WebRTC track, a pipeline's audio pad) takes each frame's audio from here: no
 * copy of the pushed audio or of the reply rules is needed. Frames taken with be_essence2_pull_frame() or
 * be_essence2_idle_frame() are counted in `index` too.
 * @param pixels   receives width*height*3 bytes (B,G,R) for the current mode.
 * @param capacity size of pixels in bytes, at least width*height*3.
 * @param info     caller-owned; `size` set by the caller (see be_essence2_frame_info). Written only when a
 *                 frame is returned.
 * @return the number of bytes written; 0 when no frame is due yet (info untouched);
 *         -1 bad argument (unknown handle, NULL pixels or info, capacity smaller than a frame, info->size
 *         smaller than the 1.3 struct); -3 the session refuses frames, as be_essence2_pull_frame().
 * Reason: set on -1 and -3, cleared otherwise. Thread safety: as be_essence2_pull_frame(). Since 1.3.
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_essence2_take_frame(be_essence2_handle h, uint8_t *pixels, int32_t capacity, be_essence2_frame_info *info);

/**
 * Takes the next idle frame (kind IDLE, mouth at rest, idle motion going on), whatever the reply state;
 * for showing while not ready. It obeys the same 25-a-second pacing as be_essence2_pull_frame().
 * @return as be_essence2_pull_frame().
 * Reason: as be_essence2_pull_frame().
 */
BE_ESSENCE2_WARN_UNUSED_RESULT
int32_t be_essence2_idle_frame(be_essence2_handle h, uint8_t *out, int32_t capacity);

/**
 * A file descriptor that is readable while a frame can be pulled (be_essence2_frames_available() > 0), so a
 * host can wait for the next frame in poll(), epoll, select or an event loop (GLib, libuv, ...) instead of
 * sleeping. In realtime pacing it becomes readable when the next frame falls due (within about 1 ms) and has
 * rendered; in unpaced pacing as soon as a frame has rendered. It is level-triggered: it stays readable until
 * the pulls have taken what is available. Waiting on it never blocks the engine, and no other call waits.
 * Wait for POLLIN / EPOLLIN only; never read, write or close it. A pull after it became readable may still
 * return 0 in a race with the pacing clock: then wait again.
 * @return the descriptor (>= 0; the same one on every call), or -1 (unknown handle, or no descriptor could be
 *         made: too many open files).
 * Reason: set on -1, cleared otherwise.
 * Ownership: the engine owns it and closes it when it is destroyed: remove it from your event loop before
 *         be_essence2_destroy().
 * Thread safety: safe from any thread; any thread may wait on the descriptor.
 */
int32_t be_essence2_frame_fd(be_essence2_handle h);

/**
 * How many replies have started and ended, as seen in the frames handed out: a reply starts with its first
 * SPEECH frame and ends with the first IDLE frame after it (or when an interrupt ends it). A C loop sees the
 * end of a reply when `ended` grows, without comparing frame kinds itself.
 * @param started optional (may be NULL): receives the replies started so far.
 * @param ended   optional (may be NULL): receives the replies ended so far (started - 1 <= ended <= started).
 * @return 0, or -1 for an unknown handle.
 * Reason: set on -1, cleared on 0.
 */
int32_t be_essence2_reply_counts(be_essence2_handle h, int64_t *started, int64_t *ended);

/**
 * Frame size of the current mode, in pixels.
 * @param width  receives the width; may not be NULL.
 * @param height receives the height; may not be NULL.
 * @return 0, or -1 (unknown handle, NULL pointer).
 * Reason: set on -1, cleared on 0.
 */
int32_t be_essence2_get_info(be_essence2_handle h, int32_t *width, int32_t *height);

/**
 * Interrupt (barge-in): drops the queued audio and the queued frames of the current reply at once. The
 * next frames continue from the frame last handed out and ease to rest (RAMP, then IDLE); the picture never
 * jumps. The reply ends here, once. Without a running reply it does nothing.
 * @return 0, or -1 for an unknown handle.
 * Reason: set on -1, cleared on 0.
 */
int32_t be_essence2_reset(be_essence2_handle h);

/**
 * What the last frame handed out (by pull_frame or idle_frame) shows.
 * @return BE_ESSENCE2_FRAME_IDLE, _SPEECH or _RAMP; -1 before any frame, and for an unknown handle.
 * Reason: set for an unknown handle, cleared otherwise (-1 before any frame is not a failure).
 */
int32_t be_essence2_last_frame_kind(be_essence2_handle h);

/* ---- Display and status ----------------------------------------------------------------------------- */

/**
 * Chooses what the frames show; takes effect with the next frame rendered (queued frames of the old mode
 * are dropped and rendered again).
 * @param mode BE_ESSENCE2_MODE_FULL or BE_ESSENCE2_MODE_HEAD.
 * @return 0; -1 unknown handle; -2 unknown mode.
 * Reason: set on -1 and -2, cleared on 0.
 */
int32_t be_essence2_set_mode(be_essence2_handle h, int32_t mode);

/**
 * Health of the background renderer.
 * @param reason   optional (may be NULL when len is 0): receives the reason of the latest failure,
 *                 NUL-terminated and truncated to len bytes; an empty string when healthy.
 * @param len      size of reason in bytes.
 * @param failures optional (may be NULL): receives the number of failed renders so far.
 * @return 0 healthy; -1 (BE_ESSENCE2_ERR_RENDER) rendering failed, with the reason and count copied out;
 *         -4 (BE_ESSENCE2_ERR_STATUS_ARGUMENT) unknown handle, reason NULL with len > 0, or len < 0. Unlike
 *         every other function, -1 here is not a bad argument: it keeps the reference interface's meaning.
 * Reason: set on -1 (how many renders failed, and the latest reason) and -4, cleared on 0.
 */
int32_t be_essence2_render_status(be_essence2_handle h, char *reason, int32_t len, int64_t *failures);

/** Speech frames handed out so far by this engine. @return >= 0, or -1 for an unknown handle.
 *  Reason: set on -1, cleared otherwise. */
int64_t be_essence2_pulled_speech_frames(be_essence2_handle h);

/**
 * When on, each reply starts at the live audio position instead of at its first frame: the frames whose
 * audio has already played (by be_essence2_set_playout_position(), or by the wall time since the reply's
 * first audio was pushed in realtime pacing) are skipped and counted in be_essence2_anchor_slots().
 * Off by default.
 * @param on 0 off, anything else on.
 * @return 0, or -1 for an unknown handle.
 * Reason: set on -1, cleared on 0.
 */
int32_t be_essence2_set_playout_anchor(be_essence2_handle h, int32_t on);

/**
 * Optional: how many samples of the current reply's audio the host has actually played. Frames whose
 * 640 samples have all played are skipped (counted in be_essence2_skipped_frames()), so the face stays on
 * the voice when the engine renders below real time. Applies to the running reply; a new reply starts at 0.
 * @param samples_played samples, >= 0.
 * @return 0, or -1 (unknown handle, negative value).
 * Reason: set on -1, cleared on 0.
 */
int32_t be_essence2_set_playout_position(be_essence2_handle h, int64_t samples_played);

/** Index within its reply of the last speech or ramp frame handed out; -1 before any, for idle frames, and for an
 *  unknown handle. Reason: set for an unknown handle, cleared otherwise. */
int64_t be_essence2_last_frame_index(be_essence2_handle h);

/** Reply frames skipped because they would have been shown a full frame period late, or their audio had already
 *  played. -1 for an unknown handle. Reason: set on -1, cleared otherwise. */
int64_t be_essence2_skipped_frames(be_essence2_handle h);

/** Frame slots dropped by re-anchoring the 25-a-second clock after a long stall (more than 2 frame periods).
 *  -1 for an unknown handle. Reason: set on -1, cleared otherwise. */
int64_t be_essence2_reanchor_slots(be_essence2_handle h);

/** Reply frames skipped by the playout anchor (be_essence2_set_playout_anchor()). -1 for an unknown handle.
 *  Reason: set on -1, cleared otherwise. */
int64_t be_essence2_anchor_slots(be_essence2_handle h);

/* ---- Ours, beyond the reference interface ----------------------------------------------------------- */

/**
 * Chooses the pacing. In UNPACED pacing frames are handed out as fast as they render, speech frames come
 * only from pushed audio (no silence is invented while waiting), the 0.6 s end-of-reply rule still counts
 * wall time, and the output is deterministic: the same avatar, audio and seed give byte-identical frames.
 * @param mode BE_ESSENCE2_PACING_REALTIME, BE_ESSENCE2_PACING_UNPACED or (since 1.3) BE_ESSENCE2_PACING_AUDIO_CLOCK.
 * @return 0; -1 unknown handle; -2 unknown mode.
 * Reason: set on -1 and -2, cleared on 0.
 */
int32_t be_essence2_set_pacing(be_essence2_handle h, int32_t mode);

/**
 * Chooses how audio becomes mouth movement, for the replies started after this call; a reply already
 * running keeps the model it started with. Both models are deterministic in UNPACED pacing.
 * @param model BE_ESSENCE2_LIPSYNC_LEARNED (the default) or BE_ESSENCE2_LIPSYNC_V1 (the loudness-driven
 *              mapping of version 1, kept for comparison).
 * @return 0; -1 unknown handle; -2 unknown model.
 * Reason: set on -1 and -2, cleared on 0.
 * Thread safety: safe from any thread.
 */
int32_t be_essence2_set_lipsync(be_essence2_handle h, int32_t model);

/**
 * Seeds the idle motion (blink times, head movement); takes effect for the frames planned from now on
 * (queued idle frames are planned again). Call it right after create for reproducible output. The default
 * seed comes from the avatar file.
 * @return 0, or -1 for an unknown handle.
 * Reason: set on -1, cleared on 0.
 */
int32_t be_essence2_set_seed(be_essence2_handle h, uint64_t seed);

/** The library version, "MAJOR.MINOR.PATCH". @return a static NUL-terminated string; never free it.
 *  Reason: not touched. */
BE_ESSENCE2_RETURNS_NONNULL
const char *be_essence2_version(void);

/** The library version as ESSENCE2_VERSION_NUMBER(major, minor, patch), to compare with ESSENCE2_VERSION
 *  (the header compiled against), for example when the library is loaded as a plugin. Reason: not touched. */
int32_t be_essence2_version_number(void);

/**
 * A short English description of a return code. The same code means slightly different things for
 * different functions (see each function), so -2 reads "avatar file missing or invalid (create), audio ring
 * full or engine stopped (push_audio), or unknown mode, pacing or model (set_*)"; be_essence2_last_error()
 * gives the precise reason of the latest failure.
 * @return a static NUL-terminated string; never free it. Unknown codes give "unknown error".
 * Reason: not touched.
 */
BE_ESSENCE2_RETURNS_NONNULL
const char *be_essence2_strerror(int32_t code);

#ifdef __cplusplus
}
#endif

#endif /* ESSENCE2_H */
