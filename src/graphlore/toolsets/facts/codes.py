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

:func:`conflict` says why two names cannot be the same thing (their codes or
editions differ, or they state different platforms); :func:`shared_strong_codes`
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
#: Units of a quantity ("60 day", "2 years", "5u"), each mapped to one spelling.
UNITS = {
    "day": "day", "days": "day", "month": "month", "months": "month", "mo": "month", "year": "year",
    "years": "year", "yr": "year", "yrs": "year", "user": "user", "users": "user", "u": "user", "seat": "user",
    "seats": "user", "pack": "pack", "packs": "pack", "pk": "pack", "count": "count", "ct": "count",
    "pc": "pc", "pcs": "pc", "piece": "pc", "pieces": "pc", "disc": "disc", "discs": "disc", "disk": "disc",
    "disks": "disc", "license": "license", "licenses": "license", "licence": "license", "gb": "gb", "mb": "mb",
    "tb": "tb", "kb": "kb", "ghz": "ghz", "mhz": "mhz", "mp": "mp", "megapixel": "mp", "mm": "mm", "cm": "cm",
    "inch": "inch", "inches": "inch", "oz": "oz", "lb": "lb", "lbs": "lb", "ml": "ml", "watt": "watt",
    "watts": "watt",
}
_UNIT = "|".join(sorted(UNITS, key=len, reverse=True))
_QUANTITY = re.compile(rf"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s?-?\s?({_UNIT})(?![a-z0-9])")
_INCHES = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s?(?:''|\"|”|″)")
_PACK_OF = re.compile(r"\b(?:pack|set|box) of (\d+)\b")
_PREPAID = re.compile(r"\bpre[- ]?paid\b")
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
