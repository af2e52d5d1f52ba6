/*
 * plugin.c - the essence2 GStreamer plugin: registers the essence2avatar element (gstessence2avatar.c).
 */
#include "gstessence2avatar.h"

#ifndef E2_VERSION
#define E2_VERSION "0.0.0"
#endif
#define PACKAGE "essence2"

static gboolean plugin_init(GstPlugin *plugin) { return gst_essence2_avatar_register(plugin); }

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, essence2,
                  "essence2: lip-synced talking-avatar video from speech, on the CPU", plugin_init, E2_VERSION,
                  "MIT/X11", "essence2", "https://github.com/essence2/essence2")
