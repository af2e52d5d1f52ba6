/*
 * The character point finder's weights files (format in tools/character/export.py), embedded in the library as
 * bytes at build time (character_weights.c). Used by Essence2Authoring's CharacterPointFinder.
 */
#ifndef ESSENCE2_CHARACTER_WEIGHTS_H
#define ESSENCE2_CHARACTER_WEIGHTS_H

#include "character_weights_info.h"
#include "character_refine_info.h"

/** The first byte of the weights file; E2_CHARACTER_WEIGHTS_SIZE bytes follow, read-only. */
const unsigned char *e2_character_weights(void);

/** The size of the weights file in bytes (E2_CHARACTER_WEIGHTS_SIZE, checked at compile time). */
unsigned long e2_character_weights_size(void);

/** The first byte of the refinement pass's weights file (tools/character/refine.py); E2_CHARACTER_REFINE_SIZE
 * bytes follow, read-only. */
const unsigned char *e2_character_refine(void);

/** The size of the refinement weights file in bytes (E2_CHARACTER_REFINE_SIZE, checked at compile time). */
unsigned long e2_character_refine_size(void);

#endif
