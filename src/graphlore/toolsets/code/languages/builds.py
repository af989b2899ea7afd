"""Build files and what each declares: the module's name, its member folders, whether it builds an
application. A language lists the ones its projects use (`base.Language.builds`); several languages may
share one (Gradle builds Java and Kotlin, npm TypeScript and JavaScript).

Names: Maven ``artifactId``, Gradle ``rootProject.name``, ``package.json`` / ``pyproject.toml`` name, else
``setup.cfg`` / ``setup.py``; members: Maven ``<modules>`` (profiles too), Gradle ``include``,
npm/yarn ``workspaces``, ``pnpm-workspace.yaml``, uv ``[tool.uv.workspace]``. A file that cannot be read
declares nothing.
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
    artifact = None
    members: list[str] = []
    for child in project:
        tag = _strip_ns(child.tag)
        if tag == "artifactId" and child.text:
            artifact = child.text.strip()
        elif tag == "modules":
            members += [m.text.strip() for m in child if _strip_ns(m.tag) == "module" and m.text]
        elif tag == "profiles":
            members += [m.text.strip() for m in child.iter() if _strip_ns(m.tag) == "module" and m.text]
    return BuildInfo(artifact, tuple(members), "spring-boot-maven-plugin" in _text(path))


_GRADLE_INCLUDE = re.compile(r"^\s*include\s*\(?(.*?)\)?\s*$", re.M)
_GRADLE_ROOTNAME = re.compile(r"rootProject\.name\s*=\s*['\"]([^'\"]+)['\"]")
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


def read_gradle_settings(path: Path) -> BuildInfo:
    text = _text(path)
    name = _GRADLE_ROOTNAME.search(text)
    members = [item.strip(":").replace(":", "/") for match in _GRADLE_INCLUDE.finditer(text)
               for item in _QUOTED.findall(match.group(1))]
    return BuildInfo(name.group(1) if name else None, tuple(members))


def read_gradle_build(path: Path) -> BuildInfo:
    return BuildInfo(application="org.springframework.boot" in _text(path))


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
    return BuildInfo(name if isinstance(name, str) else None, tuple(w for w in workspaces if isinstance(w, str)))


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
