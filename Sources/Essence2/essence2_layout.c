/* essence2_layout.c - the C module `Essence2` (include/essence2.h): the layout the library writes into
 * be_essence2_frame_info (Sources/Essence2Interface/FrameInfoLayout.swift), checked where the header is compiled. */
#include <stddef.h>

#include "essence2.h"

_Static_assert(sizeof(be_essence2_frame_info) == 1344, "be_essence2_frame_info is 1344 bytes (1.3)");
_Static_assert(offsetof(be_essence2_frame_info, kind) == 4, "kind");
_Static_assert(offsetof(be_essence2_frame_info, index) == 8, "index");
_Static_assert(offsetof(be_essence2_frame_info, reply) == 16, "reply");
_Static_assert(offsetof(be_essence2_frame_info, reply_frame) == 24, "reply_frame");
_Static_assert(offsetof(be_essence2_frame_info, audio_time) == 32, "audio_time");
_Static_assert(offsetof(be_essence2_frame_info, has_audio_time) == 40, "has_audio_time");
_Static_assert(offsetof(be_essence2_frame_info, ends_reply) == 44, "ends_reply");
_Static_assert(offsetof(be_essence2_frame_info, skipped) == 48, "skipped");
_Static_assert(offsetof(be_essence2_frame_info, bytes) == 56, "bytes");
_Static_assert(offsetof(be_essence2_frame_info, audio_samples) == 60, "audio_samples");
_Static_assert(offsetof(be_essence2_frame_info, audio) == 64, "audio");

/* The version this module was compiled against; Essence2Kit compares it with the library's. */
int essence2_module_version_number(void) { return ESSENCE2_VERSION_NUMBER(ESSENCE2_VERSION_MAJOR, ESSENCE2_VERSION_MINOR, ESSENCE2_VERSION_PATCH); }

/* include/expression2.h (1.4): be_expression2_frame_info has be_essence2_frame_info's fields at the same offsets,
 * with room for 800 samples (FrameInfoLayout.expressionSize). */
#include "expression2.h"

_Static_assert(sizeof(be_expression2_frame_info) == 1664, "be_expression2_frame_info is 1664 bytes (1.4)");
_Static_assert(offsetof(be_expression2_frame_info, kind) == 4, "kind");
_Static_assert(offsetof(be_expression2_frame_info, audio_time) == 32, "audio_time");
_Static_assert(offsetof(be_expression2_frame_info, skipped) == 48, "skipped");
_Static_assert(offsetof(be_expression2_frame_info, audio_samples) == 60, "audio_samples");
_Static_assert(offsetof(be_expression2_frame_info, audio) == 64, "audio");
