"""Ruby: modules, classes, methods, constants, instance variables, mixins and call sites (`extract`); constants
through the lexical nesting, superclasses, mixins and calls (`resolve`); ``Gemfile`` and ``*.gemspec`` projects."""

from __future__ import annotations

import re
from pathlib import Path

from .. import roles
from ..base import BuildFile, BuildInfo, Language, no_module
from . import extract
from .resolve import RubyResolver

_GEM_NAME = re.compile(r"""\.name\s*=\s*["']([\w.-]+)["']""")


def read_gemspec(path: Path) -> BuildInfo:
    """The gem's ``spec.name``."""
    try:
        found = _GEM_NAME.search(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return BuildInfo()
    return BuildInfo(found.group(1) if found else None)


def read_gemfile(path: Path) -> BuildInfo:
    """A Gemfile declares no name: the folder names the application."""
    return BuildInfo(application=True)


GEMSPEC = BuildFile((), read_gemspec, "gemspec", rank=33, suffixes=(".gemspec",))
GEMFILE = BuildFile(("Gemfile",), read_gemfile, None, rank=34, needs_sources=True)

RULES = roles.Rules(base_roles={("", "ApplicationController"): "CONTROLLER",
                                ("ActionController", "Base"): "CONTROLLER",
                                ("ActionController", "API"): "CONTROLLER"})

LANGUAGE = Language("ruby", {".rb": "ruby"}, extract.extract, RubyResolver, RULES, module_name=no_module,
                    test_files=re.compile(r".*_(spec|test)\.rb$"), simple_annotations=True,
                    builds=(GEMSPEC, GEMFILE))
