"""Names as entity resolution compares them: normalised forms, lookup keys, and how two names relate.

Pure functions. A name is folded (accents, case, punctuation), a leading "the" and
trailing legal suffixes ("Inc", "Corp", "Ltd", "Group"...) are dropped, so "Apple Inc." and
"Apple" share the normalised form ``apple``; its identifiers (codes, editions,
platforms) come from :mod:`codes`. Each node is stored under lookup keys
derived from its canonical name and aliases; :func:`name_evidence` says how
strongly two sets of names point at the same thing.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from graphlore.toolsets.facts.codes import conflict, fold, identifiers, shared_strong_codes

#: Trailing words of a company name that do not change what it names ("Goldman Sachs Group", "Amazon.com").
LEGAL_SUFFIXES = frozenset(
    "inc incorporated corp corporation co company ltd limited llc plc gmbh ag sa nv bv lp llp group holdings com"
    .split()
)
#: Words left out of initials ("Bank of America" -> "ba").
INITIALS_SKIP = frozenset("of and for the de la du".split())
_WORD = re.compile(r"[a-z0-9]+")

#: Two names whose normalised forms are at least this similar (difflib ratio) are "similar names".
SIMILAR_NAME_RATIO = 0.75
#: ... and each pair of their words is equal, one starts the other, or is at least this alike ("heroes",
#: "heros"; not "east", "west" at 0.75).
SIMILAR_WORD_RATIO = 0.8


def words(name: str) -> list[str]:
    return list(_words(name))


@functools.lru_cache(maxsize=100_000)
def _words(name: str) -> tuple[str, ...]:
    folded = unicodedata.normalize("NFKD", name)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower().replace("&", " and ")
    return tuple(_WORD.findall(folded))


def core_words(name: str) -> list[str]:
    """Words without a leading "the" and trailing legal suffixes (at least one word is kept)."""
    return list(_core_words(name))


@functools.lru_cache(maxsize=100_000)
def _core_words(name: str) -> tuple[str, ...]:
    out = _words(name)
    if len(out) > 1 and out[0] == "the":
        out = out[1:]
    while len(out) > 1 and out[-1] in LEGAL_SUFFIXES:
        out = out[:-1]
    return out


def normalize(name: str) -> str:
    return " ".join(core_words(name))


def spaceless(name: str) -> str:
    return "".join(core_words(name))


def initials(name: str) -> str:
    """First letters of a multi-word name ("New York City" -> "nyc"); empty for one word."""
    core = [w for w in core_words(name) if w not in INITIALS_SKIP]
    return "".join(w[0] for w in core) if len(core) >= 2 else ""


def is_acronym_form(name: str) -> bool:
    """One short word ("NYC", "IBM", "EU") that could abbreviate a longer name."""
    core = core_words(name)
    return len(core) == 1 and 2 <= len(core[0]) <= 6 and core[0].isalpha()


def exact_key(name: str) -> str:
    """The surface form, case-folded: a name typed exactly as stored."""
    return "x:" + " ".join(name.split()).casefold()


def name_keys(name: str) -> list[str]:
    """Keys a node is stored under for one of its names."""
    core = core_words(name)
    if not core:
        return [exact_key(name)]
    keys = [exact_key(name), "n:" + " ".join(core), "s:" + "".join(core)]
    if initials(name):
        keys.append("i:" + initials(name))  # found by an acronym ("a:" probe below)
    if is_acronym_form(name):
        keys.append("a:" + core[0])  # found by a name with these initials
    if len(core) >= 2:
        keys.append("t:" + core[0])  # lets a one-word name find the longer names it starts
    keys += code_keys(name)
    return keys


def code_keys(name: str) -> list[str]:
    """A key per strong code of the name ("c:kxtca86"): names that share one find each other."""
    return ["c:" + c for c in sorted(identifiers(name).strong)]


def probe_keys(name: str) -> list[str]:
    """Keys to look up for a new name: its own keys plus those of its word prefixes ("Beats Electronics"
    finds "Beats"); a one-word name also finds longer names that start with it."""
    core = core_words(name)
    keys = [k for k in name_keys(name) if k[:2] in ("x:", "n:", "s:")]
    keys += ["n:" + " ".join(core[:i]) for i in range(1, len(core))]
    if initials(name):
        keys.append("a:" + initials(name))
    if is_acronym_form(name):
        keys.append("i:" + core[0])
    if len(core) == 1:
        keys.append("t:" + core[0])
    return keys + code_keys(name)


def mention_key(kind: str, name: str, definition: str, type: str | None = None) -> str:
    """The same name, type and definition seen again resolve to the same node without embedding anything."""
    raw = f"{kind}\0{normalize(name)}\0{(type or '').casefold()}\0{' '.join(definition.split())}".encode()
    return "m:" + hashlib.sha1(raw).hexdigest()[:20]


def _fold_latin(name: str) -> str:
    """Accents dropped from Latin letters ("Café" -> "cafe"); other scripts kept as written ("Αθήνα",
    "東京", "दिल्ली"), case-folded."""
    kept: list[str] = []
    after_ascii = False
    for char in unicodedata.normalize("NFKD", name):
        if unicodedata.combining(char) and after_ascii:
            continue
        kept.append(char)
        after_ascii = char.isascii()
    return unicodedata.normalize("NFC", "".join(kept)).casefold()


def slug(name: str, limit: int = 48) -> str:
    """The readable part of a node id: the name's words joined by "-", Latin letters without accents and
    other scripts kept ("Apple Inc." -> "apple-inc", "東京都" -> "東京都", "Москва" -> "москва")."""
    folded = _fold_latin(name).replace("&", " and ")
    # letters, digits and the marks that belong to them (Devanagari vowel signs are marks)
    kept = "".join(c if c.isalnum() or unicodedata.category(c)[0] == "M" else " " for c in folded)
    text = "-".join(kept.split())[:limit].strip("-")
    return text or "node"


def _same_identity(x: str, y: str) -> bool:
    """Equal content words (spaces aside) and equal identifiers: "The Printshop v22 Deluxe" and "The Print
    Shop 22 Deluxe"."""
    ix, iy = identifiers(x), identifiers(y)
    return (bool(ix.words) and "".join(ix.words) == "".join(iy.words)
            and (ix.codes, ix.editions, ix.platforms) == (iy.codes, iy.editions, iy.platforms))


def _contained(x: str, y: str) -> bool:
    """The content words of one name (codes, editions, platforms and stop words aside) are all among the
    other's, and there are at least CONTAINED_MIN_WORDS of them."""
    wx, wy = set(identifiers(x).words), set(identifiers(y).words)
    short, long = (wx, wy) if len(wx) <= len(wy) else (wy, wx)
    return len(short) >= CONTAINED_MIN_WORDS and short <= long


def _same_words_spelled_alike(cx: Sequence[str], cy: Sequence[str]) -> bool:
    """Word by word, each pair is equal, one starts the other ("tim", "timothy") or is spelled alike;
    a short word (one or two letters) must be equal: "Fund A" and "Fund B" are not similar names."""
    if len(cx) != len(cy):
        return False
    for u, v in zip(cx, cy, strict=True):
        if u == v:
            continue
        if min(len(u), len(v)) <= 2:
            return False
        if not (u.startswith(v) or v.startswith(u) or difflib.SequenceMatcher(None, u, v).ratio() >= SIMILAR_WORD_RATIO):
            return False
    return True


#: Name-evidence levels, strongest first, with their rank.
LEVELS = {"same": 7, "code": 6, "acronym": 5, "prefix": 4, "contained": 3, "similar": 2, "conflict": 1, "none": 0}
#: The shorter name of a ``contained`` pair has at least this many content words.
CONTAINED_MIN_WORDS = 2


class Evidence(NamedTuple):
    level: str
    reason: str
    #: the name of each side that gave the level ("" for ``none``)
    pair: tuple[str, str] = ("", "")


def name_evidence(a: Iterable[str], b: Iterable[str], rare: Callable[[str], bool] | None = None) -> Evidence:
    """How two sets of names (canonical name and aliases) relate; the best pair decides.

    Levels, strongest first: ``same`` (equal normalised names, e.g. "Apple Inc." and "Apple"),
    ``code`` (a shared strong code, "Panasonic KX-TCA86 Headset" and "KXTCA86 Comfort-Fit"),
    ``acronym`` ("NYC" and "New York City"), ``prefix`` (one name's words start the other's,
    "Beats" and "Beats Electronics"), ``contained`` (the content words of one, at least
    CONTAINED_MIN_WORDS, are among the other's: "Marine Aquarium 2.0 (Mac)" and "Encore Marine
    Aquarium 2.0"), ``similar`` (difflib ratio >= SIMILAR_NAME_RATIO and each word alike,
    "Tim Cook" and "Timothy Cook"), ``conflict`` (the names would relate but their codes,
    editions or platforms differ, see :func:`codes.conflict`: "iPhone 14" and "iPhone 15",
    "Windows 10" and "Windows 10 Pro"; a conflict outranks any other level of that pair), ``none``.
    ``same`` also covers equal content words and identifiers ("The Printshop v22 Deluxe" and "The
    Print Shop 22 Deluxe"). ``rare(code)`` says whether a strong code
    is held by one node only (default: every code is); a code several nodes share is no evidence.
    """
    a, b = list(dict.fromkeys(a)), list(dict.fromkeys(b))
    best = Evidence("none", "no name in common")
    for x in a:
        for y in b:
            found = _pair_evidence(x, y, rare)
            if found is not None and LEVELS[found[0]] > LEVELS[best.level]:
                best = Evidence(*found, (x, y))
    return best


def unexplained_words(pair: tuple[str, str], texts: tuple[str, str]) -> list[str]:
    """Words the longer name of ``pair`` adds to the shorter one that the shorter name's side does not
    state in its text (``texts[i]`` goes with ``pair[i]``: its definition and other names).

    "Stars Cafe" adds "cafe" to "Stars"; "Editor's Notes and Erratum" adds "erratum";
    "Amazon Prime" adds "prime": when the other side's definition does not say so, the
    longer name may name something more specific (an edition, a part, a subsidiary).
    Codes, editions and platforms are left to :func:`codes.conflict`; stop words are ignored.
    """
    (x, tx), (y, ty) = zip(pair, texts, strict=True)
    wx, wy = identifiers(x).words, identifiers(y).words
    (short, text), long = ((x, tx), wy) if len(set(wx)) <= len(set(wy)) else ((y, ty), wx)
    have = {w.rstrip("s") for w in (*identifiers(short).words, *_WORD.findall(fold(text)))}
    return [w for w in dict.fromkeys(long) if w.rstrip("s") not in have]


def _pair_evidence(x: str, y: str, rare: Callable[[str], bool] | None) -> tuple[str, str] | None:
    shared = frozenset(c for c in shared_strong_codes(x, y) if rare is None or rare(c))
    return _pair_evidence_given(x, y, shared)


@functools.lru_cache(maxsize=200_000)
def _pair_evidence_given(x: str, y: str, shared: frozenset[str]) -> tuple[str, str] | None:
    """The level of one pair of names, given the strong codes they share that are rare (pure, cached:
    resolution compares the same pairs again while it prepares and decides)."""
    cx, cy = _core_words(x), _core_words(y)
    if not cx or not cy:
        return None
    if cx == cy or "".join(cx) == "".join(cy) or _same_identity(x, y):
        found = ("same", f"same normalised name {' '.join(cx)!r}")
    elif shared:
        found = ("code", f"{x!r} and {y!r} share the code {', '.join(sorted(shared))}")
    elif (is_acronym_form(x) and cx[0] == initials(y)) or (is_acronym_form(y) and cy[0] == initials(x)):
        found = ("acronym", f"{x!r} abbreviates {y!r}" if len(cx) == 1 else f"{y!r} abbreviates {x!r}")
    elif cx[: len(cy)] == cy or cy[: len(cx)] == cx:
        found = ("prefix", f"{x!r} and {y!r} start with the same words")
    elif _contained(x, y):
        found = ("contained", f"the words of {x!r} and {y!r} are contained in the other's")
    else:
        # Similar names have as many words, each spelled alike: checked before the (slow) ratio.
        alike = _same_words_spelled_alike(cx, cy)
        ratio = difflib.SequenceMatcher(None, " ".join(cx), " ".join(cy)).ratio() if alike else 0.0
        if alike and ratio >= SIMILAR_NAME_RATIO:
            found = ("similar", f"similar names {x!r} and {y!r} ({ratio:.2f})")
        elif identifiers(x).words == identifiers(y).words:
            found = ("conflict", "")  # equal but for their codes: "iPhone 14" and "iPhone 15", "KXTCA86" and "KXTCA92"
        else:
            return None
    why = conflict(x, y, editions=found[0] != "acronym")
    if why is not None:
        return "conflict", f"{x!r} and {y!r}: {why}"
    return found if found[0] != "conflict" else None
