/* The character point finder's weights files, embedded as bytes (C23 #embed; clang accepts it in C11 mode as an
 * extension). Format: tools/character/export.py and Sources/Essence2Authoring/CharacterPointFinder+Weights.swift. */
#include "character_weights.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char weights[] = {
#embed "character_weights.e2cp"
};

static const unsigned char refine[] = {
#embed "character_refine.e2cp"
};

_Static_assert(sizeof weights == E2_CHARACTER_WEIGHTS_SIZE,
               "character_weights.e2cp and character_weights_info.h disagree: run tools/character/export.py again");
_Static_assert(sizeof refine == E2_CHARACTER_REFINE_SIZE,
               "character_refine.e2cp and character_refine_info.h disagree: run tools/character/refine.py export again");

const unsigned char *e2_character_weights(void) { return weights; }

unsigned long e2_character_weights_size(void) { return sizeof weights; }

const unsigned char *e2_character_refine(void) { return refine; }

unsigned long e2_character_refine_size(void) { return sizeof refine; }
