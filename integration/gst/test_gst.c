/*
 * test_gst.c - tests of the essence2avatar GStreamer element through real pipelines (GST_PLUGIN_PATH must
 * reach build/gst).
 *
 *   test_gst elements AVATAR SPEECH.wav      caps, timestamps, the speech on the audio pad, end-of-stream,
 *                                            speech at 44.1 kHz S16LE and 48 kHz F32LE, a flushing seek
 *                                            mid-reply, a bad and a corrupt avatar, live pacing, 20 pipelines
 *                                            in one process with no leak
 *   test_gst sync FILE.mp4 AVATAR SPEECH.wav  audio and video of a muxed file in step: the video's frames
 *                                            against the engine's own render of SPEECH, the sound track against
 *                                            SPEECH
 *
 * Prints "ok"/"FAIL" per check and ends with "gst: N passed, M failed"; exits non-zero on any failure.
 */
#include <dirent.h>
#include <essence2.h>
#include <gst/app/app.h>
#include <gst/gst.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void check(int ok, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void check(int ok, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  printf(ok ? "ok   " : "FAIL ");
  vprintf(fmt, args);
  printf("\n");
  fflush(stdout);
  va_end(args);
  if (ok) {
    passed++;
  } else {
    failed++;
  }
}

#define FRAME GST_SECOND / 25
#define SPF 640

/* ---- helpers -------------------------------------------------------------------------------------------- */

static int16_t *read_wav(const char *path, int64_t *count) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *sf = sf_open(path, SFM_READ, &info);
  if (sf == NULL) {
    fprintf(stderr, "%s: %s\n", path, sf_strerror(NULL));
    return NULL;
  }
  if (info.samplerate != 16000 || info.channels != 1) {
    fprintf(stderr, "%s: need 16 kHz mono, got %d Hz, %d channels\n", path, info.samplerate, info.channels);
    sf_close(sf);
    return NULL;
  }
  int16_t *samples = g_new0(int16_t, info.frames + 1);
  *count = sf_readf_short(sf, samples, info.frames);
  sf_close(sf);
  return samples;
}

/* Runs a pipeline to end-of-stream or error; returns the error message (g_free) or NULL. */
static gchar *run_to_end(GstElement *pipeline, GstClockTime timeout, gboolean *eos) {
  *eos = FALSE;
  gchar *error = NULL;
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    error = g_strdup("set_state(PLAYING) failed");
  }
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered(bus, timeout, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg != NULL && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *debug = NULL;
    gst_message_parse_error(msg, &err, &debug);
    g_free(error);
    error = g_strdup_printf("%s (%s)", err->message, debug ? debug : "");
    g_error_free(err);
    g_free(debug);
  } else if (msg != NULL) {
    *eos = TRUE;
  } else if (error == NULL) {
    error = g_strdup("timed out");
  }
  if (msg != NULL) gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  return error;
}

typedef struct {
  GstClockTime pts, duration;
  gchar kind[8];
  int16_t audio[SPF];
  gboolean have_audio;
  GstClockTime audio_pts;
} Frame;

static const char *meta_kind(GstBuffer *buffer) {
  GstCustomMeta *meta = gst_buffer_get_custom_meta(buffer, "Essence2FrameMeta");
  if (meta == NULL) return "none";
  const gchar *kind = gst_structure_get_string(gst_custom_meta_get_structure(meta), "kind");
  return kind ? kind : "none";
}

/* Pulls video (and the audio pad's buffers, one per frame) until end-of-stream; appends to frames. */
static void collect(GstAppSink *video, GstAppSink *audio, GArray *frames, guint limit, GstCaps **vcaps,
                    GstCaps **acaps) {
  guint start = frames->len;
  while (frames->len - start < limit) {
    GstSample *s = gst_app_sink_try_pull_sample(video, 30 * GST_SECOND);
    if (s == NULL) break;
    if (vcaps != NULL && *vcaps == NULL) *vcaps = gst_caps_ref(gst_sample_get_caps(s));
    GstBuffer *b = gst_sample_get_buffer(s);
    Frame f;
    memset(&f, 0, sizeof f);
    f.pts = GST_BUFFER_PTS(b);
    f.duration = GST_BUFFER_DURATION(b);
    g_strlcpy(f.kind, meta_kind(b), sizeof f.kind);
    gst_sample_unref(s);
    GstSample *a = gst_app_sink_try_pull_sample(audio, 30 * GST_SECOND);
    if (a != NULL) {
      if (acaps != NULL && *acaps == NULL) *acaps = gst_caps_ref(gst_sample_get_caps(a));
      GstBuffer *ab = gst_sample_get_buffer(a);
      f.have_audio = gst_buffer_get_size(ab) == sizeof f.audio;
      gst_buffer_extract(ab, 0, f.audio, sizeof f.audio);
      f.audio_pts = GST_BUFFER_PTS(ab);
      gst_sample_unref(a);
    }
    g_array_append_val(frames, f);
  }
  if (limit != G_MAXUINT) return;
  /* The video ended: the audio pad's end-of-stream follows from its own thread (no buffer may remain). */
  GstSample *extra;
  while ((extra = gst_app_sink_try_pull_sample(audio, 10 * GST_SECOND)) != NULL) {
    Frame f;
    memset(&f, 0, sizeof f);
    g_strlcpy(f.kind, "extra", sizeof f.kind);
    g_array_append_val(frames, f);
    gst_sample_unref(extra);
  }
}

static long proc_count(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return -1;
  long n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* What each open descriptor is ("3:anon_inode:[eventfd] 4:socket:[123] ..."), for a failed leak check's message. */
static void describe_fds(char *out, size_t size) {
  out[0] = 0;
  DIR *d = opendir("/proc/self/fd");
  if (d == NULL) return;
  size_t used = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && used + 1 < size) {
    if (e->d_name[0] == '.') continue;
    char path[300], target[200];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1);
    target[n < 0 ? 0 : n] = 0;
    int w = snprintf(out + used, size - used, "%s%s:%s", used ? " " : "", e->d_name, target);
    if (w < 0) break;
    used += (size_t)w < size - used ? (size_t)w : size - used - 1;
  }
  closedir(d);
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  }
  fclose(f);
  return kib;
}

/* ---- elements ------------------------------------------------------------------------------------------- */

static void test_file(const char *avatar, const char *wav, const int16_t *speech, int64_t count) {
  gchar *desc = g_strdup_printf(
      "filesrc location=\"%s\" ! wavparse ! essence2avatar avatar=\"%s\" name=a "
      "a.video ! appsink name=v sync=false max-buffers=0 a.audio ! appsink name=au sync=false max-buffers=0",
      wav, avatar);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch(desc, &err);
  g_free(desc);
  if (pipeline == NULL) {
    check(0, "parse the file pipeline: %s", err ? err->message : "?");
    return;
  }
  GstAppSink *v = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "v"));
  GstAppSink *au = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "au"));
  gint64 t0 = g_get_monotonic_time();
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GArray *frames = g_array_new(FALSE, TRUE, sizeof(Frame));
  GstCaps *vcaps = NULL, *acaps = NULL;
  collect(v, au, frames, G_MAXUINT, &vcaps, &acaps);
  double seconds = (double)(g_get_monotonic_time() - t0) / 1e6;
  check(gst_app_sink_is_eos(v) && gst_app_sink_is_eos(au), "end-of-stream on both pads after %u frames, %.2f s",
        frames->len, seconds);

  GstStructure *vs = vcaps ? gst_caps_get_structure(vcaps, 0) : NULL;
  gint w = 0, h = 0, fn = 0, fd = 0;
  if (vs != NULL) {
    gst_structure_get_int(vs, "width", &w);
    gst_structure_get_int(vs, "height", &h);
    gst_structure_get_fraction(vs, "framerate", &fn, &fd);
  }
  be_essence2_handle e = NULL;
  int32_t aw = 0, ah = 0;
  if (be_essence2_create(avatar, NULL, 0, &e) == 0) {
    be_essence2_get_info(e, &aw, &ah);
    be_essence2_destroy(e);
  }
  check(vs != NULL && g_strcmp0(gst_structure_get_string(vs, "format"), "BGR") == 0 && w == aw && h == ah &&
            fn == 25 && fd == 1,
        "video caps: %s", vcaps ? gst_caps_to_string(vcaps) : "none");
  GstStructure *as = acaps ? gst_caps_get_structure(acaps, 0) : NULL;
  gint rate = 0, channels = 0;
  if (as != NULL) {
    gst_structure_get_int(as, "rate", &rate);
    gst_structure_get_int(as, "channels", &channels);
  }
  check(as != NULL && g_strcmp0(gst_structure_get_string(as, "format"), "S16LE") == 0 && rate == 16000 &&
            channels == 1,
        "audio caps: %s", acaps ? gst_caps_to_string(acaps) : "none");

  guint speech_frames = (guint)((count + SPF - 1) / SPF);
  guint n_speech = 0, n_ramp = 0, n_other = 0, order_ok = 1, ts_ok = 1, audio_ts_ok = 1;
  for (guint k = 0; k < frames->len; k++) {
    Frame *f = &g_array_index(frames, Frame, k);
    GstClockTime want = gst_util_uint64_scale(k, GST_SECOND, 25);
    GstClockTime next = gst_util_uint64_scale(k + 1, GST_SECOND, 25);
    if (f->pts != want || f->duration != next - want) ts_ok = 0;
    if (!f->have_audio || f->audio_pts != f->pts) audio_ts_ok = 0;
    if (strcmp(f->kind, "speech") == 0) {
      n_speech++;
      if (n_ramp > 0) order_ok = 0;
    } else if (strcmp(f->kind, "ramp") == 0) {
      n_ramp++;
    } else {
      n_other++;
    }
  }
  check(ts_ok && frames->len > 0, "video timestamps: frame k at k x 40 ms, 40 ms long, from 0 (%u frames)",
        frames->len);
  check(audio_ts_ok, "one audio buffer of 640 samples per video frame, with the frame's timestamp");
  check(n_speech == speech_frames && n_ramp >= 1 && n_ramp <= 25 && n_other == 0 && order_ok,
        "end-of-stream ends the reply: %u speech frames (%.3f s of speech), then %u ramp frames easing to rest, "
        "no idle frame",
        n_speech, (double)count / 16000, n_ramp);
  int64_t mismatched = 0, silent_ok = 1;
  for (guint k = 0; k < frames->len; k++) {
    Frame *f = &g_array_index(frames, Frame, k);
    for (int i = 0; i < SPF; i++) {
      int64_t at = (int64_t)k * SPF + i;
      int16_t want = at < count && k < speech_frames ? speech[at] : 0;
      if (f->audio[i] != want) {
        if (k < speech_frames) {
          mismatched++;
        } else {
          silent_ok = 0;
        }
      }
    }
  }
  check(mismatched == 0 && silent_ok,
        "the audio pad carries the speech sample for sample under the frames that show it (%" G_GINT64_FORMAT
        " samples differ), silence under the ramp",
        mismatched);
  if (vcaps) gst_caps_unref(vcaps);
  if (acaps) gst_caps_unref(acaps);
  g_array_free(frames, TRUE);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(v);
  gst_object_unref(au);
  gst_object_unref(pipeline);
}

/* Speech at another rate, in 16-bit or float: the library resamples it, so the replies and the frames' own audio
 * (16 kHz) are those of the speech itself. */
static void test_rate(const char *avatar, const char *wav, const int16_t *speech, int64_t count, const char *format,
                      int rate) {
  gchar *desc = g_strdup_printf(
      "filesrc location=\"%s\" ! wavparse ! audioconvert ! audioresample ! "
      "audio/x-raw,format=%s,rate=%d,channels=1 ! essence2avatar avatar=\"%s\" name=a "
      "a.video ! appsink name=v sync=false max-buffers=0 a.audio ! appsink name=au sync=false max-buffers=0",
      wav, format, rate, avatar);
  GstElement *pipeline = gst_parse_launch(desc, NULL);
  g_free(desc);
  if (pipeline == NULL) {
    check(0, "parse the %s %d Hz pipeline", format, rate);
    return;
  }
  GstAppSink *v = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "v"));
  GstAppSink *au = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "au"));
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GArray *frames = g_array_new(FALSE, TRUE, sizeof(Frame));
  GstCaps *acaps = NULL;
  collect(v, au, frames, G_MAXUINT, NULL, &acaps);
  guint speech_frames = (guint)((count + SPF - 1) / SPF), n_speech = 0, n_ramp = 0, n_other = 0;
  GArray *heard = g_array_new(FALSE, TRUE, sizeof(int16_t));
  for (guint k = 0; k < frames->len; k++) {
    Frame *f = &g_array_index(frames, Frame, k);
    if (strcmp(f->kind, "speech") == 0) {
      n_speech++;
      g_array_append_vals(heard, f->audio, SPF);
    } else if (strcmp(f->kind, "ramp") == 0) {
      n_ramp++;
    } else {
      n_other++;
    }
  }
  /* Where the speech sits in the frames' audio (normalised cross-correlation, +-2 ms). */
  int best_off = 0;
  double best_corr = -2;
  int64_t n = MIN(count, (int64_t)heard->len) - 64;
  for (int off = -32; off <= 32; off++) {
    double sxy = 0, sxx = 0, syy = 0;
    for (int64_t i = 32; i < n; i++) {
      double x = speech[i], y = g_array_index(heard, int16_t, i + off);
      sxy += x * y;
      sxx += x * x;
      syy += y * y;
    }
    double c = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
    if (c > best_corr) {
      best_corr = c;
      best_off = off;
    }
  }
  gint out_rate = 0;
  if (acaps != NULL) gst_structure_get_int(gst_caps_get_structure(acaps, 0), "rate", &out_rate);
  check(gst_app_sink_is_eos(v) && gst_app_sink_is_eos(au) && n_speech + 1 >= speech_frames &&
            n_speech <= speech_frames + 1 && n_ramp >= 1 && n_ramp <= 25 && n_other == 0 && out_rate == 16000 &&
            best_corr > 0.95 && abs(best_off) <= 1,
        "%s at %d Hz in: %u speech frames (%u at 16 kHz), %u ramp, %u other; the audio pad's 16 kHz speech matches "
        "the original at %d samples (correlation %.3f)",
        format, rate, n_speech, speech_frames, n_ramp, n_other, best_off, best_corr);
  if (acaps) gst_caps_unref(acaps);
  g_array_free(heard, TRUE);
  g_array_free(frames, TRUE);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(v);
  gst_object_unref(au);
  gst_object_unref(pipeline);
}

static void test_flush(const char *avatar, const char *wav, int64_t count) {
  gchar *desc = g_strdup_printf(
      "filesrc location=\"%s\" ! wavparse ! essence2avatar avatar=\"%s\" name=a "
      "a.video ! appsink name=v sync=false max-buffers=2 a.audio ! appsink name=au sync=false max-buffers=0",
      wav, avatar);
  GstElement *pipeline = gst_parse_launch(desc, NULL);
  g_free(desc);
  if (pipeline == NULL) {
    check(0, "parse the flush pipeline");
    return;
  }
  GstAppSink *v = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "v"));
  GstAppSink *au = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "au"));
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  gst_element_get_state(pipeline, NULL, NULL, 10 * GST_SECOND);
  GArray *before = g_array_new(FALSE, TRUE, sizeof(Frame));
  collect(v, au, before, 20, NULL, NULL);
  /* A flushing seek to 3 s: flush-start and flush-stop reach the element mid-reply. */
  gboolean seeked = gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 3 * GST_SECOND);
  GArray *after = g_array_new(FALSE, TRUE, sizeof(Frame));
  /* Buffers already in the appsinks before the flush are dropped by it; what comes now is after the seek. */
  collect(v, au, after, G_MAXUINT, NULL, NULL);
  check(seeked && before->len == 20, "a flushing seek mid-reply (after %u frames) is accepted", before->len);
  guint lead_ramp = 0, n_speech = 0, contiguous = 1;
  gboolean speech_seen = FALSE;
  for (guint k = 0; k < after->len; k++) {
    Frame *f = &g_array_index(after, Frame, k);
    if (k > 0 && f->pts != g_array_index(after, Frame, k - 1).pts + f->duration &&
        f->pts - g_array_index(after, Frame, k - 1).pts > FRAME + 1)
      contiguous = 0;
    if (strcmp(f->kind, "speech") == 0) {
      speech_seen = TRUE;
      n_speech++;
    } else if (!speech_seen && strcmp(f->kind, "ramp") == 0) {
      lead_ramp++;
    }
  }
  GstClockTime first = after->len ? g_array_index(after, Frame, 0).pts : GST_CLOCK_TIME_NONE;
  guint want_speech = (guint)((count - 3 * 16000 + SPF - 1) / SPF);
  check(after->len > 0 && first >= 3 * GST_SECOND && first < 3 * GST_SECOND + FRAME && contiguous,
        "after the flush, frames start at the seek position (%.3f s) and run on every 40 ms",
        (double)first / GST_SECOND);
  check(n_speech == want_speech && lead_ramp <= 25,
        "the flush interrupted the reply: %u frames easing from the interrupted face, then the %u speech frames "
        "of the audio after 3 s (want %u)",
        lead_ramp, n_speech, want_speech);
  check(gst_app_sink_is_eos(v) && gst_app_sink_is_eos(au), "end-of-stream after the flush");
  g_array_free(before, TRUE);
  g_array_free(after, TRUE);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(v);
  gst_object_unref(au);
  gst_object_unref(pipeline);
}

static void test_bad_avatar(const char *path, const char *what, const char *expect) {
  gchar *desc = g_strdup_printf("audiotestsrc num-buffers=10 samplesperbuffer=320 ! "
                                "audio/x-raw,format=S16LE,rate=16000,channels=1 ! essence2avatar avatar=\"%s\" "
                                "name=a a.video ! fakesink a.audio ! fakesink",
                                path);
  GstElement *pipeline = gst_parse_launch(desc, NULL);
  g_free(desc);
  gboolean eos = FALSE;
  gint64 t0 = g_get_monotonic_time();
  gchar *error = run_to_end(pipeline, 10 * GST_SECOND, &eos);
  double seconds = (double)(g_get_monotonic_time() - t0) / 1e6;
  GstState state = GST_STATE_VOID_PENDING;
  gst_element_get_state(pipeline, &state, NULL, 0);
  check(error != NULL && strstr(error, expect) != NULL && !eos && state == GST_STATE_NULL && seconds < 5,
        "%s: an error on the bus with the library's reason, and the pipeline stops (%.2f s): %s", what, seconds,
        error ? error : "no error");
  g_free(error);
  gst_object_unref(pipeline);
}

static void test_live(const char *avatar) {
  /* 2 s of a live tone, 20 ms buffers: one frame every 40 ms of the clock, then the ramp, then end-of-stream. */
  gchar *desc = g_strdup_printf(
      "audiotestsrc is-live=true num-buffers=100 samplesperbuffer=320 wave=sine freq=180 volume=0.4 ! "
      "audio/x-raw,format=S16LE,rate=16000,channels=1 ! essence2avatar avatar=\"%s\" pacing=live name=a "
      "a.video ! appsink name=v sync=true max-buffers=0 a.audio ! appsink name=au sync=true max-buffers=0",
      avatar);
  GstElement *pipeline = gst_parse_launch(desc, NULL);
  g_free(desc);
  GstAppSink *v = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "v"));
  GstAppSink *au = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "au"));
  gint64 t0 = g_get_monotonic_time();
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GArray *frames = g_array_new(FALSE, TRUE, sizeof(Frame));
  collect(v, au, frames, G_MAXUINT, NULL, NULL);
  double seconds = (double)(g_get_monotonic_time() - t0) / 1e6;
  guint steady = 1, n_speech = 0;
  for (guint k = 1; k < frames->len; k++) {
    Frame *a = &g_array_index(frames, Frame, k - 1), *b = &g_array_index(frames, Frame, k);
    if (b->pts - a->pts != FRAME) steady = 0;
  }
  GstClockTime first_speech = GST_CLOCK_TIME_NONE;
  for (guint k = 0; k < frames->len; k++) {
    Frame *f = &g_array_index(frames, Frame, k);
    if (strcmp(f->kind, "speech") != 0) continue;
    n_speech++;
    if (!GST_CLOCK_TIME_IS_VALID(first_speech)) first_speech = f->pts - g_array_index(frames, Frame, 0).pts;
  }
  check(gst_app_sink_is_eos(v) && frames->len >= 50 && frames->len <= 90 && steady && n_speech >= 45 &&
            seconds >= 1.8 && seconds < 6,
        "live pacing: %u frames 40 ms apart in %.2f s of wall time (%u speech, the first %.0f ms after the first "
        "frame), end-of-stream after the ramp",
        frames->len, seconds, n_speech, GST_CLOCK_TIME_IS_VALID(first_speech) ? (double)first_speech / 1e6 : -1.0);
  g_array_free(frames, TRUE);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(v);
  gst_object_unref(au);
  gst_object_unref(pipeline);
}

static gboolean run_short(const char *avatar) {
  gchar *desc = g_strdup_printf("audiotestsrc num-buffers=25 samplesperbuffer=320 wave=pink-noise volume=0.2 ! "
                                "audio/x-raw,format=S16LE,rate=16000,channels=1 ! essence2avatar avatar=\"%s\" "
                                "name=a a.video ! fakesink a.audio ! fakesink",
                                avatar);
  GstElement *pipeline = gst_parse_launch(desc, NULL);
  g_free(desc);
  gboolean eos = FALSE;
  gchar *error = run_to_end(pipeline, 30 * GST_SECOND, &eos);
  if (error != NULL) fprintf(stderr, "pipeline: %s\n", error);
  g_free(error);
  gst_object_unref(pipeline);
  return eos;
}

static void test_many(const char *avatar) {
  int ok = 1;
  long threads = 0, fds = 0, rss = 0;
  char fds_before[2048], fds_after[2048];
  for (int i = 0; i < 20; i++) {
    ok = run_short(avatar) && ok;
    if (i == 1) {
      threads = proc_count("/proc/self/task");
      fds = proc_count("/proc/self/fd");
      describe_fds(fds_before, sizeof fds_before);
      rss = rss_kib();
    }
  }
  /* GStreamer's task pool keeps a finished streaming thread for reuse a while: let the count settle. The
   * descriptors must not need it: the engine's frame descriptor (a pipe pair) is closed as destroy returns. */
  long threads20 = proc_count("/proc/self/task");
  for (int i = 0; i < 30 && threads20 > threads; i++) {
    g_usleep(100 * 1000);
    threads20 = proc_count("/proc/self/task");
  }
  long fds20 = proc_count("/proc/self/fd"), rss20 = rss_kib();
  describe_fds(fds_after, sizeof fds_after);
  check(ok, "20 pipelines started, run to end-of-stream and stopped in one process");
  /* A leak grows with every pipeline (18 more here); a pooled thread or two is not one. */
  int leak_free = threads20 <= threads + 2 && fds20 <= fds && rss20 - rss < 16 * 1024;
  check(leak_free,
        "no leak over pipelines 3-20: threads %ld -> %ld (at most 2 pooled for reuse), open files %ld -> %ld, "
        "resident memory %+ld KiB",
        threads, threads20, fds, fds20, rss20 - rss);
  if (!leak_free) fprintf(stderr, "open files after pipeline 2: %s\nopen files after pipeline 20: %s\n", fds_before,
                          fds_after);
}

/* ---- sync of a muxed file ------------------------------------------------------------------------------- */

/* A stream's start time in seconds, as ffprobe reports it (edit lists applied); NAN when unknown. */
static double stream_start(const char *file, const char *stream) {
  gchar *cmd = g_strdup_printf("ffprobe -v error -select_streams %s -show_entries stream=start_time -of csv=p=0 '%s'",
                               stream, file);
  FILE *pipe = popen(cmd, "r");
  g_free(cmd);
  double start = NAN;
  if (pipe != NULL) {
    if (fscanf(pipe, "%lf", &start) != 1) start = NAN;
    pclose(pipe);
  }
  return start;
}

static int sync_file(const char *mp4, const char *avatar, const char *wav) {
  int64_t count = 0;
  int16_t *speech = read_wav(wav, &count);
  if (speech == NULL) return 1;
  /* The engine's own render of the speech: frame k shows audio [640k, 640k + 640). */
  be_essence2_handle e = NULL;
  if (be_essence2_create(avatar, NULL, 0, &e) != 0) {
    char reason[512];
    be_essence2_last_error(reason, sizeof reason);
    fprintf(stderr, "%s: %s\n", avatar, reason);
    return 1;
  }
  int32_t w = 0, h = 0;
  be_essence2_get_info(e, &w, &h);
  int32_t step = 4; /* compare every 4th pixel of every 4th row, in luma */
  int32_t gw = w / step, gh = h / step;
  GArray *ref = g_array_new(FALSE, FALSE, sizeof(float));
  be_essence2_set_pacing(e, BE_ESSENCE2_PACING_UNPACED);
  uint8_t *frame = g_malloc((gsize)w * h * 3);
  int32_t r = be_essence2_push_audio(e, speech, (int32_t)MIN(count, BE_ESSENCE2_RING_SAMPLES));
  be_essence2_end_utterance(e);
  int ref_frames = 0;
  for (int guard = 0; r == 0 && guard < 200000; guard++) {
    int32_t got = be_essence2_pull_frame(e, frame, w * h * 3);
    if (got < 0) break;
    if (got == 0) {
      g_usleep(1000);
      continue;
    }
    if (be_essence2_last_frame_kind(e) == BE_ESSENCE2_FRAME_IDLE) break;
    for (int y = 0; y < gh; y++)
      for (int x = 0; x < gw; x++) {
        const uint8_t *p = frame + ((size_t)(y * step) * w + x * step) * 3;
        float luma = 0.114f * p[0] + 0.587f * p[1] + 0.299f * p[2];
        g_array_append_val(ref, luma);
      }
    ref_frames++;
  }
  be_essence2_destroy(e);
  g_free(frame);

  /* The file as players see it: ffmpeg decodes each stream (honouring edit lists) from its start time. */
  double video_start = stream_start(mp4, "v:0"), audio_start = stream_start(mp4, "a:0");
  GArray *vid = g_array_new(FALSE, FALSE, sizeof(float));
  GArray *aud = g_array_new(FALSE, FALSE, sizeof(int16_t));
  int vid_frames = 0;
  gchar *cmd = g_strdup_printf("ffmpeg -v error -i '%s' -map 0:v:0 -fps_mode passthrough -f rawvideo -pix_fmt bgr24 -", mp4);
  FILE *pipe = popen(cmd, "r");
  g_free(cmd);
  uint8_t *decoded = g_malloc((gsize)w * h * 3);
  while (pipe != NULL && fread(decoded, (size_t)w * h * 3, 1, pipe) == 1) {
    for (int y = 0; y < gh; y++)
      for (int x = 0; x < gw; x++) {
        const uint8_t *p = decoded + ((size_t)(y * step) * w + (size_t)x * step) * 3;
        float luma = 0.114f * p[0] + 0.587f * p[1] + 0.299f * p[2];
        g_array_append_val(vid, luma);
      }
    vid_frames++;
  }
  if (pipe != NULL) pclose(pipe);
  g_free(decoded);
  cmd = g_strdup_printf("ffmpeg -v error -i '%s' -map 0:a:0 -f s16le -ac 1 -ar 16000 -", mp4);
  pipe = popen(cmd, "r");
  g_free(cmd);
  int16_t block[4096];
  size_t got;
  while (pipe != NULL && (got = fread(block, sizeof(int16_t), 4096, pipe)) > 0) g_array_append_vals(aud, block, (guint)got);
  if (pipe != NULL) pclose(pipe);

  check(vid_frames > 0 && vid_frames == ref_frames,
        "%s: %d video frames, as many as the engine renders for the speech and its ramp (%d)", mp4, vid_frames,
        ref_frames);
  /* The video: which shift of the engine's frames the file's frames match best (mean luma difference). */
  int size = gw * gh, best_lag = 99;
  double best = 1e30, at0 = 0, next_best = 1e30;
  for (int lag = -3; lag <= 3; lag++) {
    double sum = 0;
    long n = 0;
    for (int k = 0; k < vid_frames; k++) {
      int j = k + lag;
      if (j < 0 || j >= ref_frames) continue;
      const float *p = &g_array_index(vid, float, (gsize)k * size), *q = &g_array_index(ref, float, (gsize)j * size);
      for (int i = 0; i < size; i++) sum += fabsf(p[i] - q[i]);
      n += size;
    }
    double mad = n ? sum / n : 1e30;
    if (lag == 0) at0 = mad;
    if (mad < best) {
      next_best = best;
      best = mad;
      best_lag = lag;
    } else if (mad < next_best) {
      next_best = mad;
    }
  }
  check(best_lag == 0, "the file's video frames match the engine's frames for the same audio at shift %d frames "
                       "(mean difference %.2f levels at 0, %.2f at the next best shift)", best_lag, at0, next_best);
  /* The sound: where the speech sits in the sound track (normalised cross-correlation, +-2 frames). */
  int64_t n = MIN(count, (int64_t)aud->len) - 2 * 1280;
  int best_off = 0;
  double best_corr = -2;
  for (int off = -1280; off <= 1280; off++) {
    double sxy = 0, sxx = 0, syy = 0;
    for (int64_t i = 1280; i < n; i += 2) {
      double x = speech[i], y = g_array_index(aud, int16_t, i + off);
      sxy += x * y;
      sxx += x * x;
      syy += y * y;
    }
    double c = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
    if (c > best_corr) {
      best_corr = c;
      best_off = off;
    }
  }
  double audio_ms = best_off / 16.0, video_ms = best_lag * 40.0;
  double start_ms = (audio_start - video_start) * 1000.0;
  check(best_corr > 0.9 && fabs(audio_ms + start_ms - video_ms) < 40.0,
        "audio and video in step within one frame: the speech sits %.2f ms into the sound track (correlation %.3f), "
        "the sound track starts %.2f ms after the video (ffprobe), the video is %d frames off: offset %.2f ms",
        audio_ms, best_corr, start_ms, best_lag, audio_ms + start_ms - video_ms);
  printf("sync: offset %.2f ms (audio %.2f ms, track start %.2f ms, video %d frames)\n",
         audio_ms + start_ms - video_ms, audio_ms, start_ms, best_lag);
  g_array_free(vid, TRUE);
  g_array_free(aud, TRUE);
  g_array_free(ref, TRUE);
  g_free(speech);
  return 0;
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  if (argc == 5 && strcmp(argv[1], "sync") == 0) {
    if (sync_file(argv[2], argv[3], argv[4]) != 0) failed++;
  } else if (argc == 4 && strcmp(argv[1], "elements") == 0) {
    const char *avatar = argv[2], *wav = argv[3];
    int64_t count = 0;
    int16_t *speech = read_wav(wav, &count);
    if (speech == NULL) return 1;
    GstElementFactory *factory = gst_element_factory_find("essence2avatar");
    check(factory != NULL, "the essence2avatar element is found (GST_PLUGIN_PATH=%s)", g_getenv("GST_PLUGIN_PATH"));
    if (factory == NULL) return 1;
    gst_object_unref(factory);
    test_file(avatar, wav, speech, count);
    test_rate(avatar, wav, speech, count, "S16LE", 44100);
    test_rate(avatar, wav, speech, count, "F32LE", 48000);
    test_flush(avatar, wav, count);
    test_bad_avatar("/nonexistent/missing.imx", "a missing avatar", "missing.imx");
    gchar *corrupt = g_build_filename(g_get_tmp_dir(), "essence2-gst-corrupt.imx", NULL);
    gchar *contents = NULL;
    gsize length = 0;
    if (g_file_get_contents(avatar, &contents, &length, NULL)) {
      g_file_set_contents(corrupt, contents, (gssize)(length / 2), NULL);
      g_free(contents);
      test_bad_avatar(corrupt, "a truncated avatar", "truncated");
      unlink(corrupt);
    }
    g_free(corrupt);
    test_bad_avatar("", "no avatar", "avatar");
    test_live(avatar);
    test_many(avatar);
    g_free(speech);
  } else {
    fprintf(stderr, "usage: test_gst elements AVATAR SPEECH.wav | test_gst sync FILE.mp4 AVATAR SPEECH.wav\n");
    return 2;
  }
  printf("gst: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
