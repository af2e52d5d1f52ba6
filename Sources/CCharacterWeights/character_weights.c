/* The character point finder's weights files, embedded as bytes (C23 #embed; clang accepts it in C11 mode as an
 * extension). Format: E2NW (Sources/Essence2Runtime/Neural/NeuralWeights.swift); the tensors:
 * Sources/Essence2Authoring/CharacterPointFinder+Weights.swift. */
#include "character_weights.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char weights[] = {
#embed "character_weights.e2nw"
};

static const unsigned char refine[] = {
#embed "character_refine.e2nw"
};

_Static_assert(sizeof weights == E2_CHARACTER_WEIGHTS_SIZE,
               "character_weights.e2nw and character_weights_info.h disagree: run tools/character/export.py again");
_Static_assert(sizeof refine == E2_CHARACTER_REFINE_SIZE,
               "character_refine.e2nw and character_refine_info.h disagree: run tools/character/refine.py export again");

const unsigned char *e2_character_weights(void) { return weights; }

unsigned long e2_character_weights_size(void) { return sizeof weights; }

const unsigned char *e2_character_refine(void) { return refine; }

unsigned long e2_character_refine_size(void) { return sizeof refine; }
