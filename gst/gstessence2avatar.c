/*
 * gstessence2avatar.c - the essence2avatar element (see gstessence2avatar.h for its pads and meta).
 *
 * Threads: upstream's streaming thread runs the sink pad's chain and events: audio into the engine with
 * be_essence2_feed_audio / be_essence2_feed_float at the caps' rate (the library resamples it and queues what its
 * ring cannot take yet). The video pad's task takes frames with be_essence2_take_frame and pushes them; each
 * frame's record carries its kind, its place in its reply and its own 640 samples of speech (silence outside
 * speech), which the video task hands with the frame's timestamp to the audio pad's task, so each pad pushes from
 * its own thread. One mutex (lock) and one condition (cond) guard the shared state below; the engine itself is
 * safe from any thread.
 *
 * Offline pacing: the timeline is the audio's. Frames are taken while audio fed since the last drain is in the
 * engine: in unpaced pacing the engine then hands out only that reply's frames, its speech and then its ramp,
 * and an idle frame only once the reply is over; that idle frame is not shown, so the output holds the speech
 * and its ramp and nothing else, as fast as downstream takes it (after end-of-stream it ends both streams).
 * While fed audio waits beyond the engine's 16 s ring, the chain waits. Live pacing: one frame every 40 ms of
 * the pipeline clock, idle motion when there is no speech; audio never waits (audio that finds the ring full
 * is dropped with a warning).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstessence2avatar.h"

#include <gst/audio/audio.h>
#include <gst/video/video.h>
#include <poll.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC(gst_essence2_avatar_debug);
#define GST_CAT_DEFAULT gst_essence2_avatar_debug

/* The folder of the plugin file, for finding installed avatars beside it (set at registration). */
static gchar *plugin_dir;

/* A frame's samples and duration: 640 and 40 ms (Essence 2), 800 and 50 ms for a character (Expression 2). */
#define FRAME_SAMPLES ((guint64)self->frame_samples)
#define FRAME_DURATION (GST_SECOND / (guint64)self->fps)
/* Audio buffers the audio task may hold before the video task waits: 10 s, more than an encoder's look-ahead. */
#define AUDIO_QUEUE_MAX 250
/* The live latency this element adds: a frame is pushed when it falls due, rendered ahead. */
#define LIVE_LATENCY FRAME_DURATION

enum { PROP_0, PROP_AVATAR, PROP_MODE, PROP_PACING, PROP_SEED, PROP_VIDEO_DELAY };

/* Speech in: mono, 16-bit or float, at any rate the library resamples from. */
#define SINK_CAPS                                                                                                  \
  "audio/x-raw, format=(string){ S16LE, F32LE }, rate=(int)[ 1000, 384000 ], channels=(int)1, "                    \
  "layout=(string)interleaved"
/* Speech out: the frames' own audio, 640 samples a frame. */
#define AUDIO_CAPS "audio/x-raw, format=(string)S16LE, rate=(int)16000, channels=(int)1, layout=(string)interleaved"
#define VIDEO_CAPS "video/x-raw, format=(string)BGR, width=(int)[1, 8192], height=(int)[1, 8192], framerate=(fraction){ 25/1, 20/1 }"

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(SINK_CAPS));
static GstStaticPadTemplate video_template =
    GST_STATIC_PAD_TEMPLATE("video", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(VIDEO_CAPS));
static GstStaticPadTemplate audio_template =
    GST_STATIC_PAD_TEMPLATE("audio", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(AUDIO_CAPS));

struct _GstEssence2Avatar {
  GstElement parent;
  GstPad *sinkpad, *videopad, *audiopad;

  /* Properties, under the object lock. */
  gchar *avatar;
  GstEssence2Mode mode;
  GstEssence2Pacing pacing;
  guint64 seed;
  guint64 video_delay;

  /* The engine: made in NULL->READY, configured in READY->PAUSED, destroyed in READY->NULL. */
  be_essence2_handle engine; /* an Expression 2 handle when `character` (the be_essence2_ calls take both) */
  gboolean character;
  gint fps;           /* 25, or 20 for a character */
  gint frame_samples; /* 640, or 800 for a character */
  GstVideoInfo vinfo;
  gsize frame_bytes; /* width * height * 3, what the engine writes */
  guint8 *scratch;   /* a frame when GStreamer's row stride is not width * 3; the last frame in live pacing */
  gboolean have_last;
  gint64 last_reply, last_index; /* the meta of the last frame shown, for a held frame (video task only) */
  gboolean live;
  guint64 video_delay_run; /* video_delay for this run */

  GMutex lock;
  GCond cond;
  gboolean flushing;  /* the tasks stop: a flush, or going down to READY */
  gboolean playing;   /* live pacing waits for PLAYING */
  gboolean got_eos;   /* the sink had end-of-stream: no more audio */
  gboolean eos_sent;  /* end-of-stream queued downstream on both pads */
  gboolean active;    /* audio went into the engine since its last idle frame: a reply has frames to come */
  guint64 feeds;      /* feeds so far: an idle frame taken after the latest one drains the reply */
  gint rate;          /* the input's sample rate and format, from the sink's caps */
  gboolean is_float;
  GstFlowReturn flow; /* the first fatal result of pushing downstream, returned to upstream */
  GstSegment segment; /* the input segment */
  GstClockTime timeline_start; /* offline: the timestamp of frame 0 (the first audio's) */
  guint64 frames;     /* frames pushed on this timeline */
  gboolean need_events; /* stream-start, caps and segment still to send on both pads */
  guint group_id;
  GstClockTime live_anchor; /* live: running time of frame 0 */
  gboolean live_anchored;
  GstClockID clock_id;
  gboolean warned_overflow;

  GQueue audio_out; /* buffers and events for the audio task, in order */
  guint audio_out_buffers;
};

G_DEFINE_TYPE(GstEssence2Avatar, gst_essence2_avatar, GST_TYPE_ELEMENT)

/* ---- enums ---------------------------------------------------------------------------------------------- */

static GType gst_essence2_mode_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_ESSENCE2_MODE_FULL, "The whole portrait at the avatar's own size", "full"},
      {GST_ESSENCE2_MODE_HEAD, "A square crop around the head", "head"},
      {0, NULL, NULL},
  };
  if (g_once_init_enter(&type)) g_once_init_leave(&type, g_enum_register_static("GstEssence2Mode", values));
  return type;
}

static GType gst_essence2_pacing_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_ESSENCE2_PACING_OFFLINE,
       "As fast as downstream takes frames; the output is the speech and its ramp, timestamped from the input",
       "offline"},
      {GST_ESSENCE2_PACING_LIVE,
       "One frame every 40 ms of the pipeline clock, idle motion between replies (for live sources and sinks)",
       "live"},
      {0, NULL, NULL},
  };
  if (g_once_init_enter(&type)) g_once_init_leave(&type, g_enum_register_static("GstEssence2Pacing", values));
  return type;
}

/* ---- helpers -------------------------------------------------------------------------------------------- */

/* The library's sentence for the latest failure on this thread (or refusal, for -3). */
static gchar *library_reason(int32_t code) {
  char text[1024] = "";
  if (code == BE_ESSENCE2_ERR_REFUSED) {
    be_essence2_last_refusal(text, sizeof text);
  } else {
    be_essence2_last_error(text, sizeof text);
  }
  if (text[0] == '\0') return g_strdup(be_essence2_strerror(code));
  return g_strdup(text);
}

/* A path as given, or the name of an installed avatar ("grace-hopper"): DIR/grace-hopper.imx for DIR in
 * $ESSENCE2_AVATAR_DIR, PREFIX/share/essence2/avatars beside an installed plugin (PREFIX/lib/gstreamer-1.0),
 * and the source tree's avatars/ beside the built one (build/gst). */
static gchar *resolve_avatar(const gchar *value) {
  if (g_file_test(value, G_FILE_TEST_EXISTS) || strchr(value, '/') != NULL) return g_strdup(value);
  gchar *file = g_str_has_suffix(value, ".imx") ? g_strdup(value) : g_strconcat(value, ".imx", NULL);
  const gchar *env = g_getenv("ESSENCE2_AVATAR_DIR");
  gchar *dirs[3] = {
      env != NULL && env[0] != '\0' ? g_strdup(env) : NULL,
      plugin_dir != NULL ? g_build_filename(plugin_dir, "..", "..", "share", "essence2", "avatars", NULL) : NULL,
      plugin_dir != NULL ? g_build_filename(plugin_dir, "..", "..", "avatars", NULL) : NULL,
  };
  gchar *found = NULL;
  for (int i = 0; i < 3; i++) {
    if (dirs[i] == NULL) continue;
    gchar *path = g_build_filename(dirs[i], file, NULL);
    g_free(dirs[i]);
    if (found == NULL && g_file_test(path, G_FILE_TEST_EXISTS)) {
      found = path;
    } else {
      g_free(path);
    }
  }
  g_free(file);
  return found != NULL ? found : g_strdup(value);
}

static void clear_audio_queue(GstEssence2Avatar *self) {
  GstMiniObject *item;
  while ((item = g_queue_pop_head(&self->audio_out)) != NULL) gst_mini_object_unref(item);
  self->audio_out_buffers = 0;
}

/* Back to "nothing received" for a new stream or after a flush; lock held. */
static void reset_stream_locked(GstEssence2Avatar *self, gboolean reset_time) {
  self->got_eos = FALSE;
  self->eos_sent = FALSE;
  self->active = FALSE;
  self->flow = GST_FLOW_OK;
  self->have_last = FALSE;
  clear_audio_queue(self);
  self->need_events = TRUE;
  if (reset_time) {
    self->timeline_start = GST_CLOCK_TIME_NONE;
    self->frames = 0;
    self->live_anchored = FALSE;
    gst_segment_init(&self->segment, GST_FORMAT_TIME);
  }
}

static void unschedule_locked(GstEssence2Avatar *self) {
  if (self->clock_id != NULL) gst_clock_id_unschedule(self->clock_id);
}

/* Interrupts the engine's reply and drops the audio fed to it (a flush, or a new stream); FALSE with an error
 * posted when the engine refuses. */
static gboolean reset_engine(GstEssence2Avatar *self) {
  if (self->engine == NULL) return TRUE;
  int32_t r = be_essence2_reset(self->engine);
  if (r == BE_ESSENCE2_OK) return TRUE;
  gchar *reason = library_reason(r);
  GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Could not interrupt the essence2 reply: %s", reason),
                    ("be_essence2_reset returned %d", r));
  g_free(reason);
  return FALSE;
}

/* Ends both streams, once: end-of-stream queued for the audio task and pushed on the video pad. `why` is
 * GST_FLOW_OK for the normal end, else what upstream's chain returns from now on (the first one counts: an
 * error, or GST_FLOW_EOS when downstream wants no more). Lock not held. */
static void end_streams(GstEssence2Avatar *self, GstFlowReturn why) {
  g_mutex_lock(&self->lock);
  if (why != GST_FLOW_OK && self->flow == GST_FLOW_OK) self->flow = why;
  gboolean sent = self->eos_sent;
  if (!sent) {
    self->eos_sent = TRUE;
    g_queue_push_tail(&self->audio_out, gst_event_new_eos());
  }
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);
  if (!sent) gst_pad_push_event(self->videopad, gst_event_new_eos());
}

/* ---- the sink pad: audio into the engine ---------------------------------------------------------------- */

/* Posts the engine's refusal of the audio (or of its end) with the library's reason; returns GST_FLOW_ERROR. */
static GstFlowReturn audio_failed(GstEssence2Avatar *self, const char *call, int32_t code) {
  gchar *reason = library_reason(code);
  GST_ELEMENT_ERROR(self, STREAM, FAILED, ("essence2 refused the audio: %s", reason), ("%s returned %d", call, code));
  g_free(reason);
  return GST_FLOW_ERROR;
}

/* Feeds n samples of the input's format and rate to the engine, a second at a time; lock held. While fed audio
 * waits beyond the engine's 16 s ring, offline waits (the video task's takes move it in), live drops the rest. */
static GstFlowReturn feed_engine_locked(GstEssence2Avatar *self, const guint8 *data, gsize n) {
  for (;;) {
    int64_t pending = be_essence2_pending_samples(self->engine);
    if (pending < 0) return audio_failed(self, "be_essence2_pending_samples", (int32_t)pending);
    if (pending > 0 && !self->live) {
      g_cond_wait_until(&self->cond, &self->lock, g_get_monotonic_time() + 50 * G_TIME_SPAN_MILLISECOND);
      if (self->flushing) return GST_FLOW_FLUSHING;
      if (self->flow != GST_FLOW_OK) return self->flow;
      continue;
    }
    if (pending > 0) {
      if (!self->warned_overflow) {
        self->warned_overflow = TRUE;
        GST_ELEMENT_WARNING(self, STREAM, FAILED, ("Audio arrives faster than the avatar shows it: dropping audio"),
                            ("the engine's 16 s audio ring is full in live pacing"));
      }
      return GST_FLOW_OK;
    }
    if (n == 0) return GST_FLOW_OK;
    gsize block = MIN(n, (gsize)self->rate);
    int32_t r = self->is_float
                    ? be_essence2_feed_float(self->engine, (const float *)data, (int32_t)block, self->rate)
                    : be_essence2_feed_audio(self->engine, (const int16_t *)data, (int32_t)block, self->rate);
    if (r != BE_ESSENCE2_OK)
      return audio_failed(self, self->is_float ? "be_essence2_feed_float" : "be_essence2_feed_audio", r);
    self->active = TRUE;
    self->feeds++;
    g_cond_broadcast(&self->cond);
    data += block * (self->is_float ? sizeof(gfloat) : sizeof(gint16));
    n -= block;
  }
}

static GstFlowReturn sink_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer) {
  (void)pad;
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(parent);
  GstMapInfo map;
  if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) {
    gst_buffer_unref(buffer);
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not read an audio buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = GST_FLOW_OK;

  g_mutex_lock(&self->lock);
  if (self->flushing) {
    ret = GST_FLOW_FLUSHING;
  } else if (self->got_eos) {
    ret = GST_FLOW_EOS;
  } else if (self->flow != GST_FLOW_OK) {
    ret = self->flow;
  } else {
    if (!self->live && !GST_CLOCK_TIME_IS_VALID(self->timeline_start)) {
      GstClockTime pts = GST_BUFFER_PTS(buffer);
      self->timeline_start = GST_CLOCK_TIME_IS_VALID(pts) ? pts : self->segment.start;
    }
    ret = feed_engine_locked(self, map.data, map.size / (self->is_float ? sizeof(gfloat) : sizeof(gint16)));
  }
  g_mutex_unlock(&self->lock);
  gst_buffer_unmap(buffer, &map);
  gst_buffer_unref(buffer);
  return ret;
}

static void stop_tasks(GstEssence2Avatar *self) {
  gst_pad_pause_task(self->videopad);
  gst_pad_pause_task(self->audiopad);
}

static void video_loop(gpointer user);
static void audio_loop(gpointer user);

static void start_tasks(GstEssence2Avatar *self) {
  gst_pad_start_task(self->videopad, video_loop, self, NULL);
  gst_pad_start_task(self->audiopad, audio_loop, self, NULL);
}

static gboolean sink_event(GstPad *pad, GstObject *parent, GstEvent *event) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(parent);
  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_SEGMENT: {
    const GstSegment *segment;
    gst_event_parse_segment(event, &segment);
    if (segment->format != GST_FORMAT_TIME) {
      GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("essence2avatar needs timed audio"),
                        ("got a %s segment; put a parser or decodebin before the element",
                         gst_format_get_name(segment->format)));
      gst_event_unref(event);
      return FALSE;
    }
    g_mutex_lock(&self->lock);
    gst_segment_copy_into(segment, &self->segment);
    g_mutex_unlock(&self->lock);
    gst_event_unref(event);
    return TRUE;
  }
  case GST_EVENT_EOS: {
    /* The reply ends after the audio fed (its last partial frame padded), then the face eases back to rest. */
    g_mutex_lock(&self->lock);
    int32_t r = self->active ? be_essence2_end_utterance(self->engine) : BE_ESSENCE2_OK;
    self->got_eos = TRUE;
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
    gst_event_unref(event);
    if (r != BE_ESSENCE2_OK) end_streams(self, audio_failed(self, "be_essence2_end_utterance", r));
    return TRUE;
  }
  case GST_EVENT_FLUSH_START:
    /* An interrupt: stop the tasks now; flush-stop drops the reply. */
    g_mutex_lock(&self->lock);
    self->flushing = TRUE;
    unschedule_locked(self);
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
    gst_pad_push_event(self->videopad, gst_event_ref(event));
    gst_pad_push_event(self->audiopad, event);
    stop_tasks(self);
    return TRUE;
  case GST_EVENT_FLUSH_STOP: {
    gboolean reset_time = TRUE;
    gst_event_parse_flush_stop(event, &reset_time);
    reset_engine(self);
    g_mutex_lock(&self->lock);
    reset_stream_locked(self, reset_time);
    self->flushing = FALSE;
    g_mutex_unlock(&self->lock);
    gst_pad_push_event(self->videopad, gst_event_ref(event));
    gst_pad_push_event(self->audiopad, event);
    if (GST_STATE(self) >= GST_STATE_PAUSED || GST_STATE_PENDING(self) >= GST_STATE_PAUSED) start_tasks(self);
    return TRUE;
  }
  case GST_EVENT_CAPS: {
    /* The input's rate and format (mono S16LE or F32LE, as the template allows), for feeding the engine. The
     * element makes its own streams, and their caps, on both source pads. */
    GstCaps *caps = NULL;
    GstAudioInfo info;
    gst_event_parse_caps(event, &caps);
    gboolean ok = gst_audio_info_from_caps(&info, caps);
    if (ok) {
      g_mutex_lock(&self->lock);
      self->rate = GST_AUDIO_INFO_RATE(&info);
      self->is_float = GST_AUDIO_INFO_FORMAT(&info) == GST_AUDIO_FORMAT_F32LE;
      g_mutex_unlock(&self->lock);
    }
    gst_event_unref(event);
    return ok;
  }
  case GST_EVENT_STREAM_START:
  case GST_EVENT_TAG:
  case GST_EVENT_GAP:
    /* The element makes its own streams (and their caps) on both source pads. */
    gst_event_unref(event);
    return TRUE;
  default:
    return gst_pad_event_default(pad, parent, event);
  }
}

/* ---- the source pads ------------------------------------------------------------------------------------ */

static gboolean src_query(GstPad *pad, GstObject *parent, GstQuery *query) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(parent);
  switch (GST_QUERY_TYPE(query)) {
  case GST_QUERY_CAPS: {
    GstCaps *caps;
    if (pad == self->videopad && self->engine != NULL && GST_VIDEO_INFO_WIDTH(&self->vinfo) > 0) {
      caps = gst_video_info_to_caps(&self->vinfo);
    } else {
      caps = gst_pad_get_pad_template_caps(pad);
    }
    GstCaps *filter = NULL;
    gst_query_parse_caps(query, &filter);
    if (filter != NULL) {
      GstCaps *both = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref(caps);
      caps = both;
    }
    gst_query_set_caps_result(query, caps);
    gst_caps_unref(caps);
    return TRUE;
  }
  case GST_QUERY_LATENCY: {
    gboolean ok = gst_pad_peer_query(self->sinkpad, query);
    if (ok && self->live) {
      gboolean live;
      GstClockTime min, max;
      gst_query_parse_latency(query, &live, &min, &max);
      gst_query_set_latency(query, TRUE, min + LIVE_LATENCY, GST_CLOCK_TIME_IS_VALID(max) ? max + LIVE_LATENCY : max);
    } else if (!ok && self->live) {
      gst_query_set_latency(query, TRUE, LIVE_LATENCY, GST_CLOCK_TIME_NONE);
      ok = TRUE;
    }
    return ok;
  }
  default:
    return gst_pad_query_default(pad, parent, query);
  }
}

static gboolean src_event(GstPad *pad, GstObject *parent, GstEvent *event) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(parent);
  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_SEEK:
  case GST_EVENT_RECONFIGURE:
    return gst_pad_push_event(self->sinkpad, event);
  case GST_EVENT_QOS:
  case GST_EVENT_NAVIGATION:
    gst_event_unref(event);
    return TRUE;
  default:
    return gst_pad_event_default(pad, parent, event);
  }
}

/* Stream-start, caps and segment for both pads: pushed on video here, queued for the audio task. */
static gboolean send_events(GstEssence2Avatar *self) {
  GstSegment segment;
  g_mutex_lock(&self->lock);
  if (self->live) {
    gst_segment_init(&segment, GST_FORMAT_TIME);
  } else {
    gst_segment_copy_into(&self->segment, &segment);
    segment.stop = GST_CLOCK_TIME_NONE; /* the ramp runs past the speech */
    segment.duration = GST_CLOCK_TIME_NONE;
  }
  gchar *vid = gst_pad_create_stream_id(self->videopad, GST_ELEMENT(self), "video");
  gchar *aid = gst_pad_create_stream_id(self->audiopad, GST_ELEMENT(self), "audio");
  GstEvent *vstart = gst_event_new_stream_start(vid), *astart = gst_event_new_stream_start(aid);
  gst_event_set_group_id(vstart, self->group_id);
  gst_event_set_group_id(astart, self->group_id);
  g_free(vid);
  g_free(aid);
  GstCaps *acaps = gst_caps_from_string(AUDIO_CAPS);
  g_queue_push_tail(&self->audio_out, astart);
  g_queue_push_tail(&self->audio_out, gst_event_new_caps(acaps));
  g_queue_push_tail(&self->audio_out, gst_event_new_segment(&segment));
  gst_caps_unref(acaps);
  self->need_events = FALSE;
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);

  GstCaps *vcaps = gst_video_info_to_caps(&self->vinfo);
  gboolean ok = gst_pad_push_event(self->videopad, vstart);
  ok = gst_pad_push_event(self->videopad, gst_event_new_caps(vcaps)) && ok;
  ok = gst_pad_push_event(self->videopad, gst_event_new_segment(&segment)) && ok;
  gst_caps_unref(vcaps);
  return ok;
}

/* Posts the engine's failure on the bus and ends both streams; lock not held. */
static void engine_failed(GstEssence2Avatar *self, const char *call, int32_t code) {
  gchar *reason = library_reason(code);
  if (code == BE_ESSENCE2_ERR_REFUSED) {
    GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("The essence2 session was refused: %s", reason),
                      ("%s returned %d", call, code));
  } else {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("essence2 could not render a frame: %s", reason),
                      ("%s returned %d", call, code));
  }
  g_free(reason);
  end_streams(self, GST_FLOW_ERROR);
}

/* Takes one frame (live: an idle frame, or the last one again, when no frame is due) and pushes it with its own
 * audio. Returns FALSE when nothing was pushed and the loop should wait a little. */
static gboolean produce_frame(GstEssence2Avatar *self, GstClockTime live_pts) {
  gsize gst_size = GST_VIDEO_INFO_SIZE(&self->vinfo);
  gsize stride = (gsize)GST_VIDEO_INFO_PLANE_STRIDE(&self->vinfo, 0);
  gsize row = (gsize)GST_VIDEO_INFO_WIDTH(&self->vinfo) * 3;
  gsize height = (gsize)GST_VIDEO_INFO_HEIGHT(&self->vinfo);
  gboolean direct = stride == row && !self->live;
  GstBuffer *video = gst_buffer_new_allocate(NULL, gst_size, NULL);
  GstMapInfo map;
  if (video == NULL || !gst_buffer_map(video, &map, GST_MAP_WRITE)) {
    if (video != NULL) gst_buffer_unref(video);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a video frame"), (NULL));
    end_streams(self, GST_FLOW_ERROR);
    return TRUE;
  }
  guint8 *dst = direct ? map.data : self->scratch;
  g_mutex_lock(&self->lock);
  guint64 feeds = self->feeds; /* the audio fed before this take */
  g_mutex_unlock(&self->lock);
  /* The frame's record: kind, place in its reply, its own audio (all silence when nothing is taken). */
  /* be_expression2_frame_info holds be_essence2_frame_info's fields at the same offsets, and room for 800
   * samples: one struct for both engines (a photoreal engine writes its 1.3 struct's size). */
  be_expression2_frame_info info;
  memset(&info, 0, sizeof info);
  info.reply_frame = -1;
  const char *call;
  int32_t got;
  if (self->character) {
    info.size = sizeof info;
    call = "be_expression2_take_frame";
    got = be_expression2_take_frame((be_expression2_handle)self->engine, dst, (int32_t)self->frame_bytes, &info);
  } else {
    info.size = sizeof(be_essence2_frame_info);
    call = "be_essence2_take_frame";
    got = be_essence2_take_frame(self->engine, dst, (int32_t)self->frame_bytes, (be_essence2_frame_info *)&info);
  }
  gboolean taken = got > 0, held = FALSE;
  if (got == 0 && self->live) {
    /* Nothing due yet (a reply waits for its look-ahead): the last frame again, so the mouth does not drop to
     * rest mid-speech; before the first frame, an idle one. */
    if (self->have_last) {
      got = (int32_t)self->frame_bytes; /* scratch still holds the last frame */
      held = TRUE;
      info.reply = self->last_reply;
      info.reply_frame = self->last_index;
    } else {
      call = "be_essence2_idle_frame";
      got = be_essence2_idle_frame(self->engine, dst, (int32_t)self->frame_bytes);
    }
  }
  if (got <= 0) {
    gst_buffer_unmap(video, &map);
    gst_buffer_unref(video);
    if (got < 0) {
      engine_failed(self, call, got);
      return TRUE;
    }
    return FALSE;
  }
  if (!direct) {
    for (gsize y = 0; y < height; y++) memcpy(map.data + y * stride, self->scratch + y * row, row);
    self->have_last = TRUE;
  }
  gst_buffer_unmap(video, &map);
  self->last_reply = info.reply;
  self->last_index = info.reply_frame;

  g_mutex_lock(&self->lock);
  if (self->flushing) {
    g_mutex_unlock(&self->lock);
    gst_buffer_unref(video);
    return TRUE;
  }
  if (taken && info.kind == BE_ESSENCE2_FRAME_IDLE) {
    /* The engine hands out an idle frame only with no reply in it: all audio fed before the take is shown. Offline
     * that frame is not shown; after end-of-stream it ends both streams. */
    if (feeds == self->feeds) self->active = FALSE;
    if (self->got_eos || !self->live) {
      gboolean ended = self->got_eos;
      g_mutex_unlock(&self->lock);
      gst_buffer_unref(video);
      if (ended) end_streams(self, GST_FLOW_OK);
      return TRUE;
    }
  }
  GstBuffer *audio = gst_buffer_new_memdup(info.audio, (gsize)self->frame_samples * sizeof info.audio[0]);
  if (audio == NULL) {
    g_mutex_unlock(&self->lock);
    gst_buffer_unref(video);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate an audio buffer"), (NULL));
    end_streams(self, GST_FLOW_ERROR);
    return TRUE;
  }
  GstClockTime pts = self->live ? live_pts : self->timeline_start + gst_util_uint64_scale(self->frames, GST_SECOND, (guint64)self->fps);
  GstClockTime next = self->live ? live_pts + FRAME_DURATION
                                 : self->timeline_start + gst_util_uint64_scale(self->frames + 1, GST_SECOND, (guint64)self->fps);
  GST_BUFFER_PTS(video) = GST_BUFFER_PTS(audio) = pts;
  GST_BUFFER_DURATION(video) = GST_BUFFER_DURATION(audio) = next - pts;
  GST_BUFFER_OFFSET(video) = self->frames;
  GST_BUFFER_OFFSET_END(video) = self->frames + 1;
  GST_BUFFER_OFFSET(audio) = self->frames * FRAME_SAMPLES;
  GST_BUFFER_OFFSET_END(audio) = (self->frames + 1) * FRAME_SAMPLES;
  if (self->frames == 0) {
    GST_BUFFER_FLAG_SET(video, GST_BUFFER_FLAG_DISCONT);
    GST_BUFFER_FLAG_SET(audio, GST_BUFFER_FLAG_DISCONT);
  }
  self->frames++;
  GstCustomMeta *meta = gst_buffer_add_custom_meta(video, GST_ESSENCE2_FRAME_META_NAME);
  if (meta != NULL) {
    static const char *const kinds[] = {"idle", "speech", "ramp"};
    gst_structure_set(gst_custom_meta_get_structure(meta), "kind", G_TYPE_STRING,
                      held ? "held" : kinds[info.kind >= 0 && info.kind <= 2 ? info.kind : 0], "reply",
                      G_TYPE_INT64, (gint64)info.reply, "index", G_TYPE_INT64, (gint64)info.reply_frame, NULL);
  }
  GST_BUFFER_PTS(video) += self->video_delay_run;
  gboolean need_events = self->need_events;
  g_mutex_unlock(&self->lock);
  if (need_events) send_events(self);

  g_mutex_lock(&self->lock);
  while (self->audio_out_buffers >= AUDIO_QUEUE_MAX && !self->flushing && self->flow == GST_FLOW_OK)
    g_cond_wait(&self->cond, &self->lock);
  g_queue_push_tail(&self->audio_out, audio);
  self->audio_out_buffers++;
  g_cond_broadcast(&self->cond); /* audio to push; a chain waiting for the ring looks again */
  g_mutex_unlock(&self->lock);

  GstFlowReturn ret = gst_pad_push(self->videopad, video);
  if (ret == GST_FLOW_EOS) {
    end_streams(self, GST_FLOW_EOS); /* downstream wants no more video: end both streams */
  } else if (ret != GST_FLOW_OK && ret != GST_FLOW_NOT_LINKED && ret != GST_FLOW_FLUSHING) {
    GST_ELEMENT_FLOW_ERROR(self, ret);
    end_streams(self, ret);
  }
  return TRUE;
}

static void wait_for_frame(GstEssence2Avatar *self, int timeout_ms) {
  int fd = be_essence2_frame_fd(self->engine);
  if (fd < 0) {
    g_usleep((gulong)timeout_ms * 1000);
    return;
  }
  struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
  (void)poll(&p, 1, timeout_ms);
}

/* Offline: frames while audio fed since the reply last drained is in the engine. */
static void offline_step(GstEssence2Avatar *self) {
  if (!self->active) {
    if (self->got_eos) {
      g_mutex_unlock(&self->lock);
      end_streams(self, GST_FLOW_OK);
      return;
    }
    g_cond_wait(&self->cond, &self->lock);
    g_mutex_unlock(&self->lock);
    return;
  }
  g_mutex_unlock(&self->lock);
  if (!produce_frame(self, GST_CLOCK_TIME_NONE)) wait_for_frame(self, 20);
}

/* Live: one frame every 40 ms of running time. */
static void live_step(GstEssence2Avatar *self) {
  if (!self->playing) {
    g_cond_wait(&self->cond, &self->lock);
    g_mutex_unlock(&self->lock);
    return;
  }
  if (self->got_eos && !self->active) {
    g_mutex_unlock(&self->lock);
    end_streams(self, GST_FLOW_OK);
    return;
  }
  GstClock *clock = gst_element_get_clock(GST_ELEMENT(self));
  if (clock == NULL) {
    g_cond_wait_until(&self->cond, &self->lock, g_get_monotonic_time() + 10 * G_TIME_SPAN_MILLISECOND);
    g_mutex_unlock(&self->lock);
    return;
  }
  GstClockTime base = gst_element_get_base_time(GST_ELEMENT(self));
  GstClockTime now = gst_clock_get_time(clock);
  GstClockTime running = now > base ? now - base : 0;
  GstClockTime step = FRAME_DURATION;
  if (!self->live_anchored) {
    self->live_anchor = running > self->frames * step ? running - self->frames * step : 0;
    self->live_anchored = TRUE;
  }
  GstClockTime target = self->live_anchor + self->frames * step;
  if (running > target + 4 * step) {
    /* Far behind (a stall): skip the slots that passed instead of pushing late frames. */
    guint64 behind = (running - target) / step;
    self->live_anchor += behind * step;
    target += behind * step;
    GST_WARNING_OBJECT(self, "late by %" G_GUINT64_FORMAT " frames, skipping them", behind);
  }
  GstClockID id = gst_clock_new_single_shot_id(clock, base + target);
  self->clock_id = id;
  g_mutex_unlock(&self->lock);
  gst_clock_id_wait(id, NULL);
  g_mutex_lock(&self->lock);
  self->clock_id = NULL;
  gboolean go = !self->flushing && self->playing;
  g_mutex_unlock(&self->lock);
  gst_clock_id_unref(id);
  gst_object_unref(clock);
  if (!go) return;
  /* Nothing rendered yet at all (the engine is still loading): wait for its first frame. */
  for (int tries = 0; tries < 4 && !produce_frame(self, target); tries++) wait_for_frame(self, 10);
}

static void video_loop(gpointer user) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(user);
  g_mutex_lock(&self->lock);
  if (self->flushing) {
    g_mutex_unlock(&self->lock);
    gst_pad_pause_task(self->videopad);
    return;
  }
  if (self->eos_sent || self->flow != GST_FLOW_OK) {
    g_cond_wait(&self->cond, &self->lock);
    g_mutex_unlock(&self->lock);
    return;
  }
  if (self->live) {
    live_step(self);
  } else {
    offline_step(self);
  }
}

static void audio_loop(gpointer user) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(user);
  g_mutex_lock(&self->lock);
  while (!self->flushing && g_queue_is_empty(&self->audio_out)) g_cond_wait(&self->cond, &self->lock);
  if (self->flushing) {
    g_mutex_unlock(&self->lock);
    gst_pad_pause_task(self->audiopad);
    return;
  }
  GstMiniObject *item = g_queue_pop_head(&self->audio_out);
  if (GST_IS_BUFFER(item)) self->audio_out_buffers--;
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);
  if (GST_IS_EVENT(item)) {
    gst_pad_push_event(self->audiopad, GST_EVENT_CAST(item));
    return;
  }
  GstFlowReturn ret = gst_pad_push(self->audiopad, GST_BUFFER_CAST(item));
  if (ret != GST_FLOW_OK && ret != GST_FLOW_NOT_LINKED && ret != GST_FLOW_FLUSHING && ret != GST_FLOW_EOS) {
    GST_ELEMENT_FLOW_ERROR(self, ret);
    end_streams(self, ret);
  }
}

/* ---- states --------------------------------------------------------------------------------------------- */

static gboolean open_engine(GstEssence2Avatar *self) {
  GST_OBJECT_LOCK(self);
  gchar *value = g_strdup(self->avatar);
  GST_OBJECT_UNLOCK(self);
  if (value == NULL || value[0] == '\0') {
    g_free(value);
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No avatar: set the avatar property"),
                      ("avatar=PATH to an .imx file (for example avatars/grace-hopper.imx), or the name of an "
                       "installed avatar (grace-hopper)"));
    return FALSE;
  }
  gchar *path = resolve_avatar(value);
  be_essence2_handle engine = NULL;
  /* A character avatar goes to Expression 2 (20 frames a second, 800 samples a frame); the kind call reads and
   * checks the file, and a bad one is reported by create below with the library's reason. */
  gboolean character = be_essence2_avatar_kind(path) == BE_ESSENCE2_AVATAR_CHARACTER;
  int32_t r = character ? be_expression2_create(path, NULL, NULL, (be_expression2_handle *)&engine)
                        : be_essence2_create(path, NULL, 0, &engine);
  if (r != BE_ESSENCE2_OK) {
    gchar *reason = library_reason(r);
    if (r == BE_ESSENCE2_ERR_REFUSED) {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("The essence2 session was refused: %s", reason),
                        ("be_essence2_create(\"%s\") returned %d", path, r));
    } else {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Could not open the avatar \"%s\": %s", value, reason),
                        ("be_essence2_create(\"%s\") returned %d", path, r));
    }
    g_free(reason);
    g_free(path);
    g_free(value);
    return FALSE;
  }
  g_free(path);
  g_free(value);
  self->engine = engine;
  self->character = character;
  self->fps = character ? BE_EXPRESSION2_FPS : BE_ESSENCE2_FPS;
  self->frame_samples = character ? BE_EXPRESSION2_SAMPLES_PER_FRAME : BE_ESSENCE2_SAMPLES_PER_FRAME;
  return TRUE;
}

/* Mode, pacing and seed from the properties, and the frame size that follows; in READY->PAUSED. */
static gboolean configure_engine(GstEssence2Avatar *self) {
  GST_OBJECT_LOCK(self);
  GstEssence2Mode mode = self->mode;
  GstEssence2Pacing pacing = self->pacing;
  guint64 seed = self->seed;
  self->video_delay_run = self->video_delay;
  GST_OBJECT_UNLOCK(self);
  int32_t width = 0, height = 0;
  int32_t r = be_essence2_set_mode(self->engine, (int32_t)mode);
  if (r == BE_ESSENCE2_OK) r = be_essence2_set_pacing(self->engine, BE_ESSENCE2_PACING_UNPACED);
  if (r == BE_ESSENCE2_OK && seed != 0) r = be_essence2_set_seed(self->engine, seed);
  if (r == BE_ESSENCE2_OK) r = be_essence2_get_info(self->engine, &width, &height);
  if (r != BE_ESSENCE2_OK) {
    gchar *reason = library_reason(r);
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Could not configure the essence2 engine: %s", reason), (NULL));
    g_free(reason);
    return FALSE;
  }
  gst_video_info_set_format(&self->vinfo, GST_VIDEO_FORMAT_BGR, (guint)width, (guint)height);
  GST_VIDEO_INFO_FPS_N(&self->vinfo) = self->fps;
  GST_VIDEO_INFO_FPS_D(&self->vinfo) = 1;
  GST_VIDEO_INFO_PAR_N(&self->vinfo) = 1;
  GST_VIDEO_INFO_PAR_D(&self->vinfo) = 1;
  self->frame_bytes = (gsize)width * (gsize)height * 3;
  g_free(self->scratch);
  self->scratch = g_malloc0(self->frame_bytes);
  self->live = pacing == GST_ESSENCE2_PACING_LIVE;
  return TRUE;
}

static GstStateChangeReturn change_state(GstElement *element, GstStateChange transition) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(element);
  switch (transition) {
  case GST_STATE_CHANGE_NULL_TO_READY:
    if (!open_engine(self)) return GST_STATE_CHANGE_FAILURE;
    break;
  case GST_STATE_CHANGE_READY_TO_PAUSED:
    if (!configure_engine(self) || !reset_engine(self)) return GST_STATE_CHANGE_FAILURE;
    g_mutex_lock(&self->lock);
    reset_stream_locked(self, TRUE);
    self->rate = BE_ESSENCE2_SAMPLE_RATE; /* until the caps say otherwise */
    self->is_float = FALSE;
    self->flushing = FALSE;
    self->playing = FALSE;
    self->warned_overflow = FALSE;
    self->group_id = gst_util_group_id_next();
    g_mutex_unlock(&self->lock);
    break;
  case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
    g_mutex_lock(&self->lock);
    self->playing = TRUE;
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
    break;
  case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
    g_mutex_lock(&self->lock);
    self->playing = FALSE;
    self->live_anchored = FALSE; /* running time stops; frames continue from where they were on resume */
    unschedule_locked(self);
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
    break;
  case GST_STATE_CHANGE_PAUSED_TO_READY:
    g_mutex_lock(&self->lock);
    self->flushing = TRUE;
    unschedule_locked(self);
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
    break;
  default:
    break;
  }

  GstStateChangeReturn ret = GST_ELEMENT_CLASS(gst_essence2_avatar_parent_class)->change_state(element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE) return ret;

  switch (transition) {
  case GST_STATE_CHANGE_READY_TO_PAUSED:
  case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
    if (self->live) ret = GST_STATE_CHANGE_NO_PREROLL;
    break;
  case GST_STATE_CHANGE_PAUSED_TO_READY:
    g_mutex_lock(&self->lock);
    clear_audio_queue(self);
    g_mutex_unlock(&self->lock);
    break;
  case GST_STATE_CHANGE_READY_TO_NULL:
    if (self->engine != NULL) {
      be_essence2_destroy(self->engine);
      self->engine = NULL;
    }
    break;
  default:
    break;
  }
  return ret;
}

static gboolean src_activate_mode(GstPad *pad, GstObject *parent, GstPadMode mode, gboolean active) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(parent);
  if (mode != GST_PAD_MODE_PUSH) return FALSE;
  if (active) {
    return gst_pad_start_task(pad, pad == self->videopad ? video_loop : audio_loop, self, NULL);
  }
  g_mutex_lock(&self->lock);
  self->flushing = TRUE;
  unschedule_locked(self);
  g_cond_broadcast(&self->cond);
  g_mutex_unlock(&self->lock);
  return gst_pad_stop_task(pad);
}

/* ---- GObject -------------------------------------------------------------------------------------------- */

static void set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(object);
  GST_OBJECT_LOCK(self);
  switch (id) {
  case PROP_AVATAR:
    g_free(self->avatar);
    self->avatar = g_value_dup_string(value);
    break;
  case PROP_MODE:
    self->mode = (GstEssence2Mode)g_value_get_enum(value);
    break;
  case PROP_PACING:
    self->pacing = (GstEssence2Pacing)g_value_get_enum(value);
    break;
  case PROP_SEED:
    self->seed = g_value_get_uint64(value);
    break;
  case PROP_VIDEO_DELAY:
    self->video_delay = g_value_get_uint64(value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(object);
  GST_OBJECT_LOCK(self);
  switch (id) {
  case PROP_AVATAR:
    g_value_set_string(value, self->avatar);
    break;
  case PROP_MODE:
    g_value_set_enum(value, self->mode);
    break;
  case PROP_PACING:
    g_value_set_enum(value, self->pacing);
    break;
  case PROP_SEED:
    g_value_set_uint64(value, self->seed);
    break;
  case PROP_VIDEO_DELAY:
    g_value_set_uint64(value, self->video_delay);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void finalize(GObject *object) {
  GstEssence2Avatar *self = GST_ESSENCE2_AVATAR(object);
  if (self->engine != NULL) be_essence2_destroy(self->engine);
  clear_audio_queue(self);
  g_free(self->avatar);
  g_free(self->scratch);
  g_mutex_clear(&self->lock);
  g_cond_clear(&self->cond);
  G_OBJECT_CLASS(gst_essence2_avatar_parent_class)->finalize(object);
}

static void gst_essence2_avatar_class_init(GstEssence2AvatarClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  gobject_class->set_property = set_property;
  gobject_class->get_property = get_property;
  gobject_class->finalize = finalize;
  element_class->change_state = GST_DEBUG_FUNCPTR(change_state);

  g_object_class_install_property(
      gobject_class, PROP_AVATAR,
      g_param_spec_string("avatar", "Avatar",
                          "The avatar: a path to an .imx file (avatars/grace-hopper.imx), or the name of an "
                          "installed avatar (grace-hopper: looked up in $ESSENCE2_AVATAR_DIR, then in "
                          "PREFIX/share/essence2/avatars beside the installed plugin). Loaded when the element goes to READY; a missing or corrupt file posts an error "
                          "with the library's reason",
                          NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property(
      gobject_class, PROP_MODE,
      g_param_spec_enum("mode", "Mode",
                        "What the frames show: full (the whole portrait) or head (a square crop around the "
                        "head); sets the video caps' width and height",
                        gst_essence2_mode_get_type(), GST_ESSENCE2_MODE_FULL,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property(
      gobject_class, PROP_PACING,
      g_param_spec_enum("pacing", "Pacing",
                        "offline: frames as fast as downstream takes them, the output is the speech and its ramp "
                        "(files); live: a live source of 25 frames a second (20 for a character avatar) on the pipeline clock with idle motion "
                        "between replies (microphones, network streams, displays)",
                        gst_essence2_pacing_get_type(), GST_ESSENCE2_PACING_OFFLINE,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property(
      gobject_class, PROP_SEED,
      g_param_spec_uint64("seed", "Seed",
                          "Seed of the idle motion (blinks, head movement); 0 keeps the avatar's own. With the "
                          "same avatar, audio and seed, offline output is identical frame for frame",
                          0, G_MAXUINT64, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  g_object_class_install_property(
      gobject_class, PROP_VIDEO_DELAY,
      g_param_spec_uint64("video-delay", "Video delay",
                          "Nanoseconds added to the video pad's timestamps. An AAC or MP3 encoder puts silence "
                          "(priming) before the speech that mp4mux does not record, so players hear the speech that "
                          "much late: 64000000 matches avenc_aac at 16 kHz (1024 samples), 100000000 voaacenc",
                          0, 10 * GST_SECOND, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  gst_element_class_set_static_metadata(
      element_class, "essence2 talking avatar", "Filter/Converter/Audio/Video",
      "Lip-synced video of a talking portrait from speech. sink: speech, mono S16LE or F32LE at any rate from "
      "1 kHz to 384 kHz (the library resamples it to 16 kHz). video: the avatar speaking, BGR at 25 frames a second (20 for a character "
      "avatar, Expression 2), each buffer with an Essence2FrameMeta (kind idle/speech/ramp/held, reply, index). audio: each "
      "frame's own speech, S16LE 16 kHz mono, 640 samples (800 for a character) with the frame's timestamp (silence under idle and ramp "
      "frames), for a muxer or an audio sink. End-of-stream ends the reply and the face eases back to rest before "
      "end-of-stream goes on; a flush interrupts the reply",
      "essence2 authors");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &video_template);
  gst_element_class_add_static_pad_template(element_class, &audio_template);
  gst_type_mark_as_plugin_api(gst_essence2_mode_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_essence2_pacing_get_type(), 0);
}

static void gst_essence2_avatar_init(GstEssence2Avatar *self) {
  self->fps = BE_ESSENCE2_FPS; /* until an avatar is opened: then its engine's */
  self->frame_samples = BE_ESSENCE2_SAMPLES_PER_FRAME;
  self->sinkpad = gst_pad_new_from_static_template(&sink_template, "sink");
  gst_pad_set_chain_function(self->sinkpad, GST_DEBUG_FUNCPTR(sink_chain));
  gst_pad_set_event_function(self->sinkpad, GST_DEBUG_FUNCPTR(sink_event));
  gst_element_add_pad(GST_ELEMENT(self), self->sinkpad);

  self->videopad = gst_pad_new_from_static_template(&video_template, "video");
  self->audiopad = gst_pad_new_from_static_template(&audio_template, "audio");
  GstPad *pads[] = {self->videopad, self->audiopad};
  for (int i = 0; i < 2; i++) {
    gst_pad_set_query_function(pads[i], GST_DEBUG_FUNCPTR(src_query));
    gst_pad_set_event_function(pads[i], GST_DEBUG_FUNCPTR(src_event));
    gst_pad_set_activatemode_function(pads[i], GST_DEBUG_FUNCPTR(src_activate_mode));
    gst_pad_use_fixed_caps(pads[i]);
    gst_element_add_pad(GST_ELEMENT(self), pads[i]);
  }
  self->mode = GST_ESSENCE2_MODE_FULL;
  self->pacing = GST_ESSENCE2_PACING_OFFLINE;
  g_mutex_init(&self->lock);
  g_cond_init(&self->cond);
  g_queue_init(&self->audio_out);
  gst_video_info_init(&self->vinfo);
  gst_segment_init(&self->segment, GST_FORMAT_TIME);
  self->timeline_start = GST_CLOCK_TIME_NONE;
  self->flow = GST_FLOW_OK;
  self->rate = BE_ESSENCE2_SAMPLE_RATE;
}

gboolean gst_essence2_avatar_register(GstPlugin *plugin) {
  GST_DEBUG_CATEGORY_INIT(gst_essence2_avatar_debug, "essence2avatar", 0, "essence2 talking avatar");
  const gchar *filename = gst_plugin_get_filename(plugin);
  if (filename != NULL && plugin_dir == NULL) plugin_dir = g_path_get_dirname(filename);
  static const gchar *no_tags[] = {NULL};
  if (gst_meta_get_info(GST_ESSENCE2_FRAME_META_NAME) == NULL)
    gst_meta_register_custom(GST_ESSENCE2_FRAME_META_NAME, no_tags, NULL, NULL, NULL);
  return gst_element_register(plugin, "essence2avatar", GST_RANK_NONE, GST_TYPE_ESSENCE2_AVATAR);
}
