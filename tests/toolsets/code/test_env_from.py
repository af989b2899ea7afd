"""``describe`` of a symbol whose code reads environment variables by name says where the project sets each one
(``env_from``): the deployment's lines (a Kubernetes ConfigMap an ``envFrom`` names, Compose ``environment``), the
project root's ``.env``, or that nothing in the project sets it; the names are read in every language's spelling
(`query.env_reads`), and a symbol that reads none says nothing of the kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import backend
from helpers.code_tools import node, run, write_tree

from graphlore.runtime import Runtime
from graphlore.toolsets.code.query.env_reads import variables_read

APP = '''import os

from flask import Flask


def create_app():
    app = Flask(__name__)
    app.config["DB"] = os.environ.get("ACCOUNTS_DB_URI")
    app.config["MODE"] = os.getenv("RUN_MODE", "dev")
    app.config["KEY"] = os.environ["API_KEY"]
    return app


def plain():
    return "nothing from the environment"
'''

MANIFEST = '''apiVersion: v1
kind: ConfigMap
metadata:
  name: accounts-db-config
data:
  ACCOUNTS_DB_URI: postgresql://admin:pw@accounts-db:5432/accounts
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: contacts
spec:
  template:
    spec:
      containers:
        - name: contacts
          image: acme/contacts:1
          envFrom:
            - configMapRef:
                name: accounts-db-config
'''


def test_a_symbol_says_where_the_variables_its_code_reads_are_set(tmp_path: Path, embedder):
    tree = write_tree(tmp_path / "tree", {
        "contacts/Dockerfile": "FROM python\n", "contacts/requirements.txt": "flask\n", "contacts/contacts.py": APP,
        "k8s/contacts.yaml": MANIFEST, ".env": "RUN_MODE=prod\n"})
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        run(runtime, tree, "index", embed=False)
        described = run(runtime, tree, "describe", id=node((runtime, tree), "create_app")).attributes
        assert described["env_from"] == {
            "ACCOUNTS_DB_URI": ["Kubernetes contacts envFrom ConfigMap accounts-db-config ACCOUNTS_DB_URI="
                                "postgresql://accounts-db:5432/accounts (k8s/contacts.yaml)"],
            "RUN_MODE": [".env of the project RUN_MODE=prod (.env:1; where no unit sets RUN_MODE)"],
            "API_KEY": ["API_KEY: set by none of the project's deployment or configuration files (set at run time)"]}
        assert "_env_sources" not in described
        assert "env_from" not in run(runtime, tree, "describe", id=node((runtime, tree), "plain")).attributes
    finally:
        runtime.close()


@pytest.mark.parametrize(("code", "name"), [
    ('os.environ["DB_URL"]', "DB_URL"), ("os.environ.get('DB_URL')", "DB_URL"), ('os.getenv("DB_URL", "x")', "DB_URL"),
    ('os.environ.setdefault("DB_URL", "x")', "DB_URL"),
    ("process.env.DB_URL", "DB_URL"), ("process.env['DB_URL']", "DB_URL"), ("import.meta.env.VITE_API", "VITE_API"),
    ("Bun.env.DB_URL", "DB_URL"), ('Deno.env.get("DB_URL")', "DB_URL"),
    ('os.Getenv("DB_URL")', "DB_URL"), ('os.LookupEnv("DB_URL")', "DB_URL"),
    ('System.getenv("DB_URL")', "DB_URL"), ('Environment.GetEnvironmentVariable("QueueName")', "QueueName"),
    ('ENV["DB_URL"]', "DB_URL"), ('ENV.fetch("DB_URL")', "DB_URL"),
    ("getenv('DB_URL')", "DB_URL"), ("$_ENV['DB_URL']", "DB_URL"), ("$_SERVER['DB_URL']", "DB_URL"),
    ("env('DB_URL', 'x')", "DB_URL"),
    ('env::var("DB_URL")', "DB_URL"), ('std::env::var_os("DB_URL")', "DB_URL"), ('env!("DB_URL")', "DB_URL"),
    ('std::getenv("DB_URL")', "DB_URL"),
])
def test_each_language_spelling_of_an_environment_read(code: str, name: str) -> None:
    assert variables_read(f"x = {code}\n") == [name]


def test_a_name_held_in_a_variable_or_a_method_named_env_is_not_read() -> None:
    assert variables_read("os.getenv(name)\nconfig.env('db_url')\n$this->env('DB')\nprocess.environment\n") == []


@pytest.mark.parametrize(("code", "suffix"), [
    ('# was: os.getenv("OLD_DB_URL")\nx = os.getenv("DB_URL")', ".py"),
    ('"""Reads os.environ["OLD_DB_URL"] no more."""\nx = os.environ["DB_URL"]', ".py"),
    ('// const u = process.env.OLD_DB_URL;\nconst u = process.env.DB_URL;', ".ts"),
    ('/* System.getenv("OLD_DB_URL")\n   was read here */ String u = System.getenv("DB_URL");', ".java"),
    ('log("see process.env.OLD_DB_URL"); const u = process.env.DB_URL;', ".js"),
])
def test_a_read_written_in_a_comment_or_a_string_is_not_read(code: str, suffix: str) -> None:
    """Commented-out code and a docstring or message naming a variable read nothing; the code beside them does."""
    assert variables_read(code + "\n", suffix) == ["DB_URL"]


def test_a_comment_marker_in_a_string_starts_no_comment() -> None:
    """``"http://"`` in JavaScript and ``"#"`` in Python are strings: the reads after them on the line count."""
    assert variables_read('const u = "http://" + process.env.API_HOST; // port below\n', ".js") == ["API_HOST"]
    assert variables_read('tag = "#" + os.getenv("TAG")  # the tag\n', ".py") == ["TAG"]
    assert variables_read('String h = "//" + System.getenv("HOST"); /* c */ int p = 1;\n', ".java") == ["HOST"]
