"""The one interface every language implements (`Language`), and the build files a language's modules are
declared in (`BuildFile`).

A language is data and two functions: ``extract`` (one file's bytes -> `model.FileFacts`, pure) and
``resolver`` (a `resolver.Resolver` subclass that resolves a file's facts against the whole project and
states the language's role and capability rules as tables). Everything else the toolset needs to know
about a language (its file suffixes, how its files are named and nested, which of them are tests, its
build files) is a field here, so that nothing outside the language's package names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from ..model import FileFacts


class ProjectTree(Protocol):
    """What a language may read of the project's layout to name a file's module."""

    root: Path
    #: folders holding one of a language's `Language.package_files` ("" = the root)
    package_dirs: set[str]

    def namespace_of(self, path: str) -> tuple[str, str] | None:
        """(folder, namespace) of the nearest module above ``path`` whose build declares a namespace (Go's
        ``go.mod`` module path), or None."""
        ...


def path_module(path: str, tree: ProjectTree) -> str:
    """A file's module name is its path (TS/JS: other files import it by a relative path)."""
    return path


def no_module(path: str, tree: ProjectTree) -> str:
    """The file names its namespace itself (a Java ``package``): no module name from the layout."""
    return ""


@dataclass(frozen=True)
class BuildInfo:
    """What one build file declares."""

    name: str | None = None
    #: member folders (globs allowed), relative to the build's folder
    members: tuple[str, ...] = ()
    #: the build makes a runnable application (the Spring Boot plugin)
    application: bool = False
    #: the application is a console program that runs no host (.NET ``OutputType`` ``Exe`` on the plain SDK with
    #: no hosting package): a tool, not the service, when it lies beside one a Dockerfile around it builds
    console: bool = False
    #: the import path the build declares for its folder (``go.mod``'s module path), if any
    namespace: str | None = None
    #: the folders (relative to the build's) of the programs its start script runs, when it runs two or more
    #: (one ``package.json`` for an API and a front end): each is a service of its own, with the script's name
    programs: tuple[tuple[str, str], ...] = ()
    #: the folders (relative to the build's) of the projects it references (.NET ``<ProjectReference>``)
    references: tuple[str, ...] = ()
    #: the files and folders it was read with besides itself (a Gradle build's convention plugins and version catalog):
    #: a change to one moves the layout too (`layout.Layout.input_stamps`)
    inputs: tuple[Path, ...] = ()


@dataclass(frozen=True, eq=False)
class BuildFile:
    """A build file: a folder holding one is a module (unless ``module`` is false), named by what it declares."""

    names: tuple[str, ...]
    read: Callable[[Path], BuildInfo]
    #: how the name it declares is labelled among a service's declared names (``artifactId``); None: no name
    name_source: str | None
    #: when one folder holds several builds, the lowest rank names the module
    rank: int
    module: bool = True
    #: file name endings that are such a build too (``.csproj``), besides the exact ``names``
    suffixes: tuple[str, ...] = ()
    #: the file makes its folder a module only when source files live under the folder (``requirements.txt``)
    needs_sources: bool = False

    def matches(self, file_name: str) -> bool:
        return file_name in self.names or bool(self.suffixes and file_name.endswith(self.suffixes))


@dataclass(frozen=True, eq=False)
class Language:
    """One language, as the rest of the toolset sees it (see the module docstring)."""

    #: the language's name in the registry
    name: str
    #: file suffix -> the ``language`` its files carry (one package may read dialects: typescript, javascript)
    extensions: Mapping[str, str]
    extract: Callable[[str, bytes], FileFacts]
    #: ``resolver(table, tracker, language)``: a `resolver.Resolver` for the files of these languages
    resolver: Callable[..., Any]
    #: its role and capability tables (`roles.Rules`)
    rules: Any
    #: between a file's package or module name and a symbol's key in an fqn (``a.b.C#m()``, ``src/x.ts#f``)
    separator: str = "."
    #: a file's module name: what other files import it as ("" when the file declares its own package)
    module_name: Callable[[str, ProjectTree], str] = path_module
    #: file names that are test code (tests also live in test folders, whatever the language)
    test_files: re.Pattern[str] | None = None
    #: file suffixes never read (minified or generated bundles, declaration files)
    skip_suffixes: tuple[str, ...] = ()
    #: files that make their folder a package (``__init__.py``)
    package_files: frozenset[str] = frozenset()
    #: files declare a package: each (module, package) is a package node that declares its files (Java)
    packages: bool = False
    #: a module inside a package is declared by that package, not by the build module (Python)
    nested_modules: bool = False
    #: a file's module name is its package's, shared by the files of its folder (Go's import path): each
    #: file is then named by its path, and all of them are found under the package's name
    shared_module: bool = False
    #: annotations are kept by their simple names (``RestController``), else as written (``app.get``)
    simple_annotations: bool = False
    builds: tuple[BuildFile, ...] = field(default=())
    #: files of a folder that map bare import specifiers to project paths (tsconfig ``paths``), and
    #: ``read_aliases(root, folder, names, read)``: that folder's table for its files' `FileContext.aliases`
    #: (adding to the set ``read`` the files it read)
    alias_files: re.Pattern[str] | None = None
    read_aliases: Callable[..., tuple] | None = None
    #: ``shared_imports(root, {path: (facts, context)})``: the files whose imports their project gives them without
    #: writing them (C#'s ``global using``) are not the ones their facts hold, with the facts holding them now
    shared_imports: Callable[..., dict] | None = None

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The ``language`` values its files carry."""
        return tuple(dict.fromkeys(self.extensions.values()))

    def is_test_file(self, name: str) -> bool:
        return bool(self.test_files is not None and self.test_files.match(name))
