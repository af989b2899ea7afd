"""Build files and what each declares: the module's name, its member folders, whether it builds an
application. A language lists the ones its projects use (`base.Language.builds`); several languages may
share one (Gradle builds Java and Kotlin, npm TypeScript and JavaScript).

Names: Maven ``artifactId``, Gradle ``rootProject.name``, ``package.json`` / ``pyproject.toml`` name, else
``setup.cfg`` / ``setup.py``; members: Maven ``<modules>`` (profiles too), Gradle ``include``,
npm/yarn ``workspaces``, ``pnpm-workspace.yaml``, uv ``[tool.uv.workspace]``. A ``requirements.txt`` beside
Python sources makes its folder a module that runs (an application's dependencies). A file that cannot be
read declares nothing.

**Programs of one ``package.json``.** Its start script (``start``, else ``dev``), followed through
``npm run``/``yarn``/``pnpm`` and ``concurrently``/``npm-run-all``/``run-p`` to the commands it runs: a
command that runs a source file of a subfolder (``ts-node backend/app.ts``, ``node server/index.js``) runs a
program of that folder; a front-end dev server (``vite``, ``react-scripts start``, ``vue-cli-service serve``)
runs the folder its ``index.html`` loads (Vite) or ``src``. Two or more such folders are programs of their
own (`base.BuildInfo.programs`).
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from .base import BuildFile, BuildInfo


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _strip_ns(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def read_pom(path: Path) -> BuildInfo:
    try:
        project = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return BuildInfo()
    artifact, packaging = None, "jar"
    members: list[str] = []
    for child in project:
        tag = _strip_ns(child.tag)
        if tag == "artifactId" and child.text:
            artifact = child.text.strip()
        elif tag == "packaging" and child.text:
            packaging = child.text.strip()
        elif tag == "modules":
            members += [m.text.strip() for m in child if _strip_ns(m.tag) == "module" and m.text]
        elif tag == "profiles":
            members += [m.text.strip() for m in child.iter() if _strip_ns(m.tag) == "module" and m.text]
    # a ``pom``-packaged build makes no artifact of its own: a Boot plugin it configures is for its members
    return BuildInfo(artifact, tuple(members), packaging != "pom" and "spring-boot-maven-plugin" in _text(path))


_GRADLE_INCLUDE = re.compile(r"^\s*include\s*\(?(.*?)\)?\s*$", re.M)
_GRADLE_ROOTNAME = re.compile(r"rootProject\.name\s*=\s*['\"]([^'\"]+)['\"]")
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


def read_gradle_settings(path: Path) -> BuildInfo:
    text = _text(path)
    name = _GRADLE_ROOTNAME.search(text)
    members = [item.strip(":").replace(":", "/") for match in _GRADLE_INCLUDE.finditer(text)
               for item in _QUOTED.findall(match.group(1))]
    return BuildInfo(name.group(1) if name else None, tuple(members))


#: a Gradle build that applies the Spring Boot plugin (``id 'org.springframework.boot'``, ``id("...")``, ``apply plugin:
#: 'org.springframework.boot'`` or the old ``'spring-boot'``, a version catalog's ``alias(libs.plugins.spring.boot)``) or
#: configures what only it adds (``bootRun``, ``bootBuildImage``, ``springBoot { }``); a build that turns its boot jar
#: off (``bootJar { enabled = false }``, as a library does under a root that applies the plugin everywhere) makes none
_GRADLE_BOOT = re.compile(r"""(?:\bid\s*\(?\s*|apply\s*\(?\s*plugin\s*[:=]\s*)["'](?:org\.springframework\.boot|spring-boot)["']|"""
                          r"""\balias\s*\(\s*libs\.plugins\.spring[.\-_]?[bB]oot\b|\bboot(?:Run|BuildImage)\b|"""
                          r"""\bspringBoot\s*\{""")
_GRADLE_NO_BOOT_JAR = re.compile(r"\bbootJar\s*(?:\{\s*|\.\s*)enabled\s*=\s*false\b")


def _applies_boot(text: str) -> bool:
    return any(not re.match(r"""[^\n]*?\bapply\s*\(?\s*false""", text[found.end():])
               for found in _GRADLE_BOOT.finditer(text))   # ``id '...' version 'x' apply false``: declared only


#: a root build's block that configures its members (``subprojects { .. }``, ``allprojects { .. }``)
_GRADLE_MEMBERS_BLOCK = re.compile(r"\b(?:subprojects|allprojects)\s*\{")
_GRADLE_INCLUDED_BUILD = re.compile(r"""\bincludeBuild\s*\(?\s*["']([^"']+)["']""")
_CONVENTION_SOURCES = (".gradle", ".gradle.kts", ".groovy", ".java", ".kt")


def _top_level(text: str, start: int) -> str:
    """The statements of the ``{ .. }`` block whose opening brace is at ``start - 1``, without the blocks nested in
    it (``if (name.endsWith('-service')) { .. }`` applies to some members only)."""
    depth, at, out = 1, start, []
    while at < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        if depth == 1 and text[at] != "}":
            out.append(text[at])
        at += 1
    return "".join(out)


def _gradle_root(folder: Path) -> Path | None:
    """The outermost folder at or above ``folder`` of one Gradle build (each a ``settings.gradle[.kts]``), not above the
    repository's root (a ``.git``)."""
    found = None
    for parent in (folder, *folder.parents):
        if (parent / "settings.gradle").is_file() or (parent / "settings.gradle.kts").is_file():
            found = parent
        elif found is not None:
            break
        if (parent / ".git").exists():
            break
    return found


def _boot_conventions(root: Path, inputs: list[Path]) -> set[str]:
    """The convention plugins of a Gradle build (``buildSrc``, an ``includeBuild``'s) that apply the Boot plugin,
    by the names a build applies them with: a class's name (``apply plugin: ServicePlugin``) and a precompiled
    script plugin's id (``buildSrc/src/main/groovy/shop.service.gradle``: ``id 'shop.service'``). ``inputs`` gets
    the files and folders read."""
    settings = "".join(_text(root / name) for name in ("settings.gradle", "settings.gradle.kts")
                       if (root / name).is_file())
    found: set[str] = set()
    for folder in [root / "buildSrc", *(root / rel for rel in _GRADLE_INCLUDED_BUILD.findall(settings))]:
        sources = folder / "src" / "main"
        inputs += [folder, sources]
        if not sources.is_dir():
            continue
        for path in sorted(sources.rglob("*")):
            if path.is_dir():
                inputs.append(path)   # a file added to it changes its stamp
                continue
            suffix = next((s for s in _CONVENTION_SOURCES if path.name.endswith(s)), None)
            if suffix is not None:
                inputs.append(path)
                if _applies_boot(_text(path)):
                    found.add(path.name.removesuffix(suffix))
    return found


def _inherits_boot(path: Path, inputs: list[Path]) -> bool:
    """A member build the Boot plugin reaches from elsewhere: its root's ``subprojects``/``allprojects`` block, a
    version catalog's alias of it, or a convention plugin it applies (`_boot_conventions`). ``inputs`` gets the
    files and folders read besides ``path``."""
    root = _gradle_root(path.parent)
    if root is None:
        return False
    if root != path.parent:
        for build in ("build.gradle", "build.gradle.kts"):
            text = _text(root / build) if (root / build).is_file() else ""
            if any(_applies_boot(_top_level(text, m.end())) for m in _GRADLE_MEMBERS_BLOCK.finditer(text)):
                return True
    text = _text(path)
    aliases = set(re.findall(r"\balias\s*\(\s*libs\.plugins\.([\w.]+)\s*\)", text))
    if aliases:
        inputs.append(root / "gradle" / "libs.versions.toml")
        if aliases & _catalog_boot_aliases(root):
            return True
    conventions = _boot_conventions(root, inputs)
    applied = {next(g for g in m.groups() if g) for m in _APPLIED_PLUGIN.finditer(text)} if conventions else set()
    return bool(applied & conventions)


#: a plugin a build applies, by class or id: ``apply plugin: ServicePlugin``, ``id 'shop.service'``, Kotlin's
#: ``id("shop.service")`` and ```shop-service``` (a precompiled script plugin)
_APPLIED_PLUGIN = re.compile(r"""\bapply\s*\(?\s*plugin\s*[:=]\s*["']?([\w.-]+)|\bid\s*\(?\s*["']([\w.-]+)["']|"""
                             r"""^\s*`([\w.-]+)`""", re.M)


def _catalog_boot_aliases(root: Path) -> set[str]:
    """The accessors (``spring.boot`` of ``libs.plugins.spring.boot``) of the version catalog's plugins whose id is
    the Boot plugin (``gradle/libs.versions.toml``, ``[plugins]``)."""
    try:
        plugins = tomllib.loads(_text(root / "gradle" / "libs.versions.toml")).get("plugins", {})
    except (OSError, tomllib.TOMLDecodeError):
        return set()
    return {re.sub(r"[-_]", ".", alias) for alias, spec in plugins.items()
            if (spec.get("id") if isinstance(spec, dict) else str(spec).partition(":")[0]) == "org.springframework.boot"}


def read_gradle_build(path: Path) -> BuildInfo:
    """A Gradle build makes an application when it applies the Spring Boot plugin (`_GRADLE_BOOT`), itself or through
    its root's ``subprojects { }``/``allprojects { }`` or a convention plugin of ``buildSrc`` (`_inherits_boot`); one
    that only depends on Spring Boot's artifacts (``org.springframework.boot:spring-boot-starter``) is a library."""
    text, inputs = _text(path), []
    applied = _applies_boot(text) or _inherits_boot(path, inputs)
    return BuildInfo(application=applied and not _GRADLE_NO_BOOT_JAR.search(text), inputs=tuple(inputs))


def read_package_json(path: Path) -> BuildInfo:
    try:
        data = json.loads(_text(path))
    except (ValueError, OSError):
        return BuildInfo()
    if not isinstance(data, dict):
        return BuildInfo()
    workspaces = data.get("workspaces") or []
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages") or []
    name = data.get("name")
    scripts = data.get("scripts")
    programs = _programs(path.parent, scripts) if isinstance(scripts, dict) else ()
    return BuildInfo(name if isinstance(name, str) else None, tuple(w for w in workspaces if isinstance(w, str)),
                     programs=programs)


_RUNNERS = re.compile(r"^(npm|pnpm|yarn|bun)$")
_PARALLEL = frozenset({"concurrently", "npm-run-all", "run-p", "run-s", "npm-run-all2"})
_DEV_SERVERS = {"vite": None, "react-scripts": "start", "vue-cli-service": "serve", "webpack-dev-server": None,
                "parcel": None, "craco": "start"}
_SOURCE = re.compile(r"^[\w./@-]+\.(?:[cm]?[jt]sx?)$")


def _commands(scripts: dict, command: str, depth: int = 0) -> list[tuple[str, str]]:
    """(script name, command) of every command a script command runs, scripts it names followed."""
    if depth > 4:
        return []
    out: list[tuple[str, str]] = []
    for part in re.split(r"&&|\|\||;|(?<!&)&(?!&)", command):
        tokens = [t.strip("'\"") for t in re.findall(r"\"[^\"]*\"|'[^']*'|\S+", part)]
        while tokens and ("=" in tokens[0] and not tokens[0].startswith("-") or tokens[0] in ("cross-env", "env")):
            tokens = tokens[1:]
        if not tokens:
            continue
        if tokens[0] in _PARALLEL:
            for token in tokens[1:]:
                named = re.match(r"^(?:npm|yarn|pnpm):(.+)$", token)
                if named and named.group(1) in scripts:
                    out += [(named.group(1), c) for _, c in _commands(scripts, scripts[named.group(1)], depth + 1)]
                elif " " in token:
                    out += _commands(scripts, token, depth + 1)
                elif token in scripts and not token.startswith("-"):
                    out += [(token, c) for _, c in _commands(scripts, scripts[token], depth + 1)]
            continue
        if _RUNNERS.match(tokens[0]):
            rest = tokens[1:]
            if rest and rest[0] in ("run", "run-script"):
                rest = rest[1:]
            if rest and rest[0] in scripts:
                out += [(rest[0], c) for _, c in _commands(scripts, scripts[rest[0]], depth + 1)]
                if len(rest) > 1:
                    out.append((rest[0], " ".join(rest[1:])))
                continue
        out.append(("", " ".join(tokens)))
    return out


def _programs(folder: Path, scripts: dict) -> tuple[tuple[str, str], ...]:
    start = scripts.get("start") or scripts.get("dev")
    if not isinstance(start, str):
        return ()
    found: dict[str, str] = {}
    for script, command in _commands({k: v for k, v in scripts.items() if isinstance(v, str)}, start):
        tokens = command.split()
        program = None
        for token in tokens:
            if _SOURCE.match(token) and "/" in token.removeprefix("./") and (folder / token).is_file():
                program = token.removeprefix("./").split("/", 1)[0]
                break
        if program is None and tokens and tokens[0] in _DEV_SERVERS and (
                _DEV_SERVERS[tokens[0]] is None or _DEV_SERVERS[tokens[0]] in tokens[1:2]):
            program = _front_end(folder)
        if program and program not in found:
            found[program] = script.rsplit(":", 1)[-1] if script else program
    return tuple(found.items()) if len(found) >= 2 else ()


def _front_end(folder: Path) -> str | None:
    """The source folder a front-end dev server serves: the one ``index.html``'s module script is in, else ``src``."""
    try:
        html = (folder / "index.html").read_text(encoding="utf-8", errors="replace")
    except OSError:
        html = ""
    script = re.search(r"<script[^>]*\bsrc=[\"']/?([\w.-]+)/[^\"']+[\"']", html)
    if script and (folder / script.group(1)).is_dir():
        return script.group(1)
    return "src" if (folder / "src").is_dir() else None


def read_requirements(path: Path) -> BuildInfo:
    return BuildInfo(application=True)


def read_pnpm_workspace(path: Path) -> BuildInfo:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return BuildInfo(members=tuple(p for p in (data or {}).get("packages") or [] if isinstance(p, str)))
    except (yaml.YAMLError, OSError, AttributeError):
        return BuildInfo()


def read_pyproject(path: Path) -> BuildInfo:
    try:
        data = tomllib.loads(_text(path))
    except (tomllib.TOMLDecodeError, OSError):
        return BuildInfo()
    name = (data.get("project") or {}).get("name") or ((data.get("tool") or {}).get("poetry") or {}).get("name")
    workspace = ((data.get("tool") or {}).get("uv") or {}).get("workspace") or {}
    members = workspace.get("members") or []
    return BuildInfo(name if isinstance(name, str) else None, tuple(m for m in members if isinstance(m, str)))


def read_setup(path: Path) -> BuildInfo:
    if path.name == "setup.cfg":
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(path, encoding="utf-8")
            if parser.has_option("metadata", "name"):
                return BuildInfo(parser.get("metadata", "name").strip())
        except configparser.Error:
            pass
        return BuildInfo()
    match = re.search(r"\bname\s*=\s*['\"]([^'\"]+)['\"]", _text(path))
    return BuildInfo(match.group(1) if match else None)


MAVEN = BuildFile(("pom.xml",), read_pom, "artifactId", rank=10)
GRADLE_SETTINGS = BuildFile(("settings.gradle", "settings.gradle.kts"), read_gradle_settings, "rootProject.name",
                            rank=20)
GRADLE = BuildFile(("build.gradle", "build.gradle.kts"), read_gradle_build, None, rank=25)
NPM = BuildFile(("package.json",), read_package_json, "package.json", rank=30)
PNPM = BuildFile(("pnpm-workspace.yaml",), read_pnpm_workspace, None, rank=35, module=False)
PYPROJECT = BuildFile(("pyproject.toml",), read_pyproject, "pyproject", rank=40)
SETUP = BuildFile(("setup.cfg", "setup.py"), read_setup, "setup", rank=50)
REQUIREMENTS = BuildFile(("requirements.txt",), read_requirements, None, rank=60, needs_sources=True)
