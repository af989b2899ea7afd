"""A router prefix from a config object's field (``prefix=settings.API_V1_STR``, ``settings = Settings()``): a
pydantic-settings field folds to its default unless the service's deployment sets its environment variable
(``env_prefix`` included), a plain or dataclass config field to its default; a field nothing declares, or an
instance the project changes, stays unknown."""

from __future__ import annotations

import sys
from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

CONFIG = '''from dataclasses import dataclass
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env"{prefix})
    API_V1_STR: str = "/api/v1"
    DB_URL: str


@dataclass
class Paths:
    ADMIN: str = "/admin"


settings = Settings()
paths = Paths()
'''
MAIN = '''from fastapi import FastAPI

from app.api import admin, items
from app.core.config import paths, settings

app = FastAPI()
app.include_router(items.router, prefix=settings.API_V1_STR)
app.include_router(admin.router, prefix=paths.ADMIN)
app.include_router(admin.router, prefix=settings.DB_URL)
'''
ITEMS = '''from fastapi import APIRouter

router = APIRouter(prefix="/items")


@router.get("/")
def read_items():
    return []
'''
ADMIN = '''from fastapi import APIRouter

router = APIRouter()


@router.get("/stats")
def stats():
    return {}
'''


def _routes(tmp_path: Path, compose: str = "", prefix: str = "") -> set[str]:
    root = tmp_path / "api"
    files = {"backend/pyproject.toml": '[project]\nname = "app"\n', "backend/Dockerfile": "FROM python\n",
             "backend/app/__init__.py": "", "backend/app/core/__init__.py": "",
             "backend/app/core/config.py": CONFIG.format(prefix=prefix), "backend/app/main.py": MAIN,
             "backend/app/api/__init__.py": "", "backend/app/api/items.py": ITEMS, "backend/app/api/admin.py": ADMIN}
    if compose:
        files["compose.yml"] = compose
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["label"].split(" ", 1)[1] for n in nodes.values() if n.kind == "route"}


def test_a_settings_field_folds_to_its_default(tmp_path: Path):
    routes = _routes(tmp_path)
    assert {"/api/v1/items", "/admin/stats"} <= routes
    assert not any(r.startswith("/{?}/items") for r in routes)
    assert "/{?}/stats" in routes    # DB_URL: no default, set nowhere


def test_the_deployment_value_wins(tmp_path: Path):
    compose = "services:\n  backend:\n    build: ./backend\n    environment:\n      APP_API_V1_STR: /v2\n"
    assert "/v2/items" in _routes(tmp_path, compose, prefix=', env_prefix="APP_"')


def test_a_field_the_project_assigns_stays_unknown(tmp_path: Path, monkeypatch):
    """(In another module than the reader's: which value holds when the prefix is read is not known.)"""
    changed = ADMIN.replace("router = APIRouter()", "from app.core.config import settings\n\n"
                                                    'settings.API_V1_STR = "/changed"\nrouter = APIRouter()')
    monkeypatch.setattr(sys.modules[__name__], "ADMIN", changed)
    assert "/{?}/items" in _routes(tmp_path)


def test_a_lower_case_field_reads_the_variable_in_any_case(tmp_path: Path, monkeypatch):
    """pydantic matches ``API_V1_STR`` to a field ``api_v1_str`` (case_sensitive is off by default): the
    deployment's value wins; with ``case_sensitive=True`` only the field's own spelling does."""
    monkeypatch.setattr(sys.modules[__name__], "CONFIG", CONFIG.replace("API_V1_STR", "api_v1_str"))
    monkeypatch.setattr(sys.modules[__name__], "MAIN", MAIN.replace("API_V1_STR", "api_v1_str"))
    compose = "services:\n  backend:\n    build: ./backend\n    environment:\n      APP_API_V1_STR: /v2\n"
    assert "/v2/items" in _routes(tmp_path / "a", compose, prefix=', env_prefix="APP_"')
    assert "/api/v1/items" in _routes(tmp_path / "b", compose, prefix=', env_prefix="APP_", case_sensitive=True')
