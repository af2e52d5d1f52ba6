/* The weights file, embedded as bytes (C23 #embed; clang accepts it in C11 mode as an extension). */
#include "lipsync_weights.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char weights[] = {
#embed "lipsync_weights.e2nw"
};

_Static_assert(sizeof weights == E2_LIPSYNC_WEIGHTS_SIZE,
               "lipsync_weights.e2nw and lipsync_weights_info.h disagree: run tools/lipsync/export.py again");

const unsigned char *e2_lipsync_weights(void) { return weights; }

unsigned long e2_lipsync_weights_size(void) { return sizeof weights; }
