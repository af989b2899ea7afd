"""Identifiers in names and definitions: the evidence an embedding does not see.

The embedder puts "Panasonic KX-TCA86" and "Panasonic KX-TCA92" at a cosine near
1: a few characters make them different products, and the vector barely moves. So
resolution reads a name's identifiers apart, as tokens (pure functions, no store):

- **codes**: numbers ("15", "2007"; an ordinal reads as its number, "3rd" = "3"; a
  roman numeral from "ii" up as well, "III" = "3"), versions ("2.0" = "2" = "v2"), a
  final single letter ("Fund A", "Vitamin C"), and tokens that mix letters and digits, with their
  inner hyphens, dots and part-number suffixes dropped ("KX-TCA86" = "kxtca86",
  "M9301Z/B" = "m9301zb", "CS3").
- **editions**: words that name an edition or a packaging ("upgrade", "academic" =
  "student" = "education", "trial", "pre-paid", "bundle", "deluxe", "pro" =
  "professional", "home", "premium", ...) and quantities ("60 day", "2 years",
  "pack of 3" = "3-pack", "5 user", "256 GB", '40"').
- **platforms**: "mac", "windows" (= "win", "pc"), "linux", "unix".
- **variants**: words that name one variant of a thing, by class (:data:`VARIANT_CLASSES`,
  general knowledge, not read from any data set): its colour ("blue", "grey" = "gray"),
  size ("small", "xl", "mini"), region or language ("uk", "japan" = "japanese", "ntsc"),
  packaging or condition ("retail", "bulk", "download", "refurbished"; not "dvd" or "box", which
  name what a thing is as often as how it is sold: a DVD player, a set-top box); a
  capacity with its unit is a quantity above ("16 GB", "1.5 l", "12 oz").

:func:`conflict` says why two names cannot be the same thing (their codes or
editions differ, or they state different platforms); :func:`variant_difference`
why two sets of names may name two variants of one thing (different variant words,
a colour, size or packaging word on one side its other side does not explain, or model codes that
differ only by a variant suffix, "DVPFX820LI" and "DVPFX820"): resolution links
those instead of merging them. :func:`shared_strong_codes`
finds the identifiers two names share that are specific enough to count as
evidence on their own ("kxtca86", "460001"; not "2", "2007", "cs3" or "tsql2").
:func:`numbers_disagree` compares the numbers two *definitions* state (years,
street and phone numbers): definitions that both state some and share too few
describe different things however alike their words read ("Editor's Notes" of
1997 and of 1998).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

#: Edition and packaging words, each mapped to the edition it names (synonyms share one).
EDITION_WORDS = {
    "upgrade": "upgrade", "upgrades": "upgrade", "upgrd": "upgrade", "upg": "upgrade", "upsell": "upsell",
    "academic": "academic", "education": "academic", "educational": "academic", "edu": "academic",
    "student": "academic", "students": "academic", "teacher": "academic", "teachers": "academic",
    "trial": "trial", "demo": "trial", "prepaid": "prepaid", "subscription": "subscription",
    "renewal": "renewal", "bundle": "bundle", "deluxe": "deluxe", "dlx": "deluxe", "pro": "pro",
    "professional": "pro", "home": "home", "premium": "premium", "standard": "standard", "std": "standard",
    "basic": "basic", "lite": "lite", "express": "express", "ultimate": "ultimate", "enterprise": "enterprise",
    "business": "business", "corporate": "corporate", "personal": "personal", "family": "family",
    "starter": "starter", "plus": "plus", "platinum": "platinum", "gold": "gold", "oem": "oem",
    "unlimited": "unlimited", "collector": "collector", "collectors": "collector",
}
#: Roman numerals read as numbers ("Age of Empires III" = 3); "i", "v" and "x" are words too often.
ROMAN = {"ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8", "ix": "9", "xi": "11", "xii": "12"}
PLATFORM_WORDS = {"mac": "mac", "macintosh": "mac", "osx": "mac", "win": "windows", "windows": "windows",
                  "pc": "windows", "linux": "linux", "unix": "unix"}
#: Variant words by class, each mapped to the variant it names (synonyms and abbreviations share one). Two
#: names that differ in them name two variants of one thing (a blue and a black phone, a UK and a US plug).
#: Written from general knowledge of how catalogues name variants; capacities are quantities (:data:`UNITS`).
VARIANT_CLASSES: dict[str, dict[str, str]] = {
    "colour": {
        **{c: c for c in (
            "black white silver red blue green yellow orange purple violet pink brown beige tan navy teal "
            "turquoise aqua cyan magenta maroon burgundy ivory cream bronze copper titanium graphite charcoal "
            "champagne khaki olive lime coral indigo lavender mint chrome gunmetal pearl ruby emerald slate "
            "crimson scarlet amber stainless bisque").split()},
        "grey": "gray", "gray": "gray", "blk": "black", "wht": "white", "slv": "silver", "gry": "gray",
        "blu": "blue", "grn": "green", "pnk": "pink", "brn": "brown", "nvy": "navy", "multicolor": "multicolour",
        "multicolour": "multicolour", "multicolored": "multicolour", "clear": "clear", "transparent": "clear",
    },
    "size": {
        "small": "small", "sm": "small", "medium": "medium", "med": "medium", "large": "large", "lg": "large",
        "xs": "xs", "xsmall": "xs", "xl": "xl", "xlarge": "xl", "xxl": "xxl", "xxxl": "xxxl", "mini": "mini",
        "micro": "micro", "compact": "compact", "jumbo": "jumbo", "petite": "petite", "toddler": "toddler",
        "infant": "infant", "youth": "youth",
    },  # not "king", "queen" or "junior": titles and parts of people's names as often as sizes
    "region": {
        "usa": "usa", "uk": "uk", "eu": "eu", "european": "europe", "europe": "europe", "international": "intl",
        "intl": "intl", "worldwide": "intl", "asia": "asia", "asian": "asia", "japan": "japan",
        "japanese": "japan", "jp": "japan", "jpn": "japan", "china": "china", "chinese": "china",
        "korea": "korea", "korean": "korea", "taiwan": "taiwan", "australia": "australia",
        "australian": "australia", "canada": "canada", "canadian": "canada", "mexico": "mexico",
        "british": "uk", "germany": "germany", "german": "germany", "france": "france", "french": "france",
        "spain": "spain", "spanish": "spain", "italy": "italy", "italian": "italy", "dutch": "netherlands",
        "russia": "russia", "russian": "russia", "portuguese": "portugal", "brazil": "brazil",
        "brazilian": "brazil", "arabic": "arabic", "hebrew": "hebrew", "greek": "greece", "polish": "poland",
        "swedish": "sweden", "english": "english", "ntsc": "ntsc", "pal": "pal", "secam": "secam",
    },
    "packaging": {
        "retail": "retail", "boxed": "boxed", "bulk": "bulk", "refill": "refill", "refills": "refill",
        "multipack": "multipack", "download": "download", "downloadable": "download",
        "esd": "download", "jewel": "jewel",
        "refurbished": "refurbished", "refurb": "refurbished", "renewed": "refurbished",
        "reconditioned": "refurbished", "bottle": "bottle", "jar": "jar", "tube": "tube", "pouch": "pouch",
        "sachet": "sachet", "carton": "carton", "blister": "blister",
    },
}
VARIANT_WORDS = {word: (kind, value) for kind, words in VARIANT_CLASSES.items() for word, value in words.items()}
#: Classes whose word on one side only (unexplained by the other side) is a difference. Region and language
#: words name organisations as often as variants ("Mondelez International", "Bank of China", "American
#: Express"): only two different ones ("UK" / "US") count.
ONE_SIDED_CLASSES = frozenset({"colour", "size", "packaging"})
#: A model code that extends another by at most this many characters, at least one a letter, names a variant
#: of it ("dvpfx820li" of "dvpfx820", "m9301zb" of "m9301z").
VARIANT_SUFFIX_LENGTH = 3
#: Units of a quantity ("60 day", "2 years", "5u"), each mapped to one spelling.
UNITS = {
    "day": "day", "days": "day", "month": "month", "months": "month", "mo": "month", "year": "year",
    "years": "year", "yr": "year", "yrs": "year", "user": "user", "users": "user", "u": "user", "seat": "user",
    "seats": "user", "pack": "pack", "packs": "pack", "pk": "pack", "count": "count", "ct": "count",
    "pc": "pc", "pcs": "pc", "piece": "pc", "pieces": "pc", "disc": "disc", "discs": "disc", "disk": "disc",
    "disks": "disc", "license": "license", "licenses": "license", "licence": "license", "gb": "gb", "mb": "mb",
    "tb": "tb", "kb": "kb", "ghz": "ghz", "mhz": "mhz", "mp": "mp", "megapixel": "mp", "mm": "mm", "cm": "cm",
    "inch": "inch", "inches": "inch", "oz": "oz", "ounce": "oz", "ounces": "oz", "floz": "oz", "lb": "lb",
    "lbs": "lb", "pound": "lb", "pounds": "lb", "ml": "ml", "cl": "cl", "l": "l", "liter": "l", "liters": "l",
    "litre": "l", "litres": "l", "qt": "qt", "quart": "qt", "quarts": "qt", "gal": "gal", "gallon": "gal",
    "gallons": "gal", "pint": "pint", "pints": "pint", "g": "g", "gram": "g", "grams": "g", "kg": "kg",
    "mg": "mg", "watt": "watt", "watts": "watt", "w": "watt", "v": "volt", "volt": "volt", "volts": "volt",
    "mah": "mah", "wh": "wh", "kwh": "kwh", "hz": "hz", "khz": "khz", "ft": "ft", "feet": "ft", "foot": "ft",
    "sheet": "sheet", "sheets": "sheet", "roll": "roll", "rolls": "roll", "pair": "pair", "pairs": "pair",
    "tablet": "tablet", "tablets": "tablet", "capsule": "capsule", "capsules": "capsule", "serving": "serving",
    "servings": "serving", "mbps": "mbps", "gbps": "gbps", "ppm": "ppm", "dpi": "dpi", "rpm": "rpm",
}
_UNIT = "|".join(sorted(UNITS, key=len, reverse=True))
_QUANTITY = re.compile(rf"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s?-?\s?({_UNIT})(?![a-z0-9])")
_INCHES = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s?(?:''|\"|”|″)")
_PACK_OF = re.compile(r"\b(?:pack|set|box) of (\d+)\b")
_PREPAID = re.compile(r"\bpre[- ]?paid\b")
_FLUID_OUNCE = re.compile(r"\bfl\.? ?oz\b")
_WITH = re.compile(r"\bw/")
_RUN = re.compile(r"[a-z0-9]+(?:[-./][a-z0-9]+)*")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+|v\.?\d+")
_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")
_WORD = re.compile(r"[a-z0-9]+")

#: A code counts as evidence on its own when it mixes letters and at least two digits and is at least
#: this long ("kxtca86", "ln32a450"; not "tsql2", "mp3", "cs3", "r11.5") ...
STRONG_MIXED_LENGTH = 5
#: ... or is a number of at least this many digits (years and model numbers like "15" are too common).
STRONG_DIGITS_LENGTH = 5
#: Two definitions that both state numbers must share at least this share of the smaller set of them.
DEFINITION_NUMBER_OVERLAP = 0.5
#: Words left out of a name's content words.
STOP_WORDS = frozenset("a an and by for from in of on or the to with edition version".split())


@dataclass(frozen=True)
class Identifiers:
    codes: frozenset[str]
    editions: frozenset[str]
    platforms: frozenset[str]
    #: the other words, in order: not codes, editions, platforms, quantities or stop words
    words: tuple[str, ...]

    @property
    def strong(self) -> frozenset[str]:
        return frozenset(c for c in self.codes if is_strong(c))

    @property
    def weak(self) -> frozenset[str]:
        return self.codes - self.strong


def fold(text: str) -> str:
    """Lower case, accents removed, "&" as "and"; punctuation kept (codes need their hyphens and dots)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower().replace("&", " and ")


def is_strong(code: str) -> bool:
    if code.isdigit():
        return len(code) >= STRONG_DIGITS_LENGTH
    return len(code) >= STRONG_MIXED_LENGTH and _mixed(code) and sum(c.isdigit() for c in code) >= 2


def _mixed(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _number(text: str) -> str:
    """A number or version without a trailing ".0" ("2.0" -> "2", "10.3.8" stays)."""
    return re.sub(r"(?:\.0+)+$", "", text.lstrip("v").lstrip(".")) or "0"


def _pieces(run: str) -> list[str]:
    """A run split at "/", except a one-letter part-number suffix after a code ("m9301z/b" stays one
    piece; "95/98/me" is three)."""
    out: list[str] = []
    for part in run.split("/"):
        if out and part.isalpha() and len(part) == 1 and _mixed(out[-1]):
            out[-1] += part
        else:
            out.append(part)
    return out


def _read_piece(piece: str) -> tuple[list[str], list[str]]:
    """(codes, plain words) of one piece: a version, a joined code, or parts of either kind."""
    if _VERSION.fullmatch(piece):
        return [_number(piece)], []
    parts = [p for p in re.split(r"[-.]", piece) if p]
    joined = "".join(parts)
    if _mixed(joined) and len(parts) > 1 and not any(p.isalpha() and len(p) >= 4 for p in parts):
        return [joined], []  # "kx-tca86" -> "kxtca86", "r11.5" -> "r115"
    codes, words = [], []
    for p in parts:
        ordinal = _ORDINAL.fullmatch(p)
        if ordinal:
            codes.append(ordinal.group(1))
        elif any(c.isdigit() for c in p):
            codes.append(p)
        else:
            words.append(p)
    return codes, words


def _read(text: str) -> tuple[list[str], list[str]]:
    """(codes, plain words) of a folded text, in order."""
    codes: list[str] = []
    words: list[str] = []
    for run in _RUN.findall(text):
        for piece in _pieces(run):
            found, plain = _read_piece(piece)
            codes += found
            words += plain
    return codes, words


@functools.lru_cache(maxsize=100_000)
def identifiers(name: str) -> Identifiers:
    """The codes, editions, platforms and content words of one name (see the module docstring)."""
    text = fold(name)
    editions: set[str] = set()
    text = _FLUID_OUNCE.sub("oz", _WITH.sub(" with ", text))  # "w/ SP1" is "with", not a wattage
    for pattern, unit in ((_PACK_OF, "pack"), (_INCHES, "inch")):
        editions.update(f"{_number(m.group(1))}{unit}" for m in pattern.finditer(text))
        text = pattern.sub(" ", text)
    editions.update(f"{_number(m.group(1))}{UNITS[m.group(2)]}" for m in _QUANTITY.finditer(text))
    text = _QUANTITY.sub(" ", text)
    if _PREPAID.search(text):
        editions.add("prepaid")
        text = _PREPAID.sub(" ", text)
    found, words = _read(text)
    codes = set(found) | {ROMAN[w] for w in words if w in ROMAN}
    if len(words) >= 2 and len(words[-1]) == 1 and words[-1].isalpha():
        codes.add(words.pop())  # a series letter: "Fund A", "Class B", "Vitamin C"
    editions.update(EDITION_WORDS[w] for w in words if w in EDITION_WORDS)
    platforms = frozenset(PLATFORM_WORDS[w] for w in words if w in PLATFORM_WORDS)
    skip = EDITION_WORDS.keys() | PLATFORM_WORDS.keys() | ROMAN.keys() | STOP_WORDS
    return Identifiers(frozenset(codes), frozenset(editions), platforms, tuple(w for w in words if w not in skip))


def _listed(values: frozenset[str]) -> str:
    return ", ".join(sorted(values)) or "none"


def conflict(a: str, b: str, editions: bool = True) -> str | None:
    """Why names ``a`` and ``b`` cannot name the same thing, or None.

    - their short codes (numbers, versions, years, "cs3") differ, a code in one name
      only included: "Windows" and "Windows 10" differ as "iPhone 14" and "iPhone 15" do;
    - each has a strong code the other lacks ("KXTCA86" and "KXTCA92"; a model number
      in one name only is not a conflict: one shop lists it, the other does not);
    - their editions or quantities differ ("Audition 2.0" and "Audition 2.0 upgrade",
      "World of Warcraft" and "World of Warcraft 60 day pre-paid");
    - both state platforms and these differ ("[mac]" and "(win)").

    ``editions=False`` compares codes only: an acronym cannot show the edition words of
    what it abbreviates ("IBM" and "International Business Machines").
    """
    x, y = identifiers(a), identifiers(b)
    if x.weak != y.weak:
        return f"different codes ({_listed(x.weak - y.weak)} vs {_listed(y.weak - x.weak)})"
    if x.strong - y.strong and y.strong - x.strong:
        return f"different codes ({_listed(x.strong - y.strong)} vs {_listed(y.strong - x.strong)})"
    if not editions:
        return None
    if x.editions != y.editions:
        return f"different editions ({_listed(x.editions - y.editions)} vs {_listed(y.editions - x.editions)})"
    # Platforms conflict only when both names state one: shops state them inconsistently for one product
    # (bench/README.md, facts_resolution: counting a platform one name only states lost more right merges).
    if x.platforms and y.platforms and x.platforms != y.platforms:
        return f"different platforms ({_listed(x.platforms)} vs {_listed(y.platforms)})"
    return None


@functools.lru_cache(maxsize=100_000)
def variants(name: str) -> frozenset[tuple[str, str]]:
    """The (class, variant) of every variant word of a name: "iPod nano Blue 8GB" -> {("colour", "blue")}."""
    return frozenset(VARIANT_WORDS[w] for w in _WORD.findall(fold(name)) if w in VARIANT_WORDS)


@functools.lru_cache(maxsize=100_000)
def text_platforms(text: str) -> frozenset[str]:
    """The platforms a text states ("mac os x 10.2" -> {"mac"}, "win 98 me 2000 xp" -> {"windows"})."""
    return frozenset(PLATFORM_WORDS[w] for w in _WORD.findall(fold(text)) if w in PLATFORM_WORDS)


def _suffix_variant(longer: str, shorter: str, length: int) -> bool:
    """``longer`` is ``shorter`` plus 1..``length`` characters, at least one a letter, and ``shorter`` is a
    model code (letters and digits): "dvpfx820li" of "dvpfx820"."""
    extra = longer[len(shorter):]
    return (longer.startswith(shorter) and 0 < len(extra) <= length and any(c.isalpha() for c in extra)
            and _mixed(shorter))


def variant_difference(a: Iterable[str], b: Iterable[str], texts: tuple[str, str],
                       classes: Iterable[str] = tuple(VARIANT_CLASSES),
                       suffix: int = VARIANT_SUFFIX_LENGTH,
                       platforms: bool = True) -> tuple[str, bool] | None:
    """Why the names ``a`` and ``b`` (each side's canonical name and aliases) may name two variants of one
    thing, and whether the names alone settle it; None when they do not differ so.

    - both sides name a variant of one class and these differ ("Blue" and "Black", "UK" and "US"): settled;
    - one side names a variant (of ``classes`` and :data:`ONE_SIDED_CLASSES`) that the other side's text
      (``texts[i]`` goes with side ``i``: its definition and names) does not state ("Blue" against a
      definition that says no colour);
    - a model code of one side is a code of the other plus a short variant suffix (at most ``suffix``
      characters, one a letter at least: "DVPFX820LI" and "DVPFX820"), in codes only one side holds;
    - with ``platforms``: one side's names state a platform, the other's names none, and the other side's
      text states only other platforms ("After Effects 7.0 (Mac)" against a definition that says "win"):
      settled. A platform the other side does not state at all is no difference (shops leave it out).
    """
    kinds = frozenset(classes)
    va = {v for n in a for v in variants(n) if v[0] in kinds}
    vb = {v for n in b for v in variants(n) if v[0] in kinds}
    for kind in sorted({k for k, _ in va} & {k for k, _ in vb}):
        x, y = {v for k, v in va if k == kind}, {v for k, v in vb if k == kind}
        if not x & y:
            return f"their names name different {kind} variants ({_listed(frozenset(x))} vs {_listed(frozenset(y))})", True
    stated = [variants(text) for text in texts]
    for own, other, side in ((va, vb, 1), (vb, va, 0)):
        unexplained = sorted(v for k, v in own - other if k in ONE_SIDED_CLASSES and (k, v) not in stated[side])
        if unexplained:
            return f"one name states the variant {', '.join(unexplained)} and the other side does not", False
    if platforms:
        pa = {p for n in a for p in identifiers(n).platforms}
        pb = {p for n in b for p in identifiers(n).platforms}
        for own, other, side in ((pa, pb, 1), (pb, pa, 0)):
            said = text_platforms(texts[side])
            if own and not other and said and not own & said:
                return (f"one name states the platform {_listed(frozenset(own))} and the other side's text "
                        f"states {_listed(said)}"), True
    ca = frozenset(c for n in a for c in identifiers(n).codes)
    cb = frozenset(c for n in b for c in identifiers(n).codes)
    for x in sorted(ca - cb):
        for y in sorted(cb - ca):
            if suffix and (_suffix_variant(x, y, suffix) or _suffix_variant(y, x, suffix)):
                return f"model codes {x} and {y} differ only by a variant suffix", False
    return None


def one_sided_platform(a: Iterable[str], b: Iterable[str]) -> str | None:
    """Why the names ``a`` and ``b`` (each side's names) differ by a platform marker one side only states
    ("Dreamweaver CS3 Upgrade [Mac]" and "Dreamweaver CS3 Upgrade"), or None. Between two sources this is no
    difference (shops leave the platform out); resolution reads it only where one source says both
    (:func:`graphlore.toolsets.facts.resolve.decide`), because a source that marks one of its entries and not
    the other tells two things apart by the marker."""
    pa = frozenset(p for n in a for p in identifiers(n).platforms)
    pb = frozenset(p for n in b for p in identifiers(n).platforms)
    if bool(pa) == bool(pb):
        return None
    return f"one name states the platform {_listed(pa or pb)} and the other none"


def shared_strong_codes(a: str, b: str) -> frozenset[str]:
    return identifiers(a).strong & identifiers(b).strong


@functools.lru_cache(maxsize=100_000)
def definition_numbers(text: str) -> frozenset[str]:
    """Every code a definition states (numbers, versions, letter-digit tokens), quantities as their number."""
    return frozenset(_read(fold(text))[0])


def numbers_disagree(a: str, b: str) -> str | None:
    """Why two definitions describe different things by the numbers they state, or None.

    Both must state numbers; they disagree when they share fewer than
    DEFINITION_NUMBER_OVERLAP of the smaller set ("435 S. La Cienega, 310/246-1501"
    and "435 S. La Cienega Blvd., 310-246-1501" share all four).
    """
    x, y = definition_numbers(a), definition_numbers(b)
    if not x or not y:
        return None
    shared = len(x & y)
    if shared >= DEFINITION_NUMBER_OVERLAP * min(len(x), len(y)):
        return None
    return f"the definitions state different numbers ({_listed(x - y)} vs {_listed(y - x)})"


#: Two definitions that each state at least DEFINITION_NAMES_MIN proper names (people, places, venues) and
#: share at most DEFINITION_NAMES_OVERLAP of the smaller set describe different things (see names_disagree).
DEFINITION_NAMES_MIN = 5
DEFINITION_NAMES_OVERLAP = 0.5
_PROPER = re.compile(r"(?<![\w'])[A-Z][\w'.-]*\w")
_COMMON = frozenset("a an and the of in on at for by to with from its his her their this that".split())


def definition_names(text: str) -> frozenset[str]:
    """The capitalised words of a definition (people, places, venues), folded; initials and common words dropped."""
    return frozenset(w for w in (fold(m.group()) for m in _PROPER.finditer(text)) if len(w) > 1 and w not in _COMMON)


def names_disagree(a: str, b: str) -> str | None:
    """Why two definitions describe different things by the proper names they state, or None.

    Both must state at least DEFINITION_NAMES_MIN capitalised words; they disagree when they share
    at most DEFINITION_NAMES_OVERLAP of the smaller set: "paper by Jun Rao, Kenneth A. Ross, Johannes
    Gehrke in SIGMOD Record, 2003" and "paper by Jeffrey F. Naughton, Minos N. Garofalakis, Kenneth A.
    Ross in SIGMOD Record, 2003" (the same column title, two papers) share 4 of 8. Short definitions,
    which name few things (an entity an LLM describes in one sentence), are left to the cosines.
    """
    x, y = definition_names(a), definition_names(b)
    if min(len(x), len(y)) < DEFINITION_NAMES_MIN:
        return None
    if len(x & y) > DEFINITION_NAMES_OVERLAP * min(len(x), len(y)):
        return None
    return f"the definitions name different people or places ({_listed(x - y)} vs {_listed(y - x)})"
