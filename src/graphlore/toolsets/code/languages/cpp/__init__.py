"""C++: namespaces, classes and structs, methods in the class and out of line, free functions, ``#include``\\ s and
call sites (`extract`); calls by declared types only (`resolve`); ``CMakeLists.txt`` executables as programs."""

from __future__ import annotations

import re
from pathlib import Path

from ...model import SymbolFact
from .. import roles
from ..base import BuildFile, BuildInfo, Language, no_module
from . import extract
from .resolve import CppResolver

_PROJECT = re.compile(r"^\s*project\s*\(\s*([\w.-]+)", re.M | re.I)
_EXECUTABLE = re.compile(r"^\s*add_executable\s*\(\s*([\w.${}-]+)", re.M | re.I)


def read_cmake(path: Path) -> BuildInfo:
    """``project(name)`` (else the first ``add_executable`` target) names the module; a ``CMakeLists.txt`` that
    builds an executable (``add_executable``) builds an application, one that only builds libraries does not."""
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return BuildInfo()
    source = re.sub(r"#.*", "", source)
    project, executable = _PROJECT.search(source), _EXECUTABLE.search(source)
    name = project.group(1) if project else executable.group(1) if executable and "$" not in executable.group(1) \
        else None
    return BuildInfo(name, application=executable is not None)


CMAKE = BuildFile(("CMakeLists.txt",), read_cmake, "CMake project", rank=18, needs_sources=True)


def _main(sym: SymbolFact) -> bool:
    return bool(sym.extra.get("entry_point"))


RULES = roles.Rules(entry_point=_main)

LANGUAGE = Language(
    "cpp", dict.fromkeys((".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++"), "cpp"),
    extract.extract, CppResolver, RULES,
    module_name=no_module,
    test_files=re.compile(r"^(.*_test|.*_unittest|test_.*)\.(cc|cpp|cxx)$"),
    builds=(CMAKE,),
)
