"""FastAPI dependencies as TRIGGERS edges (handler -> the function the framework calls first): a decorator's
``dependencies=[Depends(fn)]``, a parameter's ``= Depends(fn)``, ``Annotated[T, Depends(fn)]`` written in place or
as an imported alias, ``Security(fn)``, and a dependency's own dependencies; never a CALLS edge, never to a name
that is no project function."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph

DEPS = '''from typing import Annotated

from fastapi import Depends, Security


def get_db():
    yield 1


def get_current_user(db=Depends(get_db)):
    return db


CurrentUser = Annotated[dict, Depends(get_current_user)]


def get_superuser(user: CurrentUser):
    return user


def scoped(user=Security(get_current_user, scopes=["x"])):
    return user
'''
ROUTES = '''from typing import Annotated

from fastapi import APIRouter, Depends

from app import deps
from app.deps import CurrentUser, get_superuser
from outside import external_check

router = APIRouter()


@router.get("/users", dependencies=[Depends(get_superuser), Depends(external_check)])
def list_users():
    return []


@router.get("/me")
def me(user: CurrentUser, db: Annotated[int, Depends(deps.get_db)]):
    return user


@router.get("/scoped")
def scoped_route(user=Depends(deps.scoped)):
    return user
'''


def _edges(tmp_path: Path) -> set[tuple[str, str, str]]:
    root = tmp_path / "api"
    for rel, text in {"pyproject.toml": '[project]\nname = "api"\n', "app/__init__.py": "", "app/deps.py": DEPS,
                      "app/routes.py": ROUTES}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    nodes, edges = CodeGraph.build(root).snapshot()
    name = {n.id: n.props.get("fqn") for n in nodes.values()}
    return {(e.type, name[e.src], name[e.dst]) for e in edges.values()
            if e.type in ("TRIGGERS", "CALLS") and name.get(e.src, "").startswith("app.")}


def test_dependencies_are_triggers_of_the_handler(tmp_path: Path):
    edges = _edges(tmp_path)
    triggers = {(src, dst) for kind, src, dst in edges if kind == "TRIGGERS"}
    assert triggers == {
        ("app.routes.list_users", "app.deps.get_superuser"),
        ("app.routes.me", "app.deps.get_current_user"),
        ("app.routes.me", "app.deps.get_db"),
        ("app.routes.scoped_route", "app.deps.scoped"),
        ("app.deps.get_current_user", "app.deps.get_db"),
        ("app.deps.get_superuser", "app.deps.get_current_user"),
        ("app.deps.scoped", "app.deps.get_current_user"),
    }
    assert not any(kind == "CALLS" and dst == "app.deps.get_superuser" for kind, _, dst in edges)


def test_two_services_with_the_same_package_each_keep_their_dependencies(tmp_path: Path):
    """Two services, each with its own ``app.deps``: each handler triggers its own service's ``get_db`` (the second
    service's module stood for the first's, whose edges were dropped)."""
    main = ('from fastapi import FastAPI, Depends\nfrom app.deps import get_db\n\napp = FastAPI()\n\n\n'
            '@app.get("/x")\ndef read(db=Depends(get_db)):\n    return db\n')
    files = {"compose.yml": "services:\n  a:\n    build: ./a\n  b:\n    build: ./b\n"}
    for s in "ab":
        files |= {f"{s}/requirements.txt": "fastapi\n", f"{s}/Dockerfile": "FROM python\n", f"{s}/app/__init__.py": "",
                  f"{s}/app/deps.py": "def get_db():\n    return 1\n", f"{s}/app/main.py": main}
    root = tmp_path / "two"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    nodes, edges = CodeGraph.build(root).snapshot()
    seen = sorted((nodes[e.src].props["file"], nodes[e.dst].props["file"]) for e in edges.values()
                  if e.type == "TRIGGERS")
    assert seen == [("a/app/main.py", "a/app/deps.py"), ("b/app/main.py", "b/app/deps.py")]
