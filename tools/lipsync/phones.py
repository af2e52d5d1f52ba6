"""One common phone set for lip-sync training data, and maps into it.

The common set is ARPAbet in lower case (39 phones) plus the reduced vowel `ax` and `sil` for silence and
pauses. Synthesizers name their phones differently:

* espeak-ng reports its own phoneme mnemonics (Kirshenbaum-like, e.g. `aI`, `@`, `tS`, `_:`) in
  espeakEVENT_PHONEME events; `from_espeak` maps them.
* Festival's US diphone voices (kal, ked) and cmu_us_slt_arctic_hts use the "radio" phone set (ARPAbet-like,
  `pau` for silence); British voices use "mrpa" (`@`, `ii`, `ou`, `#`...). `from_festival` maps both.

Every name is mapped explicitly; an unknown name raises `KeyError`, so a new voice cannot silently bring in
unmapped phones.
"""

# The common phone set, with the articulatory class of each phone.
CLASSES = {
    "sil": "silence",
    # bilabial closure: lips pressed for the whole phone
    "p": "bilabial", "b": "bilabial", "m": "bilabial",
    # labiodental: lower lip tucked under the upper teeth
    "f": "labiodental", "v": "labiodental",
    # rounded vowels and glides: lips rounded and pushed forward
    "uw": "rounded", "uh": "rounded", "ow": "rounded", "ao": "rounded", "oy": "rounded",
    "w": "rounded", "r": "rounded", "er": "rounded",
    # spread vowels and glide
    "iy": "spread", "ih": "spread", "ey": "spread", "eh": "spread", "y": "spread",
    # open vowels
    "aa": "open", "ae": "open", "ah": "open", "aw": "open", "ay": "open",
    # neutral reduced vowel
    "ax": "neutral",
    # dental / alveolar consonants (lips free: they take the shape of the neighbouring vowels)
    "th": "dental", "dh": "dental",
    "t": "alveolar", "d": "alveolar", "n": "alveolar", "l": "alveolar",
    # velar / glottal consonants (lips free)
    "k": "velar", "g": "velar", "ng": "velar", "hh": "glottal",
    # sibilants: s z with spread-ish lips, postalveolars with protruded lips
    "s": "sibilant", "z": "sibilant",
    "sh": "postalveolar", "zh": "postalveolar", "ch": "postalveolar", "jh": "postalveolar",
}

PHONES = tuple(sorted(CLASSES))

# espeak-ng English phoneme mnemonics (phsource/ph_english* and the en dialect tables) -> common set.
ESPEAK = {
    # consonants
    "p": "p", "b": "b", "t": "t", "d": "d", "k": "k", "g": "g",
    "f": "f", "v": "v", "T": "th", "D": "dh", "s": "s", "z": "z", "S": "sh", "Z": "zh",
    "h": "hh", "x": "hh", "tS": "ch", "dZ": "jh",
    "m": "m", "n": "n", "N": "ng", "l": "l", "r": "r", "w": "w", "j": "y",
    "r-": "r", "l/": "l", "l/2": "l", "l/3": "l", "t#": "t", "d#": "d", "t2": "t", "d2": "d",
    "?": "t", "n-": "n", "m-": "m", "N-": "ng", "@L": "l", "w#": "w", "hw": "w", "z/2": "z", "s2": "s",
    "r/": "r", "l#": "l", "n#": "n", "k#": "k", "p#": "p", "b#": "b", "g#": "g", "D#": "dh", "T#": "th",
    # vowels
    "a": "ae", "a#": "ax", "a2": "ae", "aa": "ae", "A:": "aa", "A@": "aa", "A": "aa", "A#": "aa", "A~": "aa",
    "aI": "ay", "aI@": "ay", "aI3": "ay", "aI2": "ay", "aU": "aw", "aU@": "aw", "a:": "aa",
    "e": "eh", "e@": "eh", "eI": "ey", "E": "eh", "E2": "eh", "E#": "eh",
    "i": "iy", "i:": "iy", "i@": "ih", "i@3": "ih", "I": "ih", "I#": "ih", "I2": "ih", "I2#": "ih", "i#": "iy",
    "0": "aa", "0#": "aa", "O:": "ao", "O@": "ao", "O": "ao", "O2": "ao", "o@": "ao", "OI": "oy",
    "oU": "ow", "o": "ow", "o:": "ow", "oU#": "ow", "O#": "ao",
    "@": "ax", "@2": "ax", "@5": "ax", "@-": "ax", "@#": "ax", "@3": "ax", "3:": "er", "3": "er", "3#": "er",
    "U": "uh", "U@": "uh", "u:": "uw", "u": "uw", "U#": "uh", "u@": "uh", "V": "ah", "V#": "ah",
    ";": "y", "VR": "er", "t[": "t", "d[": "d", "n[": "n", "l[": "l",
    "e#": "eh", "eI#": "ey", "aU#": "aw", "aI#": "ay",
}

# Festival radio (US voices: kal, ked, cmu_us_slt_arctic_hts) and mrpa (British) phone names -> common set.
FESTIVAL = {
    # radio
    "pau": "sil", "h#": "sil", "brth": "sil", "#": "sil", "sil": "sil", "ssil": "sil",
    "aa": "aa", "ae": "ae", "ah": "ah", "ao": "ao", "aw": "aw", "ax": "ax", "axr": "er", "ay": "ay",
    "b": "b", "ch": "ch", "d": "d", "dh": "dh", "dx": "t", "eh": "eh", "el": "l", "em": "m", "en": "n",
    "er": "er", "ey": "ey", "f": "f", "g": "g", "hh": "hh", "hv": "hh", "ih": "ih", "ix": "ih", "iy": "iy",
    "jh": "jh", "k": "k", "l": "l", "m": "m", "n": "n", "nx": "n", "ng": "ng", "ow": "ow", "oy": "oy",
    "p": "p", "r": "r", "s": "s", "sh": "sh", "t": "t", "th": "th", "uh": "uh", "uw": "uw", "v": "v",
    "w": "w", "y": "y", "z": "z", "zh": "zh",
    # mrpa (where it differs from radio)
    "@": "ax", "@@": "er", "a": "ae", "ai": "ay", "au": "aw", "e": "eh", "e@": "eh", "ei": "ey",
    "i": "ih", "i@": "ih", "ii": "iy", "o": "ao", "oi": "oy", "oo": "ao", "ou": "ow", "u": "uh",
    "u@": "uh", "uu": "uw", "h": "hh",
}

assert all(v in CLASSES for v in ESPEAK.values())
assert all(v in CLASSES for v in FESTIVAL.values())


# Festival voices of other languages (Debian festvox packages), by their phone set. Their own names (mostly
# SAMPA; a trailing 1 marks stress, a trailing ':' length, doubled Russian letters palatalisation) mapped to the
# common set by articulation, as the lips see it: only p, b, m (and their long or palatalised forms) close the
# lips; the labiodental nasal of Italian "inferno" (nf) is a labiodental; alveolar taps and trills are `l`
# (alveolar, lips free: English `r` is rounded, these are not); dental stops written th/dh in the Indian phone
# sets are stops, `t`/`d`.
FESTIVAL_LANGUAGE = {
    "italian": {
        "#": "sil", "i": "iy", "i1": "iy", "e": "ey", "e1": "ey", "E": "eh", "E1": "eh", "a": "aa", "a1": "aa",
        "o": "ow", "o1": "ow", "O": "ao", "O1": "ao", "u": "uw", "u1": "uw", "j": "y", "w": "w",
        "p": "p", "b": "b", "t": "t", "d": "d", "k": "k", "g": "g", "f": "f", "v": "v", "s": "s", "z": "z",
        "S": "sh", "Z": "zh", "ts": "ch", "dz": "jh", "tS": "ch", "dZ": "jh", "m": "m", "n": "n", "J": "n",
        "nf": "f", "ng": "ng", "l": "l", "L": "l", "r": "l",
    },
    "czech": {
        "#": "sil", "_": "sil", "a": "aa", "a:": "aa", "e": "eh", "e:": "eh", "i": "ih", "i:": "iy",
        "o": "ow", "o:": "ow", "u": "uh", "u:": "uw", "@": "ax",
        "p": "p", "b": "b", "t": "t", "d": "d", "t~": "t", "d~": "d", "k": "k", "g": "g", "f": "f", "v": "v",
        "s": "s", "z": "z", "s~": "sh", "z~": "zh", "c": "ch", "dz": "jh", "c~": "ch", "dz~": "jh",
        "ch": "hh", "h": "hh", "j": "y", "m": "m", "n": "n", "n~": "n", "n*": "ng", "l": "l", "r": "l",
        "r~": "zh", "r~*": "sh", "m*": "f",
    },
    "finnish": {
        "#": "sil", "##": "sil", "a": "aa", "a:": "aa", "e": "eh", "e:": "eh", "i": "ih", "i:": "iy",
        "o": "ow", "o:": "ow", "u": "uh", "u:": "uw", "y": "uw", "y:": "uw", "@": "ae", "@:": "ae",
        "7": "ow", "7:": "ow", "&": "ax",
        "p": "p", "p:": "p", "b": "b", "b:": "b", "t": "t", "t:": "t", "d": "d", "d:": "d", "k": "k", "k:": "k",
        "g": "g", "g:": "g", "f": "f", "f:": "f", "v": "v", "v:": "v", "s": "s", "s:": "s", "z:": "z",
        "S": "sh", "S:": "sh", "Z:": "zh", "T": "th", "T:": "th", "D:": "dh", "h": "hh", "h:": "hh",
        "j": "y", "j:": "y", "w": "w", "w:": "w", "m": "m", "m:": "m", "n": "n", "n:": "n", "N": "ng",
        "N:": "ng", "l": "l", "l:": "l", "L": "l", "L:": "l", "r": "l", "r:": "l",
    },
    "catalan": {
        "#": "sil", "_": "sil", "pau": "sil", "a": "aa", "a1": "aa", "E": "eh", "E1": "eh", "e": "ey",
        "e1": "ey", "i": "iy", "i1": "iy", "O": "ao", "O1": "ao", "o": "ow", "o1": "ow", "u": "uw", "u1": "uw",
        "ax": "ax", "j": "y", "w": "w",
        "p": "p", "b": "b", "t": "t", "d": "d", "k": "k", "g": "g", "f": "f", "s": "s", "z": "z", "S": "sh",
        "Z": "zh", "m": "m", "n": "n", "J": "n", "l": "l", "L": "l", "r": "l", "rr": "l",
    },
    "russian": {
        "pau": "sil", "a": "ah", "aa": "aa", "ae": "ax", "ay": "ax", "e": "eh", "ee": "eh", "i": "ih",
        "ii": "iy", "oo": "ao", "u": "uh", "uu": "uw", "ur": "uh", "y": "ih", "yy": "ih",
        "p": "p", "pp": "p", "b": "b", "bb": "b", "m": "m", "mm": "m", "f": "f", "ff": "f", "v": "v", "vv": "v",
        "t": "t", "tt": "t", "d": "d", "dd": "d", "n": "n", "nn": "n", "l": "l", "ll": "l", "r": "l", "rr": "l",
        "s": "s", "ss": "s", "z": "z", "zz": "z", "c": "ch", "ch": "ch", "sh": "sh", "sch": "sh", "zh": "zh",
        "k": "k", "kk": "k", "g": "g", "gg": "g", "h": "hh", "hh": "hh", "j": "y",
    },
    "indic": {   # hindi, marathi and telugu (NSK voices share one phone set)
        "pau": "sil", "x": "sil", "@": "ah", "a": "ah", "aa": "aa", "aw": "aw", "ay": "ay", "ee": "ey",
        "eh": "eh", "ih": "ih", "iy": "iy", "oh": "ow", "oo": "ow", "uh": "uh", "uw": "uw", "w": "w", "y": "y",
        "p": "p", "b": "b", "bh": "b", "m": "m", "f": "f", "v": "v",
        "t": "t", "td": "t", "T": "t", "th": "t", "tth": "t", "D": "d", "dh": "d", "ddh": "d",
        "n": "n", "N": "n", "l": "l", "L": "l", "r": "l", "R": "l", "s": "s", "sri": "s", "sh": "sh", "zh": "zh",
        "ch": "ch", "j": "jh", "k": "k", "kh": "k", "ksh": "k", "g": "g", "gh": "g", "h": "hh",
    },
}
assert all(v in CLASSES for m in FESTIVAL_LANGUAGE.values() for v in m.values())


def from_espeak(name: str) -> str:
    """Map an espeak-ng phoneme mnemonic to the common set; pauses (`_`, `_:`, `_!`, ...) become `sil`."""
    name = name.strip()
    if name == "" or name.startswith("_") or name.startswith(";_"):
        return "sil"
    if name in ESPEAK:
        return ESPEAK[name]
    # espeak marks stress/variants with trailing ';' (palatalised) or '%'/'=' (syllabic) etc.
    core = name.rstrip(";%=![")
    if core in ESPEAK:
        return ESPEAK[core]
    raise KeyError(f"unmapped espeak phoneme {name!r}")


def from_festival(name: str, phoneset: str = "english") -> str:
    """Map a Festival phone name to the common set: `english` (radio or mrpa) or one of FESTIVAL_LANGUAGE's
    phone sets."""
    table = FESTIVAL if phoneset == "english" else FESTIVAL_LANGUAGE[phoneset]
    if name in table:
        return table[name]
    raise KeyError(f"unmapped festival phone {name!r} ({phoneset})")


def from_segment_ends(segments, duration, phoneset="english"):
    """Contiguous [(start_s, end_s, phone)] from Festival/Flite Segment (name, end_s) pairs of a wave lasting
    `duration` seconds: names mapped with from_festival, ends clipped to the wave, empty segments dropped, runs of
    silence merged, and silence to the end of the wave. Empty when no segment lies inside the wave."""
    phones, start = [], 0.0
    for name, end in segments:
        p = from_festival(name, phoneset)
        end = min(end, duration)
        if end <= start:
            continue
        if phones and phones[-1][2] == p == "sil":
            phones[-1] = (phones[-1][0], end, p)
        else:
            phones.append((start, end, p))
        start = end
    if phones and start < duration:
        if phones[-1][2] == "sil":
            phones[-1] = (phones[-1][0], duration, "sil")
        else:
            phones.append((start, duration, "sil"))
    return phones


def phone_class(phone: str) -> str:
    """Articulatory class of a common-set phone."""
    return CLASSES[phone]


BILABIALS = frozenset(p for p, c in CLASSES.items() if c == "bilabial")
VOWELS = frozenset(p for p, c in CLASSES.items() if c in ("rounded", "spread", "open", "neutral")
                   and p not in ("w", "r", "y"))


# IPA (espeak-ng's phoneme events with espeakINITIALIZE_PHONEME_IPA, any language) -> common set. Diphthongs
# and affricates by their whole name first, then by their first letter; length, stress, nasal, aspiration,
# syllabic and other diacritics are dropped. Only p b m close the lips; β and ɸ (Spanish "b" between vowels)
# narrow them like v.
IPA_WHOLE = {
    "aɪ": "ay", "aj": "ay", "aʊ": "aw", "aw": "aw", "eɪ": "ey", "ej": "ey", "oʊ": "ow", "əʊ": "ow", "ɔɪ": "oy",
    "ɔʏ": "oy", "oj": "oy", "eʊ": "ow", "ts": "ch", "dz": "jh", "tʃ": "ch", "dʒ": "jh", "tɕ": "ch", "dʑ": "jh",
    "ʈʂ": "ch", "ɖʐ": "jh", "pf": "f", "ɐʊ": "aw",
}
IPA_FIRST = {
    "p": "p", "b": "b", "m": "m", "ɱ": "m", "ɸ": "v", "β": "v", "f": "f", "v": "v", "ʋ": "v",
    "w": "w", "ɥ": "w", "ʍ": "w",
    "t": "t", "d": "d", "n": "n", "l": "l", "ɫ": "l", "ɾ": "r", "r": "r", "ɹ": "r", "ɻ": "r", "ʀ": "r",
    "ʈ": "t", "ɖ": "d", "ɳ": "n", "ɭ": "l", "ɽ": "r", "ɲ": "n", "ʎ": "l", "ʔ": "t",
    "s": "s", "z": "z", "ʃ": "sh", "ʒ": "zh", "ɕ": "sh", "ʑ": "zh", "ʂ": "sh", "ʐ": "zh", "θ": "th", "ð": "dh",
    "k": "k", "g": "g", "ɡ": "g", "ŋ": "ng", "q": "k", "ɢ": "g", "c": "k", "ɟ": "g", "ɴ": "ng",
    "x": "hh", "ɣ": "g", "χ": "hh", "ʁ": "k", "ç": "hh", "ʝ": "y", "h": "hh", "ɦ": "hh", "ħ": "hh", "ʕ": "hh",
    "j": "y", "ɰ": "y",
    "a": "aa", "ɑ": "aa", "æ": "ae", "ɐ": "ah", "ʌ": "ah", "ɒ": "aa",
    "e": "ey", "ɛ": "eh", "ə": "ax", "ɘ": "ax", "ɜ": "er", "ɚ": "er", "ɝ": "er", "ɞ": "ao",
    "i": "iy", "ɪ": "ih", "ɨ": "ih", "ɯ": "ih", "ɤ": "ax", "y": "uw", "ʏ": "uh", "ʉ": "uw",
    "u": "uw", "ʊ": "uh", "o": "ow", "ɔ": "ao", "ø": "ow", "œ": "ao", "ɵ": "ax",
}
assert all(v in CLASSES for v in IPA_WHOLE.values()) and all(v in CLASSES for v in IPA_FIRST.values())


def from_ipa(name: str) -> str:
    """Map an IPA phoneme name (espeak-ng, any language) to the common set; pauses (empty names) are `sil`."""
    import unicodedata
    core = "".join(ch for ch in unicodedata.normalize("NFD", name.strip())
                   if not unicodedata.combining(ch) and ch not in "ːˑˈˌ-ʰʲʷ'_:;.,0123456789˥˦˧˨˩")
    if not core:
        if name.strip() in ("ʲ", ";"):  # a palatal off-glide written as its own phoneme (Russian, Polish)
            return "y"
        if name.strip() == "ʰ":
            return "hh"
        return "sil"
    if core in IPA_WHOLE:
        return IPA_WHOLE[core]
    if core[:2] in IPA_WHOLE:
        return IPA_WHOLE[core[:2]]
    if core[0] in IPA_FIRST:
        return IPA_FIRST[core[0]]
    raise KeyError(f"unmapped IPA phoneme {name!r}")
