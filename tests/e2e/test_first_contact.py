"""Every command of the README and of every SKILL.md runs verbatim (``bench/first_contact_verbatim.py``'s own check,
in this test environment: a copy of the repository, a fresh data folder, stdin closed)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
from helpers import paths as PATHS

BENCH = PATHS.REPO / "bench" / "first_contact_verbatim.py"

pytestmark = [pytest.mark.slow]


def _bench():
    spec = importlib.util.spec_from_file_location("first_contact_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_commands_marked_illustrative_are_left_out_and_the_rest_found(tmp_path):
    bench = _bench()
    (tmp_path / "skills" / "demo").mkdir(parents=True)
    (tmp_path / "README.md").write_text(
        "```bash\ngraphlore items index -p examples/x  # comment\n# a comment line\ngraphlore\\\n  stores\n```\n"
        "```bash\n# illustrative: PATH stands for your folder\ngraphlore code index -p PATH\n```\n"
        "```bash\nexport A=1\ngraphlore doctor\n```\n", encoding="utf-8")
    (tmp_path / "skills" / "demo" / "SKILL.md").write_text("```sh\ngraphlore serve demo\n```\n", encoding="utf-8")
    found = [(c.source, c.line, c.setup) for c in bench.verbatim_commands(tmp_path)]
    assert found == [
        ("README.md", "graphlore items index -p examples/x  # comment", ()),
        ("README.md", "graphlore stores", ()),
        ("README.md", "export A=1", ()),
        ("README.md", "graphlore doctor", ("export A=1",)),
        ("skills/demo/SKILL.md", "graphlore serve demo", ()),
    ]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the commands are shell commands (bash)")
def test_every_readme_and_skill_md_command_runs_verbatim(tmp_path):
    bench = _bench()
    tree, env = bench.prepared(Path(tmp_path))
    outcomes = bench.run_verbatim(bench.verbatim_commands(tree), env, tree)
    failed = [f"{o.source}: {o.command} -- {o.detail}" for o in outcomes if o.status == "fail"]
    assert not failed, "\n".join(failed)
    assert sum(o.status == "pass" for o in outcomes) >= 30
