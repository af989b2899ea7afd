"""The settings a Go service reads through viper (``github.com/spf13/viper``), for its ``describe``: each key its
code reads, with the default the code gives it and the environment variable that overrides it, so "which port
does it listen on" is answered from the key's default and the deployment's variable (listed beside it).

**Keys read**: ``viper.GetString("a.b")`` (any ``Get*``, on ``viper`` or an instance from ``viper.New()``), and a
field path of the struct ``viper.Unmarshal(&cfg)`` fills (``cfg.Match.Grpc.Port``: each field's key is its
``mapstructure:"..."`` tag, else its name, as viper matches it, case-insensitively; nested anonymous structs and
named struct types followed, ``pkg.Name`` in the package its import names, so several ``Config`` types are told apart;
an embedded ``,squash`` field adds its fields to its parent's; a one-field path, ``cfg.Port``, only in a file that
names the filled struct's type; the struct handed as ``&cfg`` or as a pointer ``cfg := &Config{}``).
**Per service**: each service's keys come from its own files and the libraries' (a service's own ``config``
package and file, never another service's).
**Defaults**: ``SetDefault("a.b", value)`` (the value as written; a plain string literal unquoted).
**Environment**: ``AutomaticEnv()`` binds every key to ``PREFIX_`` (``SetEnvPrefix``) + the key upper-cased, the
``SetEnvKeyReplacer(strings.NewReplacer(".", "_"))`` pairs applied; ``BindEnv("a.b", "VAR")`` binds one key to
``VAR`` (``BindEnv("a.b")`` to the automatic name). Without either, no variable is claimed.
**Config file**: ``SetConfigFile("path")``, or ``SetConfigName("name")`` with each ``AddConfigPath("dir")`` (``.yaml``,
``.yml``, ``.json``, ``.toml``), a path read from the project root and from the calling file's folder; a name held in
a variable (a ``--config`` flag) is a file only where the same file's code names one as the variable's value
(``fmt.Sprintf("%s/orders/config/config.yaml", wd)``, the path used when no flag or variable is given).
Not read: a partial path kept in a variable (``grpc := cfg.Match.Grpc``), keys held in variables, several viper
instances told apart (the project's calls are read as one viper)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..layout.layout import Layout
from ..model import FileFacts
from .secrets import shown_value
from .settings import _flatten
from .yaml_lines import documents

_IMPORT = "github.com/spf13/viper"
_STRING = r'"((?:[^"\\]|\\.)*)"'
_DEFAULT = re.compile(r"\.SetDefault\(\s*" + _STRING + r"\s*,\s*(.*)\)\s*(?://.*)?$", re.M)
_PREFIX = re.compile(r"\.SetEnvPrefix\(\s*" + _STRING + r"\s*\)")
_REPLACER = re.compile(r"\.SetEnvKeyReplacer\(\s*strings\.NewReplacer\(([^()]*)\)\s*\)")
_AUTOMATIC = re.compile(r"\.AutomaticEnv\(\s*\)")
_BIND = re.compile(r"\.BindEnv\(\s*" + _STRING + r"((?:\s*,\s*" + _STRING + r")*)\s*\)")
_GET = re.compile(r"\b(\w+)\.Get(?:String|Int\w*|Uint\w*|Bool|Float64|Duration|Time|StringSlice|IntSlice"
                  r"|StringMap\w*|SizeInBytes)?\(\s*" + _STRING + r"\s*\)")
_UNMARSHAL = re.compile(r"\.Unmarshal(?:Exact)?\(\s*&?(\w+)")
_CHAIN = re.compile(r"(?<![\w\"])\w+((?:\.[A-Z]\w*)+)")
_TYPE = re.compile(r"^type\s+(\w+)\s+struct\s*\{", re.M)
_TAG = re.compile(r'mapstructure:"([^"]*)"')
_CONFIG_FILE = re.compile(r"\.SetConfigFile\(\s*" + _STRING + r"\s*\)")
_CONFIG_NAME = re.compile(r"\.SetConfigName\(\s*" + _STRING + r"\s*\)")
_CONFIG_PATH = re.compile(r"\.AddConfigPath\(\s*" + _STRING + r"\s*\)")
_CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
_CONFIG_FILE_HELD = re.compile(r"\.SetConfigFile\(\s*\w+\s*\)")
#: a string literal naming a config file, after a ``%s/`` (``fmt.Sprintf("%s/api/config.yaml", wd)``) or ``./``
_CONFIG_LITERAL = re.compile(r'"(?:%[sv]/|\./)?([\w./-]+\.(?:ya?ml|json|toml))"')
_IMPORTED = re.compile(r'^\s*(?:import\s+)?(?:(\w+)\s+)?"([\w.\-/]+)"\s*$', re.M)
#: struct types by name: (the folder of the file declaring it, its body)
Structs = dict[str, list[tuple[str, str]]]


@dataclass
class Viper:
    """What the project's viper calls set: defaults, the environment binding, and the field paths it fills."""

    defaults: dict[str, tuple[str, str]] = field(default_factory=dict)   # key -> (value, file:line)
    prefix: str = ""
    replacements: list[tuple[str, str]] = field(default_factory=list)
    automatic: bool = False
    bound: dict[str, str | None] = field(default_factory=dict)          # key -> variable (None: automatic name)
    paths: dict[str, str] = field(default_factory=dict)                 # Go field path -> key
    files: dict[str, dict[str, str]] = field(default_factory=dict)      # key -> {file:line: value}
    spelled: dict[str, str] = field(default_factory=dict)               # key -> as a SetDefault writes it
    roots: set[str] = field(default_factory=set)                        # the struct types Unmarshal fills

    def variable(self, key: str) -> str | None:
        """The environment variable that overrides ``key``, or None where viper binds none."""
        if key in self.bound and self.bound[key]:
            name = self.bound[key] or ""
        elif self.automatic or key in self.bound:
            name = (f"{self.prefix}_{key}" if self.prefix else key).upper()
        else:
            return None
        for old, new in self.replacements:
            name = name.replace(old, new)
        return name


@dataclass(frozen=True)
class ServiceViper:
    """One microservice's viper set-up and the text of its own Go files."""

    name: str
    modules: tuple[str, ...]
    own: dict[str, str]
    viper: Viper


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _value(written: str) -> str:
    """A default as the code writes it; a plain string literal without its quotes."""
    written = written.strip()
    plain = re.fullmatch(_STRING, written)
    return plain.group(1) if plain else written


def _body(text: str, start: int) -> str:
    """The text between the brace at ``start - 1`` and its match."""
    depth, position = 1, start
    while position < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[position], 0)
        position += 1
    return text[start:position - 1]


def _fields(body: str) -> list[tuple[str, str, str | None]]:
    """The fields of a struct body at its own depth: (name, type or the nested body, mapstructure tag)."""
    out: list[tuple[str, str, str | None]] = []
    position = 0
    while position < len(body):
        end = body.find("\n", position)
        end = len(body) if end < 0 else end
        line = body[position:end].split("//", 1)[0].strip()
        nested = re.match(r"(\w+)\s+\*?struct\s*\{", line)
        if nested:
            start = position + body[position:].index("{") + 1
            inner = _body(body, start)
            after = start + len(inner) + 1
            close = body.find("\n", after)
            tag = _TAG.search(body[after:close if close >= 0 else len(body)])
            out.append((nested.group(1), "{" + inner, tag.group(1) if tag else None))
            position = after if close < 0 else close + 1
            continue
        named = re.match(r"(\w+)\s+[\[\]*]*([\w.]+)", line) or re.match(r"\*?([\w.]+)()", line)
        if named and line:
            tag = _TAG.search(line)
            name, kind = named.group(1), named.group(2)
            if not kind:   # an embedded field: named by its type
                name, kind = name.rsplit(".", 1)[-1], name
            out.append((name, kind, tag.group(1) if tag else None))
        position = end + 1
    return out


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _imports(texts: dict[str, str]) -> dict[str, dict[str, str]]:
    """Per folder, the import paths its files name by each alias (the last segment without an alias)."""
    out: dict[str, dict[str, str]] = {}
    for path, text in texts.items():
        names = out.setdefault(_folder(path), {})
        for alias, target in _IMPORTED.findall(text):
            names.setdefault(alias or re.sub(r"/v\d+$", "", target).rsplit("/", 1)[-1], target)
    return out


def _struct(structs: Structs, imports: dict[str, dict[str, str]], folder: str, kind: str) -> tuple[str, str] | None:
    """(folder, body) of the struct type ``kind`` as a file of ``folder`` writes it: ``Name`` in its own folder
    (else the one type of that name in the project), ``pkg.Name`` in the folder its import path ends with; None
    when that is not one struct of the project (several ``Config`` types are told apart by package)."""
    head, dot, name = kind.rpartition(".")
    declared = structs.get(name, [])
    if dot:
        target = imports.get(folder, {}).get(head)
        found = [d for d in declared if target and d[0] and (target == d[0] or target.endswith("/" + d[0]))]
    else:
        found = [d for d in declared if d[0] == folder] or (declared if len(declared) == 1 else [])
    return found[0] if len(found) == 1 else None


def _paths(structs: Structs, root: str, imports: dict[str, dict[str, str]] | None = None,
           folder: str = "") -> dict[str, str]:
    """Go field path (``Match.Grpc.Port``) -> viper key (``match.grpc.port``) under the struct ``root`` (as a
    file of ``folder`` names it)."""
    out: dict[str, str] = {}
    imports = imports or {}

    def walk(body: str, at: str, path: str, key: str, seen: frozenset[str]) -> None:
        for name, kind, tag in _fields(body):
            name_tag, _, options = (tag or "").partition(",")
            squash = "squash" in options
            go_path = path if squash else f"{path}.{name}".lstrip(".")
            sub_key = key if squash else f"{key}.{(name_tag or name).lower()}".lstrip(".")
            inner = (at, kind[1:]) if kind.startswith("{") else _struct(structs, imports, at, kind)
            if inner is not None and kind not in seen:
                walk(inner[1], inner[0], go_path, sub_key, seen | {kind})
            elif not squash:
                out[go_path] = sub_key

    found = _struct(structs, imports, folder, root)
    if found is not None:
        walk(found[1], found[0], "", "", frozenset({root}))
    return out


def _root_type(text: str, variable: str) -> str | None:
    """The struct type of the variable ``Unmarshal(&variable)`` fills, from its declaration in the file."""
    for pattern in (rf"\bvar\s+{variable}\s+\*?(\w+)", rf"\b{variable}\s*:?=\s*&?(\w+)\s*\{{",
                    rf"\b{variable}\s*:?=\s*new\((\w+)\)"):
        found = re.search(pattern, text)
        if found:
            return found.group(1)
    return None


def _config_files(path: str, text: str, root: Path) -> list[str]:
    """The project files (relative paths) the viper calls of one file read as its config file."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    candidates = [m.group(1) for m in _CONFIG_FILE.finditer(text)]
    if _CONFIG_FILE_HELD.search(text):   # a path held in a variable: the files the code names as its value
        candidates += [m.group(1) for m in _CONFIG_LITERAL.finditer(text)]
    names = [m.group(1) for m in _CONFIG_NAME.finditer(text)]
    dirs = [m.group(1) for m in _CONFIG_PATH.finditer(text)] or ["."]
    candidates += [f"{d}/{n}{suffix}" for n in names for d in dirs for suffix in _CONFIG_SUFFIXES]
    found: list[str] = []
    for candidate in candidates:
        for base in dict.fromkeys(["", folder]):
            rel = Path(base, candidate).as_posix()
            if ".." not in Path(rel).parts and not rel.startswith("/") and (root / rel).is_file():
                found.append(str(Path(rel)))
    return list(dict.fromkeys(found))


def _file_settings(root: Path, rel: str) -> dict[str, tuple[str, str]]:
    """A config file's leaf settings: key (lower-cased, as viper reads it) -> (value, ``file:line``)."""
    try:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out: dict[str, tuple[str, str]] = {}
    if rel.endswith(".toml"):
        try:
            flat: dict[str, str] = {}
            _flatten(tomllib.loads(text), "", flat)
        except tomllib.TOMLDecodeError:
            return {}
        return {key.lower(): (value, rel) for key, value in flat.items()}
    for doc, lines in documents(text)[:1]:
        flat = {}
        _flatten(doc, "", flat)
        out |= {key.lower(): (value, f"{rel}:{lines[key]}" if key in lines else rel) for key, value in flat.items()}
    return out


def read_viper(texts: dict[str, str], root: Path | None = None) -> Viper | None:
    """The project's viper set-up, from the text of each Go file that imports viper; None when none does."""
    using = {path: text for path, text in texts.items() if f'"{_IMPORT}"' in text}
    if not using:
        return None
    found = Viper()
    structs: Structs = {}
    for path, text in texts.items():
        for m in _TYPE.finditer(text):
            structs.setdefault(m.group(1), []).append((_folder(path), _body(text, m.end())))
    imports = _imports(texts)
    for path, text in sorted(using.items()):
        for m in _DEFAULT.finditer(text):
            found.defaults.setdefault(m.group(1).lower(), (_value(m.group(2)), f"{path}:{_line(text, m.start())}"))
            found.spelled.setdefault(m.group(1).lower(), m.group(1))
        for m in _PREFIX.finditer(text):
            found.prefix = m.group(1)
        for m in _REPLACER.finditer(text):
            args = re.findall(_STRING, m.group(1))
            found.replacements += list(zip(args[::2], args[1::2], strict=False))
        found.automatic = found.automatic or bool(_AUTOMATIC.search(text))
        for m in _BIND.finditer(text):
            names = re.findall(_STRING, m.group(2))
            found.bound[m.group(1).lower()] = names[0] if names else None
        for m in _UNMARSHAL.finditer(text):
            struct = _root_type(text, m.group(1))
            if struct is not None:
                found.roots.add(struct)
                found.paths.update(_paths(structs, struct, imports, _folder(path)))
        for rel in _config_files(path, text, root) if root is not None else ():
            for key, (value, where) in _file_settings(root, rel).items():
                found.files.setdefault(key, {})[where] = value
    return found


def keys_read(text: str, viper: Viper) -> list[tuple[str, str, int]]:
    """The viper keys a file's code reads: (key, as written, line), in file order. A one-field path (``x.Port``)
    counts only in a file that names the filled struct's type (any ``x.Port`` is no setting otherwise)."""
    out: list[tuple[int, str, str]] = []
    names_root = any(re.search(rf"\b{re.escape(root)}\b", text) for root in viper.roots)
    for m in _GET.finditer(text):
        if m.group(1) == "viper" or m.group(2).lower() in viper.defaults:
            out.append((m.start(), m.group(2).lower(), f'Get("{m.group(2)}")'))
    for m in _CHAIN.finditer(text):
        parts = m.group(1).lstrip(".").split(".")
        for size in range(len(parts), 0, -1):
            key = viper.paths.get(".".join(parts[:size]))
            if key is not None and (size > 1 or names_root):
                out.append((m.start(1), key, ".".join(parts[:size])))
                break
    return [(key, written, _line(text, start)) for start, key, written in sorted(out)]


def _shown(key: str, written: str, value: str) -> str:
    """A value as `secrets.shown_value` shows it: redacted where the key, in any of its spellings (the lower-cased
    key loses ``secretKey``'s camelCase), names a credential."""
    for spelling in (key, written):
        shown = shown_value(spelling, value)
        if shown != value:
            return shown
    return value


def read_services(layout: Layout, root: Path, facts: Mapping[str, FileFacts]) -> list[ServiceViper]:
    """Each microservice's viper set-up (its own config struct and file with the libraries', never another
    service's) and the text of its own Go files; none for a project without viper."""
    if not any(one.target == _IMPORT for fact in facts.values() for one in fact.imports):
        return []   # no file is read again on an update of a project without viper
    texts: dict[str, str] = {}
    for path in facts:
        if path.endswith(".go") and not path.endswith("_test.go"):
            try:
                texts[path] = (root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
    deployed = {m: n for n, s in layout.services.items() if s.deployable for m in s.modules}
    out: list[ServiceViper] = []
    for name, service in layout.services.items():
        modules = set(service.modules)
        own = {p: t for p, t in texts.items() if layout.module_of(p) in modules}
        seen = {p: t for p, t in texts.items() if deployed.get(layout.module_of(p), name) == name}
        viper = read_viper(seen | own, root)
        if viper is not None:
            out.append(ServiceViper(name, tuple(service.modules), own, viper))
    return out


def viper_fields(services: list[ServiceViper]) -> dict[str, dict[str, tuple[str, str | None, str]]]:
    """Per microservice, each field path of its filled config struct (``KafkaTopics.ProductCreated.TopicName``)
    -> (its value: the config file's, else the ``SetDefault``; the environment variable that overrides it, or
    None; where the value is written). Code that reads the field folds to it (`go_web` Kafka topics); a path whose
    key neither a file nor a default sets is left out: its value is not known."""
    out: dict[str, dict[str, tuple[str, str | None, str]]] = {}
    for one in services:
        viper = one.viper
        fields: dict[str, tuple[str, str | None, str]] = {}
        for path, key in viper.paths.items():
            files = viper.files.get(key, {})
            if len(set(files.values())) > 1:
                continue   # several config files set it differently: no one value
            value = next(iter(files.items()), None)
            if value is None and key in viper.defaults:
                value = (viper.defaults[key][1], viper.defaults[key][0])
            if value is not None:
                fields[path] = (value[1], viper.variable(key), value[0])
        if fields:
            out[one.name] = fields
    return out


def viper_config(services: list[ServiceViper]) -> dict[str, list[str]]:
    """Per microservice, a line per viper key its code reads (see the module docstring)."""
    out: dict[str, list[str]] = {}
    for one in services:
        name, own, viper = one.name, one.own, one.viper
        for path in sorted(own):
            for key, written, line in keys_read(own[path], viper):
                default = viper.defaults.get(key)
                variable = viper.variable(key)
                spelled = viper.spelled.get(key, written)
                shown = (f"{key}: {_shown(spelled, written, default[0])} (viper default, {default[1]})" if default
                         else f"{key}: no default in the code")
                shown += "".join(f"; config file {where} sets {_shown(spelled, written, value)}"
                                 for where, value in viper.files.get(key, {}).items())
                shown += f"; read as {written} ({path}:{line})"
                shown += f"; environment {variable} overrides it" if variable else ""
                out.setdefault(name, []).append(shown)
    return {name: list(dict.fromkeys(lines)) for name, lines in out.items()}
