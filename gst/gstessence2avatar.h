/*
 * gstessence2avatar.h - the essence2avatar GStreamer element: speech in (mono S16LE or F32LE at any rate from 1 kHz
 * to 384 kHz; the library resamples it to 16 kHz), lip-synced video of a talking portrait out (BGR, 25 frames a
 * second) beside each frame's own speech, timestamped in step.
 *
 * Pads:
 *   sink  (always)  audio/x-raw, format={S16LE, F32LE}, rate=[1000, 384000], channels=1, layout=interleaved
 *   video (always)  video/x-raw, format=BGR, width/height of the avatar (and mode), framerate=25/1
 *   audio (always)  audio/x-raw, format=S16LE, rate=16000, channels=1: each frame's own speech from the engine's
 *                   frame record (be_essence2_take_frame), 640 samples per video frame with the frame's timestamp
 *                   (silence under idle and ramp frames), so a muxer gets both in sync.
 *
 * Each src pad has its own streaming thread, so both branches can feed one muxer without queues.
 * Each video buffer carries a custom meta "Essence2FrameMeta" with the fields kind ("idle", "speech", "ramp", or
 * "held": in live pacing the previous picture again while the next frame is not ready), reply (the reply's
 * number, 1 for the engine's first; 0 for idle frames) and index (the frame's index within its reply, -1 for idle
 * frames); a held frame keeps the reply and index of the picture it repeats.
 */
#ifndef GST_ESSENCE2_AVATAR_H
#define GST_ESSENCE2_AVATAR_H

#include <gst/gst.h>
#include <essence2.h>
#include <expression2.h>

G_BEGIN_DECLS

#define GST_TYPE_ESSENCE2_AVATAR (gst_essence2_avatar_get_type())
G_DECLARE_FINAL_TYPE(GstEssence2Avatar, gst_essence2_avatar, GST, ESSENCE2_AVATAR, GstElement)

/** The name of the custom meta on every video buffer. */
#define GST_ESSENCE2_FRAME_META_NAME "Essence2FrameMeta"

/** What the `mode` property chooses (be_essence2_set_mode). */
typedef enum {
  GST_ESSENCE2_MODE_FULL = BE_ESSENCE2_MODE_FULL,
  GST_ESSENCE2_MODE_HEAD = BE_ESSENCE2_MODE_HEAD,
} GstEssence2Mode;

/** What the `pacing` property chooses. */
typedef enum {
  GST_ESSENCE2_PACING_OFFLINE = 0,
  GST_ESSENCE2_PACING_LIVE = 1,
} GstEssence2Pacing;

gboolean gst_essence2_avatar_register(GstPlugin *plugin);

G_END_DECLS

#endif
