"""Python constants for folding: module-level string constants, also imported (``from .settings import BASE``),
f-strings with constant parts, ``str.format`` and ``%`` with constant arguments, a function's locals and a
class's attributes (``self.base``), and environment reads (``os.environ["X"]``, ``os.getenv("X", default)``)."""

from __future__ import annotations

import re
import sys

from ...model import FileFacts
from ..folding import (
    FileFolder,
    Folded,
    Scope,
    choice,
    env,
    has_unknown,
    literal,
    named_unknown,
    printf,
    settings_variable,
    unescape,
    unknown,
)
from .fallbacks import conditional, fallback

#: calls that read an environment variable (``os.getenv("X", default)``)
ENV_READERS = frozenset({"os.getenv", "os.environ.get", "getenv", "environ.get"})


def absolute(module: str, target: str, is_package: bool) -> str:
    """An import target made absolute: ``..x.y`` in module ``a.b.c`` is ``a.x.y``; absolute targets unchanged."""
    if not target.startswith("."):
        return target
    level = len(target) - len(target.lstrip("."))
    rest = target[level:]
    package = module if is_package else (module.rsplit(".", 1)[0] if "." in module else "")
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: max(len(parts) - (level - 1), 0)]
    base = ".".join(parts)
    return f"{base}.{rest}" if base and rest else (base or rest)


def import_target(module: str, target: str, is_package: bool, exists) -> str:
    """`absolute`, and Python's script-folder rule: an absolute import that no project module answers
    (``from db import X`` where the project has no top-level ``db``) is the module beside the importing file
    (``pkg.db``) when that exists, as Python finds it first on ``sys.path`` for a file run as a script. Not for a
    name of the standard library (``import logging`` beside a ``logging.py`` is Python's own module when the
    folder is imported as a package: which one is not known) nor for the importing module itself (``import
    redis`` in ``redis.py`` is the library it wraps). ``exists(name)``: whether the project has a module
    ``name``."""
    found = absolute(module, target, is_package)
    head = found.split(".")[0]
    if target.startswith(".") or exists(found) or exists(head) or head in sys.stdlib_module_names:
        return found
    package = module if is_package else module.rpartition(".")[0]
    beside = f"{package}.{head}"
    return f"{package}.{found}" if package and beside != module and exists(beside) else found



def namespace_names(modules: dict[str, str]) -> dict[str, str]:
    """Dotted names a module is also imported by through folders without ``__init__.py`` (namespace packages:
    ``from routers import users`` names ``routers/users.py``, whose module name is ``users`` as no package
    holds it): each longer path suffix of the file (``routers.users``, ``app.routers.users`` ...) -> its module
    name, for paths given as ``{file path: module name}``. A suffix two files share names neither."""
    found: dict[str, set[str]] = {}
    for path, module in modules.items():
        if not path.endswith(".py"):
            continue
        parts = path[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        own = len(module.split("."))
        for start in range(len(parts) - own - 1, -1, -1):
            if all(part.isidentifier() for part in parts[start:]):
                found.setdefault(".".join(parts[start:]), set()).add(path)
    return {name: modules[next(iter(paths))] for name, paths in found.items()
            if len(paths) == 1 and name not in modules.values()}


class PythonFolder(FileFolder):
    """Folds a Python expression in a module (its constants and the constants it imports); files by module name."""

    implicit_concat = True
    env_tables = frozenset({"os.environ", "environ"})
    default_operators = (" or ",)   # ``os.environ.get("X") or "d"``
    conditional_of = staticmethod(conditional)
    fallback_of = staticmethod(fallback)

    def name(self, name: str) -> Folded:
        found = self.scoped(name, "self")
        if found is None and "." not in name:
            found = self.constructed(name)
        if found is None and "." in name:
            found = self.typed_field(name)
        if found is not None:
            return found
        return super().name(name)

    def lookup(self, key: str, name: str, hops: int) -> Folded:
        """`FileFolder.lookup`, and ``Cls.ATTR``: a class attribute the class body assigns once and no statement
        of the project assigns as ``Cls.ATTR = ...``; ``settings.X`` (Django's ``django.conf.settings``): ``X``
        in the one settings module the project names (`_settings_module`); ``settings.X`` of a config object the
        module makes (`_config_field`)."""
        facts = self.files.get(key)
        head, _, attr = name.partition(".")
        if facts is not None and attr and "." not in attr:
            if head == "settings" and self._django_settings(facts):
                module = _settings_module(self.files)
                if module is not None and hops <= self.HOPS:
                    return self.lookup(module, attr, hops + 1)
            cls = next((s for s in facts.symbols if s.name == head and s.kind == "class" and not s.parent), None)
            assigns = facts.extra.get("assigns", {})
            declared = assigns.get(cls.key, {}).get(attr, ()) if cls is not None else ()
            if len(declared) == 1 and not any(name in table for other in self.files.values()
                                              for table in other.extra.get("assigns", {}).values()):
                inner = type(self)(self.files, key)
                inner.depth = self.depth + 1
                return inner.fold_in(Scope(facts, cls.key, declared[0][0]), declared[0][1])
            if cls is None and not any(name in table for other in self.files.values()
                                       for table in other.extra.get("assigns", {}).values()):
                found = self._config_field(facts, key, head, attr)
                if found is not None:
                    return found
        return super().lookup(key, name, hops)

    def _config_field(self, facts: FileFacts, key: str, instance: str, attr: str) -> Folded | None:
        """``settings.X`` where ``settings = Settings()`` once at the module's top and ``Settings`` is a class of the
        module (pydantic-settings, a dataclass, a plain config class) declaring the field ``X``: its default; for a
        ``BaseSettings`` the environment variable of the field (``env_prefix`` + name, upper case unless
        ``case_sensitive=True``, as deployments write it) with that default, so a
        deployment's value wins (None when ``instance`` is no such object)."""
        made = facts.extra.get("assigns", {}).get("", {}).get(instance, ())
        found = re.fullmatch(r"(\w+)\(\s*\)", made[0][1][0].strip()) if len(made) == 1 and made[0][1] else None
        cls = next((s for s in facts.symbols if found and s.name == found.group(1) and s.kind == "class"
                    and not s.parent), None)
        if cls is None or not any(s.key == f"{cls.key}.{attr}" and s.kind == "field" for s in facts.symbols):
            return None
        return self._field_default(facts, key, cls, attr)

    def _field_default(self, facts: FileFacts, key: str, cls, attr: str) -> Folded | None:
        """The value of the field ``attr`` of ``cls`` (module ``key``) when its maker passes none: its default; for a
        ``BaseSettings`` the environment variable of the field with that default, so a deployment's value wins (None:
        a plain class's field of no default, or one not read)."""
        declared = facts.extra.get("assigns", {}).get(cls.key, {}).get(attr, ())
        default = None
        if len(declared) == 1:
            inner = type(self)(self.files, key)
            inner.depth = self.depth + 1
            default = inner.fold_in(Scope(facts, cls.key, declared[0][0]), declared[0][1])
        if not any(name.rsplit(".", 1)[-1] == "BaseSettings" for _, name in cls.supers):
            return default
        plain_default = default is not None and default.known and not has_unknown(default.text)
        return env(settings_variable(facts, cls, attr), default.text if plain_default else None)

    @staticmethod
    def _django_settings(facts: FileFacts) -> bool:
        return any(imp.target == "django.conf" and ("settings", "settings") in imp.names for imp in facts.imports)

    def constructed(self, name: str) -> Folded | None:
        """An ``__init__`` parameter as every call of the class in the project passes it (by position or keyword;
        several values: a choice). None (known at run time only) when the scope is no ``__init__``, the class is
        decorated or a project class extends it (something else may make it), nothing calls it, or a call
        passes a value not known or does not pass it (a default, ``*args``), or something may make it through
        a call not read (`_made_unseen`)."""
        scope = self.scope
        if scope is None or self.depth > 8 or self.files.get(self.key) is not scope.facts:
            return None
        symbols = {s.key: s for s in scope.facts.symbols}
        init = symbols.get(scope.owner)
        cls = symbols.get(init.parent or "") if init is not None and init.kind == "constructor" else None
        params = [param for param, _ in init.params] if cls is not None else []
        if cls is None or name not in params or cls.annotations or init.annotations \
                or any(p.startswith("*") for p in params):
            return None
        if any(written.rsplit(".", 1)[-1] == cls.name for facts in self.files.values() for sym in facts.symbols
               for _, written in sym.supers) or self._made_unseen(cls):
            return None
        values: list[Folded] = []
        for key, facts in self.files.items():
            for call in facts.calls:
                if call.name != cls.name or call.kind != "call" or not self._makes(facts, key, call, cls.name):
                    continue
                arg = argument(call, params.index(name), name)
                site = type(self)(self.files, key)
                site.depth = self.depth + 1
                value = site.at(facts, call.owner, call.line).fold(arg) if arg is not None else None
                if value is None or has_unknown(value.text):
                    return None
                values.append(value)
        return choice(values) if values else None

    def typed_field(self, name: str) -> Folded | None:
        """``cfg.x`` (a parameter annotated ``cfg: Config``) or ``self.cfg.x`` (an attribute the class's ``__init__``
        assigns such a parameter, or a class-level ``cfg: Config``), where ``Config`` is a class of the project declaring
        the field ``x`` (a pydantic model, a dataclass, a plain config class): ``x`` as every ``Config(...)`` call of the
        project passes it by keyword, folded where the call is (several: a choice), the field's default where a call
        passes none (for a ``BaseSettings``, its environment variable first: `_field_default`). None when the type is
        not such a class, a project class extends it, nothing calls it, a call unpacks (``**kw``) or passes ``x`` by
        position, or the class is also made some way not read (``cls(..)``, ``model_validate``, ``parse_obj``,
        ``model_construct``, an import that renames it)."""
        scope = self.scope
        parts = name.split(".")
        if scope is None or self.depth > 8 or self.files.get(self.key) is not scope.facts or len(parts) not in (2, 3):
            return None
        if len(parts) == 3 and parts[0] != "self":
            return None
        written = self._attribute_type(parts[1]) if len(parts) == 3 else self._param_type(scope.owner, parts[0])
        found = self._project_class(written) if written else None
        if found is None:
            return None
        module, cls = found
        attr = parts[-1]
        facts = self.files[module]
        if not any(s.key == f"{cls.key}.{attr}" and s.kind == "field" for s in facts.symbols):
            return None
        if any(sup.rsplit(".", 1)[-1] == cls.name for other in self.files.values() for sym in other.symbols
               for _, sup in sym.supers):
            return None
        methods = {s.key for s in facts.symbols if s.parent == cls.key}
        if any(call.name == "cls" and call.owner in methods for call in facts.calls):
            return None
        values: list[Folded] = []
        for key, other in self.files.items():
            for call in other.calls:
                last = call.name.rsplit(".", 1)[-1]
                on_class = call.name.endswith(f"{cls.name}.{last}") or (
                    isinstance(call.receiver, list) and call.receiver[:2] == ["name", cls.name])
                if last in _OTHER_MAKERS and on_class:
                    return None   # Config.model_validate(data): fields this reader does not see
                if call.name != cls.name or call.kind != "call" or not self._makes(other, key, call, cls.name, module):
                    continue
                if any(a.startswith("*") for a in call.args) or call.argc > len(call.args) or any(
                        not _KEYWORD.match(a) for a in call.args):
                    return None
                given = next((a[_KEYWORD.match(a).end():] for a in call.args if _KEYWORD.match(a).group(1) == attr),
                             None)
                if given is None:   # the default; a BaseSettings' field: its environment variable first
                    default = self._field_default(facts, module, cls, attr)
                    if default is None:
                        return None   # no default: the call would fail; or a default not read
                    values.append(default)
                    continue
                site = type(self)(self.files, key)
                site.depth = self.depth + 1
                values.append(site.at(other, call.owner, call.line).fold(given))
        return choice(values) if values else None

    def _param_type(self, owner: str, param: str) -> str | None:
        """The type a parameter of the function ``owner`` is annotated with, as written."""
        function = next((s for s in self.scope.facts.symbols if s.key == owner), None)
        return next((t for p, t in function.params if p == param), None) if function is not None else None

    def _attribute_type(self, attr: str) -> str | None:
        """The type of ``self.attr`` in the class around the scope: a class-level annotation ``attr: T``, or the
        annotated ``__init__`` parameter that ``__init__`` (and no other method) assigns it."""
        facts = self.scope.facts
        symbols = {s.key: s for s in facts.symbols}
        owner = self.scope.owner
        while owner and symbols.get(owner) is not None and symbols[owner].kind != "class":
            owner = symbols[owner].parent or ""
        cls = symbols.get(owner)
        if cls is None or cls.kind != "class":
            return None
        declared = symbols.get(f"{cls.key}.{attr}")
        if declared is not None and declared.kind == "field" and declared.type:
            return declared.type
        assigns = facts.extra.get("assigns", {})
        made = [(key, exprs) for key, table in assigns.items() if symbols.get(key) is not None
                and symbols[key].parent == cls.key for _, exprs in table.get(f"self.{attr}", ())]
        if len(made) != 1 or len(made[0][1]) != 1 or symbols[made[0][0]].kind != "constructor":
            return None
        return self._param_type(made[0][0], made[0][1][0].strip())

    def _project_class(self, written: str):
        """(module, class symbol) of a type written as a bare class name this module declares or imports."""
        written = written.strip().strip("'\"")
        if not re.fullmatch(r"\w+", written):
            return None
        here = self.files.get(self.key)
        for key, name in ((self.key, written), self.imported(here, self.key, written) or (None, None)):
            facts = self.files.get(key) if key is not None else None
            cls = next((s for s in facts.symbols if s.name == name and s.kind == "class" and not s.parent),
                       None) if facts is not None else None
            if cls is not None:
                return key, cls
        return None

    def _made_unseen(self, cls) -> bool:
        """Whether the class may be made by a call this reader does not follow: ``cls(...)`` in one of its
        methods (a ``@classmethod`` factory), or a call through an import that renames it (``import X as Y``)."""
        methods = {s.key for s in self.scope.facts.symbols if s.parent == cls.key}
        if any(call.name == "cls" and call.owner in methods for call in self.scope.facts.calls):
            return True
        return any(alias != imported and imported.rsplit(".", 1)[-1] == cls.name
                   and self.imported(facts, key, alias) == (self.key, cls.name)
                   for key, facts in self.files.items() for imp in facts.imports for imported, alias in imp.names)

    def _makes(self, facts: FileFacts, key: str, call, class_name: str, module: str | None = None) -> bool:
        """Whether ``call`` in module ``key`` calls the class ``class_name`` of ``module`` (this folder's module)."""
        module = self.key if module is None else module
        if call.receiver is None:
            return key == module or self.imported(facts, key, class_name) == (module, class_name)
        if isinstance(call.receiver, list) and call.receiver[:1] == ["name"]:
            return self.imported(facts, key, f"{call.receiver[1]}.{class_name}") == (module, class_name)
        return False

    def string(self, kind: str, text: str) -> Folded:
        match = re.match(r"^([rRbBuUfF]{0,2})('''|\"\"\"|'|\")", text)
        prefix = match.group(1).lower() if match else ""
        quote = match.group(2) if match else text[0]
        body = text[len(prefix) + len(quote): len(text) - len(quote)]
        if "r" not in prefix:
            body = unescape(body)
        if "f" not in prefix:
            return literal(body)
        return self._fstring(body)

    def _fstring(self, body: str) -> Folded:
        out = literal("")
        for piece in re.split(r"(\{\{|\}\}|\{[^{}]*\})", body):
            if piece in ("{{", "}}"):
                out = out + literal(piece[0])
            elif piece.startswith("{") and piece.endswith("}"):
                expr = piece[1:-1]
                if re.fullmatch(r"[A-Za-z_][\w.]*", expr.strip()):
                    out = out + self.name(expr.strip())
                elif _KEYED_READ.fullmatch(expr.strip()) or _ENV_CALL.fullmatch(expr.strip()):
                    out = out + self.fold(expr)   # {app.config["URI"]}, {os.getenv("HOST", "localhost")}
                else:
                    out = out + unknown(f"the f-string part {{{expr}}}")
            else:
                out = out + literal(piece)
        return out

    def imported(self, facts: FileFacts, key: str, name: str) -> tuple[str, str] | None:
        head, _, rest = name.partition(".")
        is_package = facts.path.endswith("__init__.py")
        for imp in facts.imports:
            target = import_target(key, imp.target, is_package, self.files.__contains__)
            for imported, alias in imp.names:
                if imported == "*":
                    star = self.files.get(target)
                    if star is not None and name in star.extra.get("values", {}):
                        return target, name
                elif imported == imp.target:  # import a.b / import a.b as c
                    bound = imported if alias == imported.split(".")[0] else alias
                    if name.startswith(bound + ".") and alias == name.split(".")[0]:
                        return target, (name[len(bound) + 1:] if bound != alias else name[len(alias) + 1:])
                elif alias == head:  # from target import imported as alias
                    sub = f"{target}.{imported}" if target else imported
                    if sub in self.files:
                        if rest:
                            return sub, rest
                    elif not rest:
                        return target, imported
                    elif target in self.files:   # from cfg import Settings; Settings.BASE
                        return target, f"{imported}.{rest}"
        return None

    def unknown_name(self, name: str) -> Folded:
        if name.partition(".")[0] == "os" or name.startswith("settings."):
            return unknown(f"{name}: an environment or settings value, known at run time only (no settings module "
                           "of the project sets it)")
        return named_unknown(name, f"{name} is not a constant (a variable or parameter: known at run time only)")

    def call(self, name: str, args: list[list[tuple[str, str]]]) -> Folded:
        found = self.env_call(name, args, ENV_READERS)
        if found is not None:
            return found
        if name == "str" and len(args) == 1:
            return self.fold_tokens(args[0])
        found = self.helper(name, args)
        return found if found is not None else unknown(f"the result of {name}(...)")

    def helper(self, name: str, args: list[list[tuple[str, str]]]) -> Folded | None:
        """``f(..)`` / ``module.f(..)``: what a module-level function of the project returns (this module's, or one
        imported by name or through its module), its parameters bound to the arguments (`Folder.returned_by`).
        None (the result unknown) when the name is no such function, the module defines it twice, or a keyword or
        starred argument is passed (how it binds is not read)."""
        if any(len(arg) > 1 and arg[1] == ("other", "=") or arg[0][1] in ("*", "**") for arg in args):
            return None
        key, there = self.key, name
        facts = self.files.get(key)
        if facts is None:
            return None
        if "." in name or not any(s.name == name and s.kind == "function" and not s.parent for s in facts.symbols):
            where = self.imported(facts, key, name)
            if where is None:
                return None
            key, there = where
            facts = self.files.get(key)
        found = [s for s in facts.symbols if s.name == there and s.kind == "function" and not s.parent] \
            if facts is not None else []
        if len(found) != 1:
            return None
        return self.returned_by(type(self)(self.files, key), facts, found[0], args)

    def method_of_string(self, template: Folded, method: str, args: list[list[tuple[str, str]]]) -> Folded:
        """``"http://{}/x".format(host)``: positional ``{}`` / ``{0}`` and keyword ``{name}`` fields."""
        if method != "format" or not template.known:
            return super().method_of_string(template, method, args)
        positional, named = [], {}
        for arg in args:
            if len(arg) > 2 and arg[0][0] == "name" and arg[1] == ("other", "="):
                named[arg[0][1]] = self.fold_tokens(arg[2:])
            else:
                positional.append(self.fold_tokens(arg))
        out, auto = literal(""), 0
        for piece in re.split(r"(\{\{|\}\}|\{[^{}]*\})", template.text):
            if piece in ("{{", "}}"):
                out = out + literal(piece[0])
            elif piece.startswith("{") and piece.endswith("}"):
                field = piece[1:-1].split(":", 1)[0].split("!", 1)[0]
                if field == "":
                    value = positional[auto] if auto < len(positional) else None
                    auto += 1
                elif field.isdigit():
                    value = positional[int(field)] if int(field) < len(positional) else None
                else:
                    value = named.get(field)
                out = out + (value if value is not None else unknown(f"the format field {piece}"))
            else:
                out = out + literal(piece)
        return out

    def percent(self, template: Folded, args: list[Folded]) -> Folded:
        return printf(template, args, "sdr", "%-formatting")

    def subscript(self, name: str, key: Folded) -> Folded:
        """``name["KEY"]``: an environment read (``os.environ``), else the value the scope (the function, the
        functions around it, the module) or the module ``name`` is imported from keeps under that key
        (``app.config["KEY"] = ...``, a dict literal, ``.update(KEY=...)``: `extract.keyed_pairs`); else unknown.
        Unknown too when the file loads the mapping in bulk after the key is set (`_replaced`): the value may be
        replaced at run time."""
        if name in self.env_tables or not key.known:
            return super().subscript(name, key)
        target = f'{name}["{key.text}"]'
        scope = self.scope
        replaced = _replaced(scope.facts, name, target) if scope is not None else None
        found = self.local(target)
        if found is not None and replaced is None:
            return found
        if found is None and scope is not None and self.files.get(self.key) is scope.facts:
            head = name.partition(".")[0]
            where = self.imported(scope.facts, self.key, head)
            facts = self.files.get(where[0]) if where is not None else None
            there = f'{where[1]}{name[len(head):]}' if where is not None else ""
            declared = facts.extra.get("assigns", {}).get("", {}).get(f'{there}["{key.text}"]', ()) \
                if facts is not None else ()
            replaced = replaced or (_replaced(facts, there, f'{there}["{key.text}"]') if facts is not None else None)
            if len(declared) == 1 and replaced is None:
                inner = type(self)(self.files, where[0])
                inner.depth = self.depth + 1
                return inner.fold_in(Scope(facts, "", declared[0][0]), declared[0][1])
        if replaced is not None:
            return unknown(f"{name}[{key.text!r}] is known at run time only ({replaced} may replace it)")
        return unknown(f"{name}[{key.text!r}] is known at run time only (the code keeps no value under that key)")


#: calls that load a mapping in bulk (Flask's ``app.config.from_object(...)``...; ``update`` with anything but
#: keywords or a dict literal): what it keeps under a key may be replaced at run time
_BULK_LOADS = frozenset({"from_object", "from_envvar", "from_pyfile", "from_file", "from_mapping",
                         "from_prefixed_env", "update"})


def _written(receiver: list | None) -> str | None:
    """A receiver as written (``["field", ["name", "app"], "config"]`` -> ``app.config``), or None."""
    if receiver and receiver[0] == "name":
        return receiver[1]
    if receiver and receiver[0] == "field":
        inner = _written(receiver[1])
        return f"{inner}.{receiver[2]}" if inner is not None else None
    return None


def _replaced(facts: FileFacts, obj: str, target: str) -> str | None:
    """The bulk load of ``obj`` in ``facts`` that may replace its ``target`` (``obj["KEY"]``) after the key is set
    (one written before every setting of the key, in the same function, does not), as ``obj.call(...) (line
    n)``; None when there is none."""
    sets = [(owner, entry[0]) for owner, table in facts.extra.get("assigns", {}).items()
            for entry in table.get(target, ())]
    for call in facts.calls:
        if call.name not in _BULK_LOADS or _written(call.receiver) != obj:
            continue
        if call.name == "update" and all(_KEYWORD.match(a) or a.lstrip().startswith("{") for a in call.args):
            continue   # keys written out: `extract.keyed_pairs` reads them as settings of those keys
        if sets and all(owner == call.owner and line > call.line for owner, line in sets):
            continue
        return f"{obj}.{call.name}(...) (line {call.line})"
    return None


def _settings_module(files: dict[str, FileFacts]) -> str | None:
    """The project's Django settings module: the one ``DJANGO_SETTINGS_MODULE`` its ``os.environ.setdefault``
    calls name (``manage.py``, ``wsgi.py``), when it is one of the project's modules; None when none or several."""
    named = {call.args[1].strip("'\"") for facts in files.values() for call in facts.calls
             if call.name == "setdefault" and len(call.args) > 1 and call.args[0].strip("'\"") ==
             "DJANGO_SETTINGS_MODULE"}
    return next(iter(named)) if len(named) == 1 and next(iter(named)) in files else None


_KEYWORD = re.compile(r"^(\w+)\s*=(?!=)")
#: an environment read written whole inside an f-string's braces (``{os.getenv('HOST', 'localhost')}``)
_ENV_CALL = re.compile(r"(?:os\.getenv|os\.environ\.get|getenv|environ\.get)\(\s*(['\"])[^'\"]+\1\s*"
                       r"(?:,\s*(['\"])[^'\"]*\2\s*)?\)")
#: pydantic's other ways to make a model, from data this reader does not see
_OTHER_MAKERS = frozenset({"model_validate", "model_validate_json", "parse_obj", "parse_raw", "model_construct",
                           "construct", "from_orm"})
_KEYED_READ = re.compile(r"[A-Za-z_][\w.]*\[\s*(?:'[^'\\{}]*'|\"[^\"\\{}]*\")\s*\]")


def argument(call, index: int, name: str) -> str | None:
    """The argument a call passes for parameter ``name`` (at ``index``), as written; None when it passes none,
    unpacks (``*args``, ``**kw``), or has more arguments than were recorded."""
    if any(a.startswith("*") for a in call.args) or call.argc > len(call.args):
        return None
    for arg in call.args:
        match = _KEYWORD.match(arg)
        if match and match.group(1) == name:
            return arg[match.end():]
    positional = [a for a in call.args if not _KEYWORD.match(a)]
    return positional[index] if index < len(positional) else None

