/*
 * The learned lip-sync model's weights file (format in Sources/Essence2Runtime/Audio/
 * ArticulationEnsemble+Decoding.swift), embedded in the library as bytes at build time (lipsync_weights.c).
 * The symbols are internal to libessence2.so: its version script exports only be_essence2_*.
 */
#ifndef ESSENCE2_LIPSYNC_WEIGHTS_H
#define ESSENCE2_LIPSYNC_WEIGHTS_H

#include "lipsync_weights_info.h"

/** The first byte of the weights file; E2_LIPSYNC_WEIGHTS_SIZE bytes follow, read-only. */
const unsigned char *e2_lipsync_weights(void);

/** The size of the weights file in bytes (E2_LIPSYNC_WEIGHTS_SIZE, checked at compile time). */
unsigned long e2_lipsync_weights_size(void);

#endif
