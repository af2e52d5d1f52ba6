/*
 * The character point finder's weights file (format in tools/character/export.py), embedded in the library as
 * bytes at build time (character_weights.c). Used by Essence2Authoring's CharacterPointFinder.
 */
#ifndef ESSENCE2_CHARACTER_WEIGHTS_H
#define ESSENCE2_CHARACTER_WEIGHTS_H

#include "character_weights_info.h"

/** The first byte of the weights file; E2_CHARACTER_WEIGHTS_SIZE bytes follow, read-only. */
const unsigned char *e2_character_weights(void);

/** The size of the weights file in bytes (E2_CHARACTER_WEIGHTS_SIZE, checked at compile time). */
unsigned long e2_character_weights_size(void);

#endif
