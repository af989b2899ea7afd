"""A ``.env`` value that names another of the file's variables (``ADDR=${HOST}:${PORT}``): Compose settles it from
the file's earlier lines, so the notes that show a ``.env`` value give the settled value beside the one written."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.deployment import read_env_lines, settled_env_lines

DOTENV = (
    "BROKER_HOST=broker\n"
    "BROKER_PORT=9092\n"
    "BROKER_ADDR=${BROKER_HOST}:${BROKER_PORT}\n"        # braces
    "QUEUE_URL=amqp://$BROKER_HOST/jobs\n"              # no braces
    'STORE_URL="http://${STORE_HOST:-store}:8080"\n'    # double quotes, a default for a name no line sets
    "RAW='${BROKER_HOST}'\n"                            # single quotes: literal
    "LATE=${LATER_ONE}\n"                               # set on a later line only: the shell's, at run time
    "LATER_ONE=x\n"
)


def test_a_dotenv_value_is_settled_from_the_files_earlier_lines():
    assert settled_env_lines(DOTENV) == {
        "BROKER_HOST": "broker", "BROKER_PORT": "9092", "BROKER_ADDR": "broker:9092",
        "QUEUE_URL": "amqp://broker/jobs", "STORE_URL": "http://store:8080", "RAW": "${BROKER_HOST}",
        "LATE": "{?}", "LATER_ONE": "x"}
    assert read_env_lines(DOTENV)["BROKER_ADDR"] == ("${BROKER_HOST}:${BROKER_PORT}", 3)   # as written, kept


def _config(root: Path) -> dict[str, list[str]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.name: n.props.get("config", []) for n in nodes.values() if n.kind == "microservice"}


def test_notes_give_a_dotenv_value_as_written_and_as_settled(tmp_path: Path):
    files = {
        ".env": DOTENV,
        "worker/.env": "W_HOST=w\nW_URL=http://${W_HOST}:1\n",
        "worker/requirements.txt": "requests\n",
        "worker/Dockerfile": "FROM python\n",
        "worker/app.py": "import os\nimport requests\n\nrequests.get(os.environ['BROKER_ADDR'] + '/x')\n",
        "shared.env": "S_HOST=s\nS_URL=http://${S_HOST}/\n",
        "docker-compose.yml": ("services:\n  worker:\n    build: ./worker\n    env_file: shared.env\n"
                               "    environment:\n      - BROKER_ADDR\n"),
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    notes = _config(tmp_path)["worker"]
    assert ("docker-compose service worker environment BROKER_ADDR = ${BROKER_HOST}:${BROKER_PORT} (= broker:9092) "
            "(from .env) (docker-compose.yml:6)") in notes
    assert "docker-compose service worker env_file shared.env: S_URL=http://${S_HOST}/ (= http://s/) (shared.env:2)" in notes
    assert ".env of the service W_URL=http://${W_HOST}:1 (= http://w:1) (worker/.env:2)" in notes
    assert ".env of the service W_HOST=w (worker/.env:1)" in notes   # nothing to settle: as before
