"""TypeScript and JavaScript: classes, interfaces, enums, functions, exports and re-exports, CommonJS and
call sites (`extract`); module specifiers, exports and calls (`resolve`); NestJS, Angular and TypeORM
conventions and axios/fetch as role and capability tables."""

from __future__ import annotations

import re

from .. import builds, roles
from ..base import Language, path_module
from . import aliases, extract
from .resolve import TsResolver

RULES = roles.Rules(
    annotation_roles=roles.NEST_ROLES,
    base_roles=roles.TYPEORM_BASES,
    capabilities=roles.NEST_CAPABILITIES,
    call_capabilities=roles.SCRIPT_CALL_CAPABILITIES,
)

LANGUAGE = Language(
    "typescript", {**dict.fromkeys((".ts", ".tsx", ".mts", ".cts"), "typescript"),
                   **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", *extract.COMPONENT_SUFFIXES), "javascript")},
    extract.extract, TsResolver, RULES,
    separator="#",
    module_name=path_module,
    # tests, Cypress component tests, and the configuration of test runners (it drives tests, it serves nothing)
    test_files=re.compile(r".*\.(test|spec|cy)\.[cm]?[jt]sx?$|"
                          r"(cypress|playwright|jest|vitest|karma|wdio|nightwatch)\.conf(ig)?(\.[\w-]+)?\.[cm]?[jt]s$"),
    skip_suffixes=(".min.js", ".d.ts", ".bundle.js", ".pnp.cjs", ".pnp.loader.mjs"),  # .pnp: Yarn writes them
    builds=(builds.NPM, builds.PNPM),
    alias_files=aliases.ALIAS_FILE,
    read_aliases=aliases.read_aliases,
)
