"""Folding what the code says into values: string literals, constants across files, concatenation, and
(in each language's folder) ``String.format`` with constant arguments, f-strings and template literals with
constant parts.

A fold gives a `Folded`: the text, with ``{?}`` for each part that is not known statically (a
parameter, a method's result, an environment variable), whether it is fully known, and why a part is
not. Folding never guesses: a part is either a literal, a constant that folds, or ``{?}``.

Here: `Folded`, the tokens and the expression folder every language's folder builds on (`Folder`: a
language says what a string literal, a name and a call are). The constants each language reads are its
own (``languages/<lang>/constants.py``). ``${...}`` placeholders are not resolved here (see
`services.settings.Values.resolve`): a value keeps them until the module that uses it resolves them with
its settings.

**Locals.** A folder given a scope (`Folder.at`: the file, the symbol that makes the call and the line) reads
the function's own assignments (``extra["assigns"]``, recorded by every extractor, `Extractor.record_values`):
a name is the value of its nearest assignment before the line (and, while that one is in a branch arm the
line is not in, of the ones before it too: a choice, `reaching`), looked up in the function, then in the
symbols around it (a nested function sees its outer function's locals, a method its class's fields: every
assignment that can reach the read, `Folder._field`). A conditional of values (``c ? "likes" : "comments"``) is a
`choice`: the value is one of them, and each is followed (`expand`).

**Markers.** Three parts of a value are written into its text as markers, so that they survive
concatenation: an environment variable (`env`: ``os.getenv("X")``, ``process.env.X``, ``System.getenv("X")``),
settled per service with the values the project's deployment files give it (`services.environment`); a
choice; and an unknown run-time value that a name stands for (``{?:id}``, `named_unknown`): a whole URL path
segment of that kind is a path parameter (``/orders/{id}``), anywhere else it is ``{?}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..model import FileFacts, SymbolFact

UNKNOWN = "{?}"
_MAX_DEPTH = 12
_CLASSES = ("class", "record", "enum", "interface", "object")
ENV_OPEN, ENV_CLOSE, ENV_DEFAULT = "\x01", "\x02", "\x1e"
CHOICE_OPEN, CHOICE_CLOSE, CHOICE_SEP = "\x03", "\x04", "\x1f"
#: at most this many values of one expression are followed (choices multiply)
MAX_CHOICES = 16
_NAMED = re.compile(r"\{\?:([^{}]*)\}")
_ENV = re.compile(f"{ENV_OPEN}([^{ENV_CLOSE}{ENV_DEFAULT}]*)(?:{ENV_DEFAULT}([^{ENV_CLOSE}]*))?{ENV_CLOSE}")
_CHOICE = re.compile(f"{CHOICE_OPEN}([^{CHOICE_CLOSE}]*){CHOICE_CLOSE}")


@dataclass(frozen=True)
class Folded:
    text: str
    known: bool
    why: tuple[str, ...] = ()
    #: the settings keys whose placeholders (``${a.b}``) were resolved into the text: where an agent is told the
    #: value is set (`services.config_view.client_config`)
    settings: tuple[str, ...] = field(default=(), compare=False)

    def __add__(self, other: Folded) -> Folded:
        return Folded(self.text + other.text, self.known and other.known, self.why + other.why,
                      self.settings + other.settings)


def literal(text: str) -> Folded:
    return Folded(text, True)


def unknown(why: str) -> Folded:
    return Folded(UNKNOWN, False, (why,))


def named_unknown(name: str, why: str) -> Folded:
    """An unknown run-time value that ``name`` (a variable, a parameter, a field) stands for: ``{?:name}``."""
    simple = name.rsplit(".", 1)[-1]
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", simple) or simple.isupper():
        return unknown(why)
    return Folded(f"{{?:{simple}}}", False, (why,))


def env(name: str, default: str | None = None) -> Folded:
    """An environment variable read by the code (with the default the code gives, if a literal)."""
    marker = ENV_OPEN + name + (ENV_DEFAULT + default if default is not None else "") + ENV_CLOSE
    return Folded(marker, False, (env_why(name),))


def env_why(name: str) -> str:
    return f"environment variable {name} is set by none of the project's deployment files"


def has_unknown(text: str) -> bool:
    """Whether a value's text still holds an unknown part (``{?}`` or ``{?:name}``)."""
    return "{?" in text


def plain(text: str) -> str:
    """A value's text for people: markers written as ``{?}``, ``${env:X}`` and ``{a|b}``."""
    text = _ENV.sub(lambda m: "${env:" + m.group(1) + "}", text)
    text = _CHOICE.sub(lambda m: "{" + m.group(1).replace(CHOICE_SEP, "|") + "}", text)
    return _NAMED.sub(lambda m: "{" + m.group(1) + "}", text)


def env_defaults(text: str) -> dict[str, str]:
    """The default the code gives each environment variable a value's text reads, where it gives a literal one
    (``process.env.X || "http://localhost:8080"``, ``os.getenv("X", "d")``)."""
    return {m.group(1): m.group(2) for m in _ENV.finditer(text) if m.group(2) is not None}


def env_names(text: str) -> list[str]:
    """The environment variables a value's text reads, in order."""
    return [m.group(1) for m in _ENV.finditer(text)]


def choice(values: list[Folded]) -> Folded:
    """One of several values (a conditional, a variable assigned in branches). Equal values are one; a value
    that is itself a choice is followed no further (unknown)."""
    distinct: dict[str, Folded] = {}
    for value in values:
        distinct.setdefault(value.text, value)
    if len(distinct) == 1:
        return next(iter(distinct.values()))
    if not distinct or any(CHOICE_OPEN in v.text for v in distinct.values()) or len(distinct) > MAX_CHOICES:
        return unknown("one of several values that are not all known")
    why = tuple(w for v in distinct.values() for w in v.why)
    keys = tuple(dict.fromkeys(k for v in values for k in v.settings))
    return Folded(CHOICE_OPEN + CHOICE_SEP.join(distinct) + CHOICE_CLOSE, all(v.known for v in distinct.values()), why,
                  keys)


def reaching(entries: list, arms: dict[int, tuple[int, int]], line: int) -> list:
    """Of the assignments ``[line, exprs]`` of one name before ``line``, those whose value may reach it: the
    nearest, and while that one sits in a branch arm (``arms``: its line -> the arm's first and last line) the
    use is not in, the ones before it too (an ``if`` may not run), up to one that runs whenever the use does. A
    write in an arm already taken is overwritten by the later one there and left out."""
    out: list = []
    taken: list[tuple[int, int]] = []
    for entry in sorted(entries[::-1], key=lambda e: -e[0]):   # the later of two on one line first
        arm = arms.get(entry[0])
        if arm is not None and any(first <= arm[0] and arm[1] <= last for first, last in taken):
            continue
        out.append(entry)
        if arm is None or arm[0] <= line <= arm[1]:
            break
        taken.append(arm)
    return out


def expand(value: Folded) -> list[Folded]:
    """The values a folded value may be, one per combination of its choices (at most `MAX_CHOICES`)."""
    if CHOICE_OPEN not in value.text:
        return [value]
    out = [""]
    for piece in re.split(f"({CHOICE_OPEN}[^{CHOICE_CLOSE}]*{CHOICE_CLOSE})", value.text):
        if piece.startswith(CHOICE_OPEN):
            options = piece[1:-1].split(CHOICE_SEP)
            out = [head + option for head in out for option in options][:MAX_CHOICES]
        else:
            out = [head + piece for head in out]
    return [Folded(text, known_text(text), value.why) for text in out]


def settle_env(value: Folded, lookup) -> tuple[Folded, list[str]]:
    """``value`` with its environment variables replaced by ``lookup(name)`` (a list of the values the deployment
    files give it; several make a choice, unless the value is already a choice: then ``{?}``, saying so); a
    variable none gives takes the code's default, else is ``{?}``. Returns the value and the variables it read."""
    if ENV_OPEN not in value.text:
        return value, []
    names: list[str] = []
    missing: set[str] = set()
    several: set[str] = set()

    def replace(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        names.append(name)
        found = list(dict.fromkeys(lookup(name) or ()))
        if not found and default is not None:
            found = [default]
        if not found:
            missing.add(name)
            return UNKNOWN
        if len(found) == 1:
            return found[0]
        if inside_choice:   # a choice within a choice is not written: the value is not known
            several.add(name)
            return UNKNOWN
        return CHOICE_OPEN + CHOICE_SEP.join(found) + CHOICE_CLOSE

    inside_choice = CHOICE_OPEN in value.text
    text = _CHOICE.sub(_distinct, _ENV.sub(replace, value.text))
    settled = {env_why(n) for n in names if n not in missing}
    why = tuple(w for w in value.why if w not in settled) + tuple(
        f"environment variable {n} is given several values, in one of several values already" for n in sorted(several))
    return Folded(text, known_text(text), why), names


def _distinct(match: re.Match) -> str:
    """A choice with its equal values made one (the variable each was the default of is set once), none left when
    one remains."""
    values = list(dict.fromkeys(match.group(1).split(CHOICE_SEP)))
    return values[0] if len(values) == 1 else CHOICE_OPEN + CHOICE_SEP.join(values) + CHOICE_CLOSE


def known_text(text: str) -> bool:
    """A value is known when its text holds no unknown part and no unsettled environment variable."""
    return not has_unknown(text) and ENV_OPEN not in text


def outside_quotes(text: str) -> Iterator[tuple[int, str, int]]:
    """Each character of ``text`` outside string quotes (``"``, ``'``, a backquote; a backslash escapes the next
    character) with its index and the bracket depth it stands at (a bracket at the depth outside it)."""
    depth, quote, i = 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        else:
            if ch in ")]}":
                depth -= 1
            yield i, ch, depth
            if ch in "([{":
                depth += 1
        i += 1


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` (one character or more) outside brackets and quotes."""
    out, start = [], 0
    for i, _ch, depth in outside_quotes(text):
        if depth == 0 and i >= start and text.startswith(sep, i):
            out.append(text[start:i].strip())
            start = i + len(sep)
    tail = text[start:].strip()
    if tail or out:
        out.append(tail)
    return [part for part in out if part]


def unwrap(text: str) -> str:
    """``text`` without the parentheses that enclose all of it (``((a || b))`` -> ``a || b``)."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and _encloses(text):
        text = text[1:-1].strip()
    return text


def _encloses(text: str) -> bool:
    """Whether the parenthesis that opens ``text`` is the one that closes it (quotes skipped)."""
    depth = 0
    for i, ch, _ in outside_quotes(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i < len(text) - 1:
                return False
    return True


def array_items(text: str) -> list[str]:
    """An annotation attribute as a list of expressions: ``{"/a", B}`` -> two; ``"/a"`` -> one."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return split_top(text[1:-1])
    if text.startswith("[") and text.endswith("]"):
        return split_top(text[1:-1])
    return [text] if text else []


# -- tokens ---------------------------------------------------------------------------------------------------

_Q3 = '"' * 3
_A3 = "'" * 3
_TOKEN = re.compile("|".join((
    rf"(?P<block>[rRbBuUfF]{{0,2}}(?:{_Q3}[\s\S]*?{_Q3}|{_A3}[\s\S]*?{_A3}))",
    r"""(?P<str>[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))""",
    r"(?P<tpl>`(?:[^`\\]|\\.)*`)",
    r"(?P<num>\d[\w.]*)",
    r"(?P<name>[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)",
    r"(?P<op>[+(),%])",
    r"(?P<ws>\s+)",
    r"(?P<other>.)",
)))

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0", "s": " "}


def unescape(body: str) -> str:
    def one(match: re.Match) -> str:
        ch = match.group(1)
        if ch.startswith("u") and len(ch) == 5:
            return chr(int(ch[1:], 16))
        return _ESCAPES.get(ch, ch)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", one, body)


def untokenize(toks: list[tuple[str, str]]) -> str:
    """Tokens written back as an expression: a space between two words, none around punctuation (``||``,
    ``["X"]``), so that it reads as it was written."""
    out = ""
    for index, (kind, text) in enumerate(toks):
        if index and kind != "other" and toks[index - 1][0] != "other":
            out += " "
        out += text
    return out


def _closing(toks: list[tuple[str, str]]) -> int | None:
    """The index of the ``)`` that closes the ``(`` at ``toks[0]``, or None."""
    depth = 0
    for index, tok in enumerate(toks):
        depth += (tok == ("op", "(")) - (tok == ("op", ")"))
        if depth == 0:
            return index
    return None


def tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind != "ws":
            out.append((kind, re.sub(r"\s+", "", match.group()) if kind == "name" else match.group()))
    return out


# -- a small expression folder shared by the languages ----------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """Where an expression is folded: in ``owner`` (a symbol key of ``facts``; "" for the file) before ``line``,
    with ``bindings`` for names whose value a caller gives (a helper's parameters)."""

    facts: FileFacts
    owner: str
    line: int
    bindings: tuple[tuple[str, Folded], ...] = ()


class Folder:
    """Folds ``a + b + "c"``-style expressions; subclasses say what a string literal, a name and a call are."""

    #: the language's operators that give a default where the left side is absent (C# ``??``, Kotlin ``?:``):
    #: ``Environment.GetEnvironmentVariable("X") ?? "d"`` is the variable X with the default "d" (`with_default`)
    default_operators: tuple[str, ...] = ()
    #: the language's conditional (``c ? a : b``): (condition, when true, when false) of a text, or None
    conditional_of = None
    #: of a conditional that gives the value it tests when that is set (``a ? a : "d"``): (that value, the fallback)
    fallback_of = None

    def __init__(self) -> None:
        self.depth = 0
        self.scope: Scope | None = None

    def at(self, facts: FileFacts, owner: str | None, line: int) -> Folder:
        """This folder reading the locals of ``owner`` before ``line`` (see the module docstring)."""
        self.scope = Scope(facts, owner or "", line)
        return self

    def local(self, name: str) -> Folded | None:
        """The value of a local (or of a name the scope's outer symbols assign), or None when none assigns it."""
        scope = self.scope
        if scope is None:
            return None
        for bound, value in scope.bindings:
            if bound == name:
                return value
        assigns = scope.facts.extra.get("assigns")
        if not assigns:
            return None
        parents = self._parents(scope.facts)
        owner: str | None = scope.owner
        line = scope.line
        kinds = self._kinds(scope.facts)
        while owner is not None:
            entries = [e for e in assigns.get(owner, {}).get(name, ()) if e[0] < line]
            if entries and kinds.get(owner) in _CLASSES:
                return self._field(owner, name, ("this", "self"))
            if entries:
                arms = {at: (first, last) for at, first, last in
                        scope.facts.extra.get("conditional", {}).get(owner, {}).get(name, ())}
                value = choice([self.fold_in(Scope(scope.facts, owner, at, scope.bindings), exprs)
                                for at, exprs in reaching(entries, arms, line)])
                # a local whose value is not known stands for its run-time value
                return named_unknown(name, "; ".join(value.why) or f"{name} is known at run time only") \
                    if value.text == UNKNOWN else value
            owner = parents.get(owner) if owner else None
            line = 1 << 30
        return None

    def _parents(self, facts: FileFacts) -> dict[str, str]:
        """Each symbol key's parent key ("" for a top-level symbol), for the files this folder reads."""
        cache = self.__dict__.setdefault("_parent_cache", {})
        found = cache.get(facts.path)
        if found is None:
            found = cache[facts.path] = {sym.key: sym.parent or "" for sym in facts.symbols}
        return found

    def _kinds(self, facts: FileFacts) -> dict[str, str]:
        cache = self.__dict__.setdefault("_kind_cache", {})
        found = cache.get(facts.path)
        if found is None:
            found = cache[facts.path] = {sym.key: sym.kind for sym in facts.symbols}
        return found

    #: whether a method assigns a field by its bare name (Java, C#: ``channel = c`` where no parameter or local
    #: is so named, ``extra["declares"]``); a language where a bare name in a method is always a local (Python, TS) leaves it False
    bare_field_assigns = False

    def reaches(self, method) -> bool:
        """Whether ``method``'s assignments can reach a read of a field in the deployed code (a language that
        knows a test-only method says no)."""
        return True

    def member(self, attr: str, receivers: tuple[str, ...] = ("this", "self")) -> Folded | None:
        """The value of a field of the class around the scope (`_field`), or None when none sets it."""
        scope = self.scope
        if scope is None or not scope.facts.extra.get("assigns"):
            return None
        kinds = self._kinds(scope.facts)
        parents = self._parents(scope.facts)
        owner = scope.owner
        while owner and kinds.get(owner) not in _CLASSES:
            owner = parents.get(owner, "")
        return self._field(owner, attr, receivers) if owner else None

    def _field(self, owner: str, attr: str, receivers: tuple[str, ...]) -> Folded | None:
        """A field of class ``owner``: every assignment that can reach a read, its initialiser and each
        ``this.attr = ...`` / ``self.attr = ...`` (and, where the language writes fields bare, ``attr = ...``) its
        methods make. Several distinct values make a choice when each is known; one not known (a parameter, a
        call's result) makes the field known at run time only: its known alternatives are never linked on a guess."""
        scope = self.scope
        assert scope is not None
        assigns = scope.facts.extra.get("assigns", {})
        parents = self._parents(scope.facts)
        symbols = {sym.key: sym for sym in scope.facts.symbols}
        declares = scope.facts.extra.get("declares", {})
        found: list[tuple[str, int, list[str]]] = [(owner, line, exprs) for line, exprs in
                                                    assigns.get(owner, {}).get(attr, ())]
        targets = [f"{receiver}.{attr}" for receiver in receivers]
        for key, table in assigns.items():
            if not key or parents.get(key) != owner:
                continue
            method = symbols.get(key)
            if method is not None and not self.reaches(method):
                continue
            for target in targets:
                found += [(key, line, exprs) for line, exprs in table.get(target, ())]
            if self.bare_field_assigns and method is not None and method.kind in ("method", "constructor") and \
                    not any(param == attr for param, _ in method.params) and attr not in declares.get(key, ()):
                found += [(key, line, exprs) for line, exprs in table.get(attr, ())]
        if not found:
            return None
        values = [self.fold_in(Scope(scope.facts, key, line, ()), exprs) for key, line, exprs in found]
        if len({v.text for v in values}) > 1 and any(has_unknown(v.text) for v in values):
            why = next(w for v in values if has_unknown(v.text) for w in v.why or ("a value not known",))
            return named_unknown(attr, f"{attr} is assigned a value known at run time only ({why})")
        return choice(values)

    def scoped(self, name: str, receiver: str) -> Folded | None:
        """A bare name as a local (`local`), ``<receiver>.attr`` as a field of the class around the scope
        (`member`); None when neither assigns it."""
        if "." not in name:
            return self.local(name)
        if name.startswith(receiver + ".") and name.count(".") == 1:
            return self.member(name[len(receiver) + 1:], (receiver,))
        return None

    def fold_in(self, scope: Scope, exprs: list[str]) -> Folded:
        """Each of ``exprs`` folded in ``scope``; several make a choice."""
        saved = self.scope
        self.scope = scope
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH:
                return unknown("values refer to each other too deeply")
            return choice([self.fold(expr) for expr in exprs])
        finally:
            self.scope = saved
            self.depth -= 1

    def fold(self, text: str) -> Folded:
        text = text.strip()
        if not text:
            return unknown("empty expression")
        if self.depth > _MAX_DEPTH:
            return unknown("constants refer to each other too deeply")
        if self.conditional_of is not None and self.conditional_of(text) is not None:
            found = self.fallback_of(text) if self.fallback_of is not None else None
            if found is None:
                return unknown(f"one of two values on a condition not known here: {text[:80]}")
            self.depth += 1
            try:
                return self.with_fallback(self.fold(found[0]), self.fold(found[1]))
            finally:
                self.depth -= 1
        for operator in self.default_operators:
            parts = split_top(text, operator) if operator in text else ()
            if len(parts) > 1:
                return self.with_default(self.fold(parts[0]), self.fold(f" {operator} ".join(parts[1:])), operator)
        self.depth += 1
        try:
            toks = tokens(text)
            value, rest = self._sum(toks)
            if rest:
                return unknown(f"not a constant expression: {text[:80]}")
            return value
        finally:
            self.depth -= 1

    def _sum(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        value, toks = self._term(toks)
        while toks and toks[0] == ("op", "+"):
            right, toks = self._term(toks[1:])
            value = value + right
        return value, toks

    def _term(self, toks: list[tuple[str, str]]) -> tuple[Folded, list[tuple[str, str]]]:
        if not toks:
            return unknown("incomplete expression"), toks
        kind, text = toks[0]
        if kind in ("str", "block", "tpl"):
            value = self.string(kind, text)
            toks = toks[1:]
            while toks and toks[0][0] == "str" and self.implicit_concat:  # Python "a" "b"
                value = value + self.string(toks[0][0], toks[0][1])
                toks = toks[1:]
            if len(toks) > 2 and toks[0] == ("other", ".") and toks[1][0] == "name" and toks[2] == ("op", "("):
                args, rest = self._args(toks[3:])
                return self.method_of_string(value, toks[1][1], args), rest
            if len(toks) > 1 and toks[0] == ("op", "%"):
                if toks[1] == ("op", "("):
                    args, rest = self._args(toks[2:])
                else:
                    right, rest = self._term(toks[1:])
                    return self.percent(value, [right]), rest
                return self.percent(value, [self.fold_tokens(a) for a in args]), rest
            return value, toks
        if kind == "num":
            return literal(text), toks[1:]
        if kind == "op" and text == "(":
            value, rest = self._sum(toks[1:])
            if rest and rest[0] == ("op", ")"):
                return value, rest[1:]
            close = _closing(toks)
            if close is None:
                return unknown("unbalanced parentheses"), []
            # an expression in parentheses that is no sum: a default or a conditional (``(X || "d")``)
            return self.fold(untokenize(toks[1:close])), toks[close + 1:]
        if kind == "name":
            if len(toks) > 1 and toks[1] == ("op", "("):
                args, rest = self._args(toks[2:])
                value = self.call(text, args)
                while len(rest) > 2 and rest[0] == ("other", ".") and rest[1][0] == "name" and rest[2] == ("op", "("):
                    method = rest[1][1]
                    args, rest = self._args(rest[3:])
                    value = self.chained(value, method, args)
                return value, rest
            if len(toks) > 3 and toks[1] == ("other", "[") and toks[2][0] in ("str", "block", "tpl") \
                    and toks[3] == ("other", "]"):
                return self.subscript(text, self.string(toks[2][0], toks[2][1])), toks[4:]
            return self.name(text), toks[1:]
        return unknown(f"not a constant expression ({text})"), []

    def _args(self, toks: list[tuple[str, str]]) -> tuple[list[list[tuple[str, str]]], list[tuple[str, str]]]:
        args: list[list[tuple[str, str]]] = [[]]
        depth = 0
        for index, tok in enumerate(toks):
            if tok == ("op", "("):
                depth += 1
            elif tok == ("op", ")"):
                if depth == 0:
                    return [a for a in args if a], toks[index + 1:]
                depth -= 1
            elif tok == ("op", ",") and depth == 0:
                args.append([])
                continue
            args[-1].append(tok)
        return [], []

    def fold_tokens(self, toks: list[tuple[str, str]]) -> Folded:
        value, rest = self._sum(toks)
        return value if not rest else unknown("not a constant expression")

    implicit_concat = False

    def string(self, kind: str, text: str) -> Folded:
        raise NotImplementedError

    def name(self, name: str) -> Folded:
        raise NotImplementedError

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        return unknown(f"the result of {name}(...)")

    #: how deep calls of project methods are followed into their returned values (a helper calling a helper)
    max_call_depth = 4
    #: how many such calls the value being folded is inside
    call_depth = 0

    def returned_by(self, callee: Folder, facts: FileFacts, method: SymbolFact,
                    args: list[list[tuple[str, str]]]) -> Folded | None:
        """The value ``method`` (of ``facts``, folded by ``callee``: a folder of its own class) returns when called
        with ``args`` (folded here, in the caller's scope): each value its ``return``s and expression body give
        (``extra["assigns"][key]["return"]``), its parameters bound to the arguments; several make a choice. None
        when it records no returned value, the arguments do not match its parameters, or calls nest too deeply
        (a recursive helper): the call's result stays unknown."""
        entries = facts.extra.get("assigns", {}).get(method.key, {}).get("return")
        if not entries or len(method.params) != len(args) or self.call_depth >= self.max_call_depth:
            return None
        bindings = tuple((param, self.fold_tokens(arg)) for (param, _), arg in zip(method.params, args, strict=True))
        callee.depth = self.depth + 1
        callee.call_depth = self.call_depth + 1
        return choice([callee.fold_in(Scope(facts, method.key, line, bindings), exprs) for line, exprs in entries])

    def chained(self, value: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        """``call(...).method(args)``: unknown unless the language says what the method of that value gives."""
        return unknown(f"the result of ....{method}(...)")

    def method_of_string(self, template: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        """``"...".method(args)`` (Python ``str.format``, Java ``formatted``): unknown unless the language says."""
        return unknown(f"the result of \"...\".{method}(...)")

    def percent(self, template: Folded, args: list[Folded]) -> Folded:
        """``"..." % args`` (Python's printf-style formatting): unknown unless the language says."""
        return unknown("a %-formatted string")

    def subscript(self, name: str, key: Folded) -> Folded:
        """``name["key"]``: an environment lookup where the language says so (`env_table`), else unknown."""
        if name in self.env_tables and key.known:
            return env(key.text)
        return unknown(f"{name}[...] is not a constant")

    #: names whose ``["KEY"]`` reads an environment variable
    env_tables: frozenset[str] = frozenset()

    def with_default(self, value: Folded, default: Folded, operator: str) -> Folded:
        """``value <operator> default``: an environment variable alone on the left takes the known default; a known
        value stays itself (the default is never taken); else the value is not known."""
        marker = re.fullmatch(f"{ENV_OPEN}([^{ENV_CLOSE}{ENV_DEFAULT}]*){ENV_CLOSE}", value.text)
        if marker is not None and default.known:
            return env(marker.group(1), default.text)
        if value.known and value.text:
            return value
        return unknown(f"a value with a default ({operator}) that is not known")

    def with_fallback(self, value: Folded, default: Folded) -> Folded:
        """A conditional that gives ``value`` where it is set, else ``default`` (``a ? a : "d"``): an environment
        variable alone takes the default where it is a plain known value (shown as what it reaches where nothing
        sets the variable); a known value stays itself; else one of the two (a choice, as a conditional is)."""
        marker = re.fullmatch(f"{ENV_OPEN}([^{ENV_CLOSE}{ENV_DEFAULT}]*){ENV_CLOSE}", value.text)
        if marker is not None:
            plain_default = default.known and not any(m in default.text for m in (ENV_OPEN, CHOICE_OPEN))
            return env(marker.group(1), default.text if plain_default else None)
        if value.known and value.text:
            return value
        return choice([value, default])

    def env_call(self, name: str, args: list[list[tuple[str, str]]], readers: frozenset[str]) -> Folded | None:
        """``os.getenv("X", "default")``-style reads (``readers``): the environment variable, with a literal
        default when one is given; None when ``name`` is no reader."""
        if name not in readers or not args:
            return None
        key = self.fold_tokens(args[0])
        if not key.known:
            return unknown(f"{name}(...) of a name that is not a constant")
        default = self.fold_tokens(args[1]) if len(args) > 1 else None
        return env(key.text, default.text if default is not None and default.known and
                   not any(m in default.text for m in (ENV_OPEN, CHOICE_OPEN)) else None)


class FileFolder(Folder):
    """Folds an expression in one file of a project: a name is one of the file's constants (``extra["values"]``,
    as written) or one it imports, followed from file to file (at most `HOPS` files away). ``files`` are
    the project's facts by a key the language looks imports up by (a Python module name, a TS/JS path)."""

    HOPS = 6

    def __init__(self, files: dict[str, FileFacts], key: str) -> None:
        super().__init__()
        self.files = files
        self.key = key

    def name(self, name: str) -> Folded:
        return self.lookup(self.key, name, 0)

    def lookup(self, key: str, name: str, hops: int) -> Folded:
        facts = self.files.get(key)
        if facts is None or hops > self.HOPS:
            return unknown(f"{name} is not a constant")
        values = facts.extra.get("values", {})
        declared = facts.extra.get("assigns", {}).get("", {}).get(name, ())
        if name in values or len(declared) == 1:
            # a constant, or a name the file assigns once at its top level (``BASE = os.environ["BASE"]``)
            inner = type(self)(self.files, key)
            inner.depth = self.depth + 1
            return inner.fold(values[name]) if name in values else inner.fold_in(
                Scope(facts, "", declared[0][0]), declared[0][1])
        found = self.imported(facts, key, name)
        return self.lookup(*found, hops + 1) if found is not None else self.unknown_name(name)

    def imported(self, facts: FileFacts, key: str, name: str) -> tuple[str, str] | None:
        """(file key, name there) that an import of ``facts`` brings ``name`` from, if any."""
        return None

    def unknown_name(self, name: str) -> Folded:
        return unknown(f"{name} is not a constant")


def printf(template: Folded, args: list[Folded], verbs: str, name: str) -> Folded:
    """A printf-style format (``String.format``, ``fmt.Sprintf``) with constant arguments: each ``%`` verb in
    ``verbs`` (``"sd"``) takes the next argument, ``%%`` is ``%``; any other verb makes the result unknown."""
    if not template.known:
        return unknown(f"{name} with an unknown template")
    out = literal("")
    rest = list(args)
    for piece in re.split(rf"(%%|%[{verbs}])", template.text):
        if piece == "%%":
            out = out + literal("%")
        elif len(piece) == 2 and piece[0] == "%" and piece[1] in verbs:
            out = out + (rest.pop(0) if rest else unknown(f"{name} with too few arguments"))
        elif "%" in piece:
            return unknown(f"{name} with a format this folder does not read")
        else:
            out = out + literal(piece)
    return out


def settings_variable(facts: FileFacts, cls: SymbolFact, attr: str) -> str:
    """The environment variable a ``BaseSettings`` field ``attr`` of ``cls`` reads: ``env_prefix`` + name, upper
    case unless ``case_sensitive=True`` (pydantic matches in any case: ``ORDERS_URL`` sets ``orders_url``, and
    deployments write it so)."""
    assigns = facts.extra.get("assigns", {})
    config = " ".join(v for _, values in assigns.get(cls.key, {}).get("model_config", ()) for v in values)
    # pydantic v1 (and pydantic-settings' older form): an inner ``class Config:`` with ``env_prefix = "APP_"``
    config += " ".join(f" {key}={v}" for key, found in assigns.get(f"{cls.key}.Config", {}).items()
                       for _, values in found for v in values)
    prefix = re.search(r"""env_prefix\s*=\s*["']([^"']*)["']""", config)
    name = (prefix.group(1) if prefix else "") + attr
    return name if re.search(r"case_sensitive\s*=\s*True", config) else name.upper()
