"""A pydantic-settings field is read from the environment variable of its name (after the class's ``env_prefix``,
upper case): ``describe`` of the field says where the deployment sets it (Compose, as written and as settled),
the project root's ``.env`` line, and the code's default, or that the code gives none (``settings_from``); a field
of a class that is no settings class says nothing of the kind."""

from __future__ import annotations

from pathlib import Path

from helpers import backend
from helpers.code_tools import node, run, write_tree

from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.graph import CodeGraph

CONFIG = '''from pydantic import BaseModel
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file="../.env")

    DATABASE_URL: str
    SMTP_PORT: int = 587


class Mail(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MAIL_")

    host: str | None = None


class Plain(BaseModel):
    DATABASE_URL: str = "sqlite://"
'''

COMPOSE = """services:
  backend:
    build: ./backend
    environment:
      DATABASE_URL: postgresql://app:${DB_PASSWORD:?set it}@db:5432/app
      MAIL_HOST: mailpit
"""


def test_a_settings_field_says_where_its_variable_is_set(tmp_path: Path, embedder):
    tree = write_tree(tmp_path / "tree", {
        "compose.yml": COMPOSE, ".env": "DB_PASSWORD=secret\nSMTP_PORT=1025\n",
        "backend/requirements.txt": "pydantic-settings\n", "backend/Dockerfile": "FROM python\n",
        "backend/app/config.py": CONFIG,
    })
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        run(runtime, tree, "index", embed=False)

        def settings_from(name: str) -> list[str] | None:
            return run(runtime, tree, "describe", id=node((runtime, tree), name)).attributes.get("settings_from")

        assert settings_from("Settings.DATABASE_URL") == [
            "docker-compose service backend environment DATABASE_URL=postgresql://db:5432/app"   # no userinfo shown
            " (= postgresql://db:5432/app) (compose.yml:5)",
            "DATABASE_URL: no default in the code (the environment must set it)"]
        assert settings_from("Settings.SMTP_PORT") == [
            ".env of the project SMTP_PORT=1025 (.env:2; where no unit sets SMTP_PORT)",
            "SMTP_PORT where nothing sets it: 587 (the code's default)"]
        assert settings_from("Mail.host") == [
            "docker-compose service backend environment MAIL_HOST=mailpit (compose.yml:6)",
            "MAIL_HOST where nothing sets it: None (the code's default)"]
        assert settings_from("Plain.DATABASE_URL") is None   # a model, not settings
        assert "_settings_fields" not in run(runtime, tree, "describe", id=node((runtime, tree), "Settings")).attributes
    finally:
        runtime.close()


def test_a_pydantic_v1_config_class_prefix_names_the_variable(tmp_path: Path):
    """``class Config: env_prefix = "APP_"`` (pydantic v1's form): the field is ``APP_ORDERS_URL`` (it was read as
    ``ORDERS_URL``, and the deployment's line that sets it was not found)."""
    tree = write_tree(tmp_path / "tree", {
        "api/settings.py": 'from pydantic import BaseSettings\n\n\nclass Settings(BaseSettings):\n'
                           '    orders_url: str = "http://localhost:8000"\n\n    class Config:\n'
                           '        env_prefix = "APP_"\n',
        "api/requirements.txt": "pydantic<2\n", "api/Dockerfile": "FROM python\n",
        "compose.yml": "services:\n  api:\n    build: ./api\n    environment:\n      APP_ORDERS_URL: http://orders:8000\n",
    })
    [api] = [n for n in CodeGraph.build(tree).layout_nodes if n.kind == "microservice"]
    assert api.props["_settings_fields"]["settings.Settings.orders_url"] == [
        "docker-compose service api environment APP_ORDERS_URL=http://orders:8000 (compose.yml:5)",
        'APP_ORDERS_URL where nothing sets it: "http://localhost:8000" (the code\'s default)']
