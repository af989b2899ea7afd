r"""What the JVM frameworks read from a Java or Kotlin file: its annotations by simple name, an annotation's
attributes, and expressions folded with the project's JVM constants (Java ``static final`` fields, Kotlin
``const val``\s) and the module's settings. A Kotlin expression is read as the Java one it stands for: string
templates (``"$BASE/x/${id}"``) as concatenations, ``arrayOf(a, b)`` as an array."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from ..languages.folding import Folded, Scope, array_items, literal
from ..languages.java.constants import JavaConstants, JavaFolder, without_enum_constants
from ..languages.symbols import Bound
from ..model import AnnotationFact, FileFacts, SymbolFact
from ..services.discovery import stork_placeholders
from ..services.settings import Values, placeholder_keys
from .base import Project


def annotations(sym: SymbolFact) -> dict[str, AnnotationFact]:
    return {a.name.rsplit(".", 1)[-1]: a for a in sym.annotations}


def attr(annotation: AnnotationFact | None, *keys: str) -> str | None:
    """The first of ``keys`` the annotation sets (``value`` also matches a positional argument)."""
    if annotation is None:
        return None
    args = dict(annotation.args)
    for key in keys:
        if key in args:
            return args[key]
        if key == "value" and "" in args:
            return args[""]
    return None


def constants(project: Project) -> JavaConstants:
    """Every Java constant of the project (built once per update, whichever framework asks first)."""
    return project.shared("java.constants", lambda: JavaConstants(project.table, JVM_LANGUAGES))


#: the languages whose files the JVM frameworks read
JVM_LANGUAGES = ("java", "kotlin")
#: (file path, method key) -> its parameters' values as one call site passes them: set while a wrapper method's
#: clients are read again for that site (`call_sites`); empty otherwise
CALL_SITE: ContextVar[dict[tuple[str, str], tuple[tuple[str, Folded], ...]] | None] = ContextVar("call_site",
                                                                                                  default=None)
_TEMPLATE = re.compile(r"\$\{([^{}]*)\}|\$([A-Za-z_]\w*)")


def java_expression(expr: str) -> str:
    """A Kotlin expression as the Java one it stands for (see the module docstring)."""
    expr = expr.strip()
    if expr.startswith("arrayOf(") and expr.endswith(")"):
        return "[" + expr[len("arrayOf("):-1] + "]"
    if '"' not in expr or "$" not in expr:
        return expr
    out: list[str] = []
    for part in re.split(r'("(?:[^"\\]|\\.)*")', expr):
        if not (part.startswith('"') and part.endswith('"') and len(part) >= 2):
            out.append(part)
            continue
        pieces, last = [], 1
        for match in _TEMPLATE.finditer(part, 1, len(part) - 1):
            pieces.append(f'"{part[last:match.start()]}"')
            pieces.append(f"({match.group(1) or match.group(2)})")
            last = match.end()
        pieces.append(f'"{part[last:-1]}"')
        out.append(" + ".join(p for p in pieces if p != '""') or '""')
    return "".join(out)


@dataclass
class JavaFile:
    """One Java file with what folding its values needs."""

    bound: Bound
    constants: JavaConstants
    values: Values

    @property
    def facts(self) -> FileFacts:
        return self.bound.facts

    def fold(self, expr: str | None, class_key: str, owner: str | None = None, line: int = 0,
             keep_enums: bool = False) -> Folded:
        """A Java expression folded in ``class_key`` (given the calling symbol and line, with its locals), then its
        placeholders resolved with the module's values. An enum constant a call site passes (`enum_constant`) stays
        one only for ``keep_enums`` (a call site's argument handed on to the next wrapper), else an unknown part."""
        if expr is None:
            return literal("")
        if self.facts.language != "java":
            expr = java_expression(expr)
        folder = JavaFolder(self.constants, self.facts, class_key)
        if owner is not None:
            folder.at(self.facts, owner, line)
            bindings = (CALL_SITE.get() or {}).get((self.facts.path, owner))
            if bindings:
                folder.scope = Scope(self.facts, owner, line, bindings)
        value = folder.fold(expr)
        return self.settle(value if keep_enums else without_enum_constants(value))

    def settle(self, value: Folded) -> Folded:
        if "${" not in value.text:
            return value
        written = stork_placeholders(value.text, self.values)
        text, missing = self.values.resolve(written)
        why = tuple(f"placeholder ${{{key}}} is not in the module's settings ({', '.join(self.values.files) or 'none'})"
                    for key in missing)
        return Folded(text, value.known and not missing, value.why + why,
                      tuple(dict.fromkeys([*value.settings, *placeholder_keys(written)])))

    def folds(self, expr: str | None, class_key: str) -> list[tuple[str, Folded]]:
        """Each element of an annotation attribute (an array or one value): (as written, folded)."""
        items = array_items(java_expression(expr) if self.facts.language != "java" else expr) if expr else []
        return [(item, self.fold(item, class_key)) for item in items] or [("", literal(""))]


TYPE_KINDS = ("class", "interface", "record", "enum", "object")


class Types:
    """The project's JVM types by fqn, and the supertypes a type's file names (resolved through its imports)."""

    def __init__(self, project: Project):
        self.constants = constants(project)
        self.by_fqn: dict[str, list[tuple[Bound, int]]] = {}
        for bound in project.table.files.values():
            if bound.facts.language in JVM_LANGUAGES:
                for index, sym in enumerate(bound.facts.symbols):
                    if sym.kind in TYPE_KINDS:
                        self.by_fqn.setdefault(bound.fqns[index], []).append((bound, index))

    def pick(self, fqn: str, bound: Bound) -> tuple[Bound, int] | None:
        """The one type of that fqn that code of ``bound`` means: the only one, else its own module's, else its own
        service's, else the only library's (two services' copies of one interface: neither, never a guess)."""
        found = self.by_fqn.get(fqn, [])
        if len(found) <= 1:
            return found[0] if found else None
        for same in ("module", "microservice"):
            own = [ref for ref in found if getattr(ref[0].ctx, same) == getattr(bound.ctx, same)]
            if own:
                return min(own, key=lambda ref: ref[0].path)
        libraries = [ref for ref in found if not ref[0].ctx.deployable]
        return libraries[0] if len(libraries) == 1 else None

    @staticmethod
    def of(project: Project) -> Types:
        """The project's types (built once per update, whichever framework asks first)."""
        return project.shared("jvm.types", lambda: Types(project))

    def supers(self, bound: Bound, index: int) -> list[tuple[Bound, int]]:
        sym = bound.facts.symbols[index]
        folder = JavaFolder(self.constants, bound.facts, sym.key)
        out = []
        for _relation, written in sym.supers:
            fqn = folder.type_fqn(written.split("<", 1)[0].split("(", 1)[0].strip())
            found = self.pick(fqn, bound) if fqn is not None else None
            if found is not None:
                out.append(found)
        return out


@dataclass
class Mapped:
    """A method mapping (``@Get("/x")``, ``@GET @Path("x")``) a type has, its own or inherited: the HTTP
    method, the annotation that holds the path, where it is written, and the type's own method it belongs to
    (None: the type does not redeclare it)."""

    owner: int | None
    bound: Bound
    member: int
    verb: str
    annotation: AnnotationFact | None

    @property
    def class_key(self) -> str:
        return self.bound.facts.symbols[self.member].parent or ""

    def own_line(self, bound: Bound) -> int | None:
        """The mapping annotation's line where ``bound``'s own method writes it (the method's first line may be another
        annotation's: ``@Override``), else None (the item takes its owner's first line)."""
        if self.owner is None or self.owner != self.member or self.bound is not bound or self.annotation is None:
            return None
        return self.annotation.line or None


def inherited_mappings(types: Types, bound: Bound, index: int,
                       own: Callable[[Bound, int], list[tuple[str, AnnotationFact | None]]],
                       seen: frozenset[str] = frozenset()) -> list[Mapped]:
    """Every mapped method of a type (``own`` gives a method's (HTTP method, path annotation) pairs): its own,
    then those of its supertypes, at any depth, that it does not map itself, filed at its method that overrides
    them. Overriding is by signature, not by name: ``findById(String)`` mapped here leaves the inherited
    ``findById(Long)`` mapping in place (an overload is another method)."""
    facts = bound.facts
    key = f"{bound.path}:{index}"
    if key in seen or len(seen) > 8:
        return []
    methods = [i for i in bound.members(facts.symbols[index].key) if facts.symbols[i].kind == "method"]
    out = [Mapped(member, bound, member, verb, annotation) for member in methods for verb, annotation in own(bound, member)]
    mapped_here = {m.member for m in out}
    kotlin = facts.language == "kotlin"
    for super_bound, super_index in types.supers(bound, index):
        for found in inherited_mappings(types, super_bound, super_index, own, seen | {key}):
            overriding = [i for i in methods if overrides(facts.symbols[i], kotlin, found.bound, found.member)]
            if not any(i in mapped_here for i in overriding):
                out.append(Mapped(overriding[0] if overriding else None, found.bound, found.member, found.verb,
                                  found.annotation))
    return out


#: a Java primitive and its box, one parameter type only where Kotlin is on either side (a Kotlin ``Long`` compiles
#: to ``long`` or ``Long``: it implements either); between two Java methods ``f(long)`` and ``f(Long)`` are overloads
_BOXES = {"Integer": "int", "Long": "long", "Short": "short", "Byte": "byte", "Double": "double", "Float": "float",
          "Boolean": "boolean", "Character": "char"}
#: Kotlin's names for the Java types a signature compiles to (the extractor keeps no generic arguments: ``Array``
#: is an array of some reference type, `_ANY_ARRAY`)
_KOTLIN = {"Any": "Object", "Int": "Integer", "Char": "Character", "Nothing": "Void", "MutableList": "List",
           "MutableSet": "Set", "MutableMap": "Map", "MutableCollection": "Collection", "MutableIterable": "Iterable",
           "Array": "?[]", **{f"{k}Array": f"{v}[]" for k, v in (
               ("Int", "int"), ("Long", "long"), ("Short", "short"), ("Byte", "byte"), ("Double", "double"),
               ("Float", "float"), ("Boolean", "boolean"), ("Char", "char"))}}
_ANY_ARRAY = "?[]"


def _erased(written: str, kotlin: bool) -> str:
    """A parameter type as the JVM compares it: generic arguments, package, Kotlin's ``?`` off; varargs an array;
    Kotlin's names as Java's (`_KOTLIN`)."""
    text = written.strip().removesuffix("...")
    dims = "[]" if written.strip().endswith("...") else ""
    while text.endswith("[]"):
        text, dims = text[:-2].rstrip(), dims + "[]"
    base = text.split("<", 1)[0].strip().rstrip("?").rsplit(".", 1)[-1]
    return (_KOTLIN.get(base, base) if kotlin else base) + dims


def _same_type(mine: str, theirs: str, loose: bool) -> bool:
    if loose:   # Kotlin on a side: a box and its primitive are one type
        mine, theirs = _BOXES.get(mine, mine), _BOXES.get(theirs, theirs)
    if _ANY_ARRAY in (mine, theirs):   # Kotlin's Array<T>: any array of a reference type
        other = theirs if mine == _ANY_ARRAY else mine
        return other.endswith("[]") and other[:-2] not in _BOXES.values()
    return mine == theirs


def overrides(method: SymbolFact, kotlin: bool, super_bound: Bound, super_member: int) -> bool:
    """Whether ``method`` (of a Kotlin file when ``kotlin``) overrides the supertype's method: the same name and
    parameter types, a type parameter of the supertype or of its method standing for any reference type (``create(T)``
    is overridden by ``create(User)``, ``save(T[])`` by ``save(User[])``)."""
    upper = super_bound.facts.symbols[super_member]
    if method.name != upper.name or len(method.params) != len(upper.params):
        return False
    owner = next((s for s in super_bound.facts.symbols if s.key == upper.parent), None)
    variables = set(upper.type_params) | set(owner.type_params if owner is not None else ())
    theirs_kotlin = super_bound.facts.language == "kotlin"
    loose = kotlin or theirs_kotlin

    def fits(mine: str, theirs: str) -> bool:
        base = theirs.rstrip("[]")
        if base in variables:   # T stands for any reference type; T[] for an array of one
            dims = theirs[len(base):]
            return mine.endswith(dims) and mine[:len(mine) - len(dims)] not in _BOXES.values()
        return _same_type(mine, theirs, loose)

    return all(fits(_erased(mine, kotlin), _erased(theirs, theirs_kotlin))
               for (_, mine), (_, theirs) in zip(method.params, upper.params, strict=True))
