"""A Python settings object handed to the code that uses it: ``self.cfg.url`` (an ``__init__`` parameter annotated
``cfg: Config``, or a class-level ``cfg: Config``) and ``cfg.url`` (an annotated parameter) are the field ``url`` as
every ``Config(...)`` call of the project passes it by keyword (a pydantic model or a dataclass, with more fields
than three), folded where the call is; an environment read inside an f-string's braces folds too. A class made
some way this reader does not see (``model_validate``, ``**kw``, a subclass) stays unknown, never a guess."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

MODEL = '''import os
from dataclasses import dataclass

import requests
from pydantic import BaseModel


class PanelSettings(BaseModel):
    title: str
    width: int
    height: int
    timeout: int
    report_url: str
    theme: str = "dark"


@dataclass
class ArchiveSettings:
    bucket: str
    region: str
    retries: int
    archive_url: str = "http://archive:7000/store"


class Panel:
    def __init__(self, settings: PanelSettings):
        self.settings = settings

    def send(self, body):
        return requests.post(self.settings.report_url, json=body)


class Archiver:
    config: ArchiveSettings

    def store(self, body):
        return requests.put(self.config.archive_url, json=body)


def fetch(settings: PanelSettings):
    return requests.get(settings.report_url + "/latest")


def settings_from_env():
    return PanelSettings(title="t", width=1, height=2, timeout=int(os.getenv("TIMEOUT", "5")),
                         report_url=f"http://{os.getenv('REPORTS_HOST', 'localhost')}:{os.getenv('REPORTS_PORT', '8300')}/report")


def archive():
    return ArchiveSettings(bucket="b", region="r", retries=2)
'''

SERVICES = {
    "panel/Dockerfile": "FROM python\n", "panel/requirements.txt": "requests\n", "panel/app.py": MODEL,
    "reports/Dockerfile": "FROM python\n", "reports/requirements.txt": "flask\n",
    "reports/main.py": "from flask import Flask\napp = Flask(__name__)\n\n\n@app.post('/report')\ndef report():\n"
                       "    return ''\n\n\n@app.get('/report/latest')\ndef latest():\n    return ''\n",
    "docker-compose.yml": "services:\n  panel:\n    build: ./panel\n    environment:\n      REPORTS_HOST: reports\n"
                          "  reports:\n    build: ./reports\n",
}


def _clients(root: Path) -> dict[str, tuple[str | None, str | None]]:
    nodes, edges = CodeGraph.build(root).snapshot()
    linked = {e.src for e in edges.values() if e.type == "HTTP_CALLS"}
    return {n.props["http_method"]: (n.props.get("target_url"), n.props.get("target_service") if n.id in linked
                                     else None)
            for n in nodes.values() if n.kind == "client" and n.props.get("microservice") == "panel"}


def test_fields_of_a_settings_object_made_by_keyword_fold_where_it_is_made(tmp_path: Path):
    found = _clients(write_tree(tmp_path / "s", SERVICES))
    assert found["POST"] == ("http://reports:8300/report", "reports")
    assert found["GET"] == ("http://reports:8300/report/latest", "reports")
    assert found["PUT"][0] == "http://archive:7000/store"   # the dataclass field's default: no call passes it


def test_a_settings_object_made_from_data_not_read_stays_unknown(tmp_path: Path):
    made_elsewhere = MODEL + "\n\ndef loaded(raw):\n    return PanelSettings.model_validate(raw)\n"
    unpacked = MODEL + "\n\ndef merged(extra):\n    return ArchiveSettings(**extra)\n"
    for name, text in (("validated", made_elsewhere), ("unpacked", unpacked)):
        found = _clients(write_tree(tmp_path / name, {**SERVICES, "panel/app.py": text}))
        if name == "validated":
            assert found["POST"][1] is None and "8300" not in (found["POST"][0] or "")
        else:
            assert "archive:7000" not in (found["PUT"][0] or "")


SETTINGS = '''import requests
from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    reports_url: str = "http://localhost:8300/report"


class Panel:
    def __init__(self, settings: Settings):
        self.settings = settings

    def send(self, body):
        return requests.post(self.settings.reports_url, json=body)


def make():
    return Panel(Settings())
'''


def test_a_base_settings_field_no_call_passes_is_its_environment_variable_before_its_default(tmp_path: Path):
    """pydantic-settings fills a field no keyword gives from its environment variable (``REPORTS_URL``), the default
    only when that is unset: the deployment's value is the URL, not the code's ``localhost`` default."""
    compose = SERVICES["docker-compose.yml"].replace("REPORTS_HOST: reports", "REPORTS_URL: http://reports:8300/report")
    found = _clients(write_tree(tmp_path / "env", {**SERVICES, "panel/app.py": SETTINGS, "docker-compose.yml": compose}))
    assert found["POST"] == ("http://reports:8300/report", "reports")
