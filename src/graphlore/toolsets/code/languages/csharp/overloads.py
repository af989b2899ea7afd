"""C# overloads of one name and arity told apart by what the argument is, where that is certain (calls of one
argument: a named argument among several may stand at another parameter's place, and the facts keep no names).

An argument's type is known when it is a literal (a string, ``$"..."``, ``nameof(..)``: ``string``; ``'c'``:
``char``; ``12``, ``12L``, ``1.5``, ``1.5m``, ``1.5f``; ``true``/``false``) or a local, parameter or field whose
type the code declares as one of C#'s built-in value types or ``string``. An overload is ruled out only when such
an argument cannot convert to its parameter: a built-in type to another built-in type C# does not widen it to
(``int`` goes to ``long``, ``double``, ``decimal``..., never to ``string``; an integer literal also to a smaller
integral type that holds its value: ``5`` to ``byte``), or to a collection (``string`` is
``IEnumerable<char>`` only). Every other argument (a call's result, a member, a project type) rules nothing out,
so the call stays ambiguous unless one overload remains.
"""

from __future__ import annotations

import re

#: C#'s implicit numeric conversions: a type -> the types it widens to
_WIDENS = {
    "sbyte": {"short", "int", "long", "float", "double", "decimal"},
    "byte": {"short", "ushort", "int", "uint", "long", "ulong", "float", "double", "decimal"},
    "short": {"int", "long", "float", "double", "decimal"},
    "ushort": {"int", "uint", "long", "ulong", "float", "double", "decimal"},
    "int": {"long", "float", "double", "decimal"},
    "uint": {"long", "ulong", "float", "double", "decimal"},
    "long": {"float", "double", "decimal"},
    "ulong": {"float", "double", "decimal"},
    "char": {"ushort", "int", "uint", "long", "ulong", "float", "double", "decimal"},
    "float": {"double"},
}
_ALIASES = {"String": "string", "Int32": "int", "Int64": "long", "Boolean": "bool", "Double": "double",
            "Decimal": "decimal", "Single": "float", "Char": "char", "Int16": "short", "Byte": "byte"}
BUILT_IN = frozenset({*_WIDENS, "bool", "double", "decimal", "string"})
_COLLECTIONS = frozenset({"IEnumerable", "ICollection", "IList", "IReadOnlyList", "IReadOnlyCollection", "List",
                          "HashSet", "ISet", "IAsyncEnumerable", "Dictionary", "IDictionary",
                          "IReadOnlyDictionary"})
#: C#'s implicit constant conversions: an ``int`` constant goes to a smaller integral type whose range holds its
#: value (``Send(5)`` calls ``Send(byte)``), a ``long`` one to ``ulong`` when not negative
_CONSTANT_RANGES = {"sbyte": (-2**7, 2**7 - 1), "byte": (0, 2**8 - 1), "short": (-2**15, 2**15 - 1),
                    "ushort": (0, 2**16 - 1), "uint": (0, 2**32 - 1), "ulong": (0, 2**64 - 1)}
_NUMBER = re.compile(r"^-?(?:\d[\d_]*)(?P<frac>\.\d[\d_]*)?(?:[eE][+-]?\d+)?(?P<suffix>[lLuUmMfFdD]{0,2})$")


def literal_type(written: str) -> str:
    """The type of an argument written as a literal; "" when it is not one."""
    text = written.strip()
    if re.match(r'^(?:\$@|@\$|\$|@)?"', text) or text.startswith("nameof("):
        return "string"
    if re.fullmatch(r"'(?:[^'\\]|\\.[^']*)'", text):
        return "char"
    if text in ("true", "false"):
        return "bool"
    number = _NUMBER.match(text)
    if number is None:
        return ""
    suffix = number.group("suffix").lower()
    if "m" in suffix:
        return "decimal"
    if "f" in suffix:
        return "float"
    if "d" in suffix or number.group("frac") or "e" in text.lower():
        return "double"
    return "long" if "l" in suffix else "uint" if "u" in suffix else "int"


def simple_type(written: str) -> str:
    """A declared type's simple name (``System.String?`` -> ``string``), "" for ``var`` and the unknown."""
    base = written.strip().lstrip("~").rstrip("?").strip()
    base = re.sub(r"^(?:global::)?(?:System\.)?", "", base)
    base = _ALIASES.get(base, base)
    return "" if base in ("var", "?", "dynamic") else base


def excludes(argument: str, parameter: str, written_as: str = "") -> bool:
    """Whether an argument of the built-in type ``argument`` can never be passed as ``parameter`` (as written);
    ``written_as``: the argument's text, for an integer literal's constant conversion (`_fits_constant`)."""
    if argument not in BUILT_IN:
        return False
    written = parameter.strip()
    if written.startswith(("params ", "this ", "ref ", "out ", "in ")) or written.endswith("..."):
        return False
    param = simple_type(written)
    if param in BUILT_IN:
        return param != argument and param not in _WIDENS.get(argument, set()) and \
            not _fits_constant(argument, written_as, param)
    if param.endswith("[]"):
        return True
    outer, _, inner = param.partition("<")
    if outer in _COLLECTIONS:
        return not (argument == "string" and outer in ("IEnumerable", "IAsyncEnumerable")
                    and simple_type(inner.rstrip(">")) == "char")
    return False


def _fits_constant(argument: str, written: str, param: str) -> bool:
    """Whether the integer literal ``written`` (of type ``argument``) converts to ``param`` as a constant."""
    if param not in _CONSTANT_RANGES or (argument, param) not in (*(("int", p) for p in _CONSTANT_RANGES),
                                                                  ("long", "ulong")):
        return False
    number = _NUMBER.match(written.strip())
    if number is None or number.group("frac") or "e" in written.lower():
        return False
    low, high = _CONSTANT_RANGES[param]
    return low <= int(written.strip().rstrip("lLuU").replace("_", "")) <= high
