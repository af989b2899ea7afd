"""Names as entity resolution compares them: normalised forms, lookup keys, and how two names relate.

Pure functions. A name is folded (accents, case, punctuation), a leading "the" and
trailing legal suffixes ("Inc", "Corp", "Ltd"...) are dropped, so "Apple Inc." and
"Apple" share the normalised form ``apple``. Each node is stored under lookup keys
derived from its canonical name and aliases; :func:`name_evidence` says how
strongly two sets of names point at the same thing.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from collections.abc import Iterable

LEGAL_SUFFIXES = frozenset(
    "inc incorporated corp corporation co company ltd limited llc plc gmbh ag sa nv bv lp llp".split()
)
#: Words left out of initials ("Bank of America" -> "ba").
INITIALS_SKIP = frozenset("of and for the de la du".split())
_WORD = re.compile(r"[a-z0-9]+")

#: Two names whose normalised forms are at least this similar (difflib ratio) are "similar names".
SIMILAR_NAME_RATIO = 0.75


def words(name: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", name)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower().replace("&", " and ")
    return _WORD.findall(folded)


def core_words(name: str) -> list[str]:
    """Words without a leading "the" and trailing legal suffixes (at least one word is kept)."""
    out = words(name)
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
    return keys


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
    return keys


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


def _same_words_spelled_alike(cx: list[str], cy: list[str]) -> bool:
    """Word by word, each pair is equal, one starts the other ("tim", "timothy") or is spelled alike;
    a short word (one or two letters) must be equal: "Fund A" and "Fund B" are not similar names."""
    if len(cx) != len(cy):
        return False
    for u, v in zip(cx, cy, strict=True):
        if u == v:
            continue
        if min(len(u), len(v)) <= 2:
            return False
        if not (u.startswith(v) or v.startswith(u) or difflib.SequenceMatcher(None, u, v).ratio() >= 0.5):
            return False
    return True


def name_evidence(a: Iterable[str], b: Iterable[str]) -> tuple[str, str]:
    """How two sets of names (canonical name and aliases) relate: (level, reason).

    Levels, strongest first: ``same`` (equal normalised names, e.g. "Apple Inc." and "Apple"),
    ``acronym`` ("NYC" and "New York City"), ``prefix`` (one name's words start the other's,
    "Beats" and "Beats Electronics"), ``similar`` (difflib ratio >= SIMILAR_NAME_RATIO,
    "Tim Cook" and "Timothy Cook"), ``none``.
    """
    a, b = list(dict.fromkeys(a)), list(dict.fromkeys(b))
    best: tuple[int, str, str] = (0, "none", "no name in common")
    for x in a:
        for y in b:
            cx, cy = core_words(x), core_words(y)
            if not cx or not cy:
                continue
            nx, ny = {w for w in cx if w.isdigit()}, {w for w in cy if w.isdigit()}
            if nx and ny and nx != ny:
                continue
            if cx == cy or "".join(cx) == "".join(cy):
                found = (4, "same", f"same normalised name {' '.join(cx)!r}")
            elif (is_acronym_form(x) and cx[0] == initials(y)) or (is_acronym_form(y) and cy[0] == initials(x)):
                found = (3, "acronym", f"{x!r} abbreviates {y!r}" if len(cx) == 1 else f"{y!r} abbreviates {x!r}")
            elif cx[: len(cy)] == cy or cy[: len(cx)] == cx:
                found = (2, "prefix", f"{x!r} and {y!r} start with the same words")
            else:
                ratio = difflib.SequenceMatcher(None, " ".join(cx), " ".join(cy)).ratio()
                if ratio < SIMILAR_NAME_RATIO or not _same_words_spelled_alike(cx, cy):
                    continue
                found = (1, "similar", f"similar names {x!r} and {y!r} ({ratio:.2f})")
            if found[0] > best[0]:
                best = found
    return best[1], best[2]
