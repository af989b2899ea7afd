"""Python web routes registered by call, not by decorator: ``app.post(path)(fn)`` (a decorator applied by hand),
``add_api_route`` / ``add_route`` on a FastAPI app or router, Flask's ``add_url_rule`` and Starlette ``Route``
objects; on a module's app or one held on ``self``. The handler is the function or method named; one that names
none of the project's leaves the route's handler unknown, saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphlore.toolsets.code.index.graph import CodeGraph

VIEWS = '''def shared_view():
    return "shared"


class Panel:
    def show(self):
        return 1
'''


def _routes(tmp_path: Path, main: str) -> dict[str, tuple[str | None, str | None]]:
    """label -> (handler fqn, why unresolved) of every route the project declares."""
    root = tmp_path / "svc"
    for rel, text in {"pyproject.toml": '[project]\nname = "svc"\n', "svc/__init__.py": "", "svc/views.py": VIEWS,
                      "svc/main.py": main}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    nodes, _ = CodeGraph.build(root).snapshot()
    return {n.props["label"]: (n.props.get("handler_fqn"), n.props.get("unresolved_reason"))
            for n in nodes.values() if n.kind == "route"}


FASTAPI_APPLIED = '''from fastapi import FastAPI

app = FastAPI()


def ping():
    return "pong"


app.get("/ping")(ping)
app.api_route("/both", methods=["GET", "DELETE"])(ping)
'''

FASTAPI_ON_SELF = '''from fastapi import FastAPI


class Server:
    def __init__(self):
        self.app = FastAPI()
        self.app.post("/prompt")(self.answer)
        self.app.add_api_route("/state", self.state, methods=["PUT"])

    def answer(self):
        return 1

    def state(self):
        return 2
'''

ROUTER_ADDED = '''from fastapi import APIRouter, FastAPI

from svc import views
from svc.views import shared_view

router = APIRouter(prefix="/inner")
router.add_api_route("/one", shared_view)
router.add_api_route(path="/two", endpoint=views.shared_view, methods=["POST"])
app = FastAPI()
app.include_router(router, prefix="/api")
'''

FLASK_RULES = '''from flask import Flask

from svc.views import shared_view

web = Flask(__name__)


def local():
    return "x"


web.add_url_rule("/a", view_func=local, methods=["POST", "PUT"])
web.add_url_rule("/b", "b_name", shared_view, methods=["DELETE"])
web.route("/c", methods=["PATCH"])(local)
'''

STARLETTE_LIST = '''from starlette.applications import Starlette
from starlette.routing import Route


async def home(request):
    return 1


async def submit(request):
    return 2

routes = [
    Route("/", home),
    Route("/submit", endpoint=submit, methods=["POST"]),
]
app = Starlette(routes=routes)
'''

UNKNOWN_HANDLER = '''from fastapi import FastAPI

from elsewhere import remote_handler

app = FastAPI()


def make():
    return lambda: 1


app.get("/remote")(remote_handler)
app.add_api_route("/made", make())
'''


@pytest.mark.parametrize("main, expected", [
    (FASTAPI_APPLIED, {"GET /ping": "svc.main.ping", "GET /both": "svc.main.ping",
                       "DELETE /both": "svc.main.ping"}),
    (FASTAPI_ON_SELF, {"POST /prompt": "svc.main.Server.answer", "PUT /state": "svc.main.Server.state"}),
    (ROUTER_ADDED, {"GET /api/inner/one": "svc.views.shared_view", "POST /api/inner/two": "svc.views.shared_view"}),
    (FLASK_RULES, {"POST /a": "svc.main.local", "PUT /a": "svc.main.local", "DELETE /b": "svc.views.shared_view",
                   "PATCH /c": "svc.main.local"}),
    (STARLETTE_LIST, {"GET /": "svc.main.home", "POST /submit": "svc.main.submit"}),
], ids=["fastapi-applied", "app-on-self", "router-add-api-route", "flask-add-url-rule", "starlette-route-list"])
def test_a_route_registered_by_call_is_served_by_the_function_it_names(tmp_path, main, expected):
    routes = _routes(tmp_path, main)
    assert {label: handler for label, (handler, _) in routes.items()} == expected


def test_a_handler_that_names_no_project_function_leaves_the_route_unknown_saying_so(tmp_path):
    routes = _routes(tmp_path, UNKNOWN_HANDLER)
    assert set(routes) == {"GET /remote", "GET /made"}
    for label, (handler, reason) in routes.items():
        assert handler != "svc.main.make", label    # a call's result is never read as the function called
        assert reason and "handler" in reason, label


def test_a_call_of_a_routes_method_whose_result_is_not_called_declares_nothing(tmp_path):
    """``app.get(path)`` with nothing applied to it is a lookup, not a registration."""
    main = 'from fastapi import FastAPI\n\napp = FastAPI()\nhandler = app.get("/only-looked-up")\n'
    assert _routes(tmp_path, main) == {}


def _conditions(tmp_path: Path, files: dict[str, str], texts: dict | None = None) -> dict[str, str | None]:
    """label -> condition of every route; ``texts`` gets label -> what search reads of it."""
    root = tmp_path / "svc"
    for rel, text in {"pyproject.toml": '[project]\nname = "svc"\n', "svc/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = [n for n in nodes.values() if n.kind == "route"]
    if texts is not None:
        texts.update({n.props["label"]: n.text for n in routes})
    return {n.props["label"]: n.props.get("condition") for n in routes}


GUARDED_MOUNTS = '''from fastapi import APIRouter, FastAPI

from svc.config import settings
from svc.dev import router as dev_router
from svc.extra import router as extra_router
from svc.open import router as open_router

app = FastAPI()
app.include_router(open_router)
if settings.MODE == "local":
    app.include_router(dev_router, prefix="/dev")
elif settings.MODE == "staging":
    pass
else:
    app.include_router(extra_router)
'''
ROUTER_FILE = '''from fastapi import APIRouter

router = APIRouter()


@router.post("/{name}")
def handle():
    return 1
'''


def test_a_router_mounted_under_an_if_keeps_its_routes_with_the_condition_as_written(tmp_path):
    files = {"svc/main.py": GUARDED_MOUNTS, "svc/config.py": "class S:\n    MODE = 'prod'\n\nsettings = S()\n",
             **{f"svc/{name}.py": ROUTER_FILE.replace("{name}", name) for name in ("dev", "extra", "open")}}
    texts: dict[str, str] = {}
    conditions = _conditions(tmp_path, files, texts)
    assert conditions["POST /open"] is None
    assert 'settings.MODE == "local"' in texts["POST /dev/dev"]    # a search for the condition's words finds it
    assert "settings.MODE" not in texts["POST /open"]
    assert conditions["POST /dev/dev"] == 'if settings.MODE == "local" (svc/main.py:11)'
    assert conditions["POST /extra"] == (
        'if not (settings.MODE == "local") and not (settings.MODE == "staging") (svc/main.py:15)')


def test_a_route_registered_by_call_under_an_if_has_the_condition(tmp_path):
    main = ('from flask import Flask\n\nweb = Flask(__name__)\nDEBUG = False\n\n\ndef probe():\n    return 1\n\n\n'
            'if DEBUG:\n    web.add_url_rule("/probe", view_func=probe)\nweb.add_url_rule("/always", view_func=probe)\n')
    assert _conditions(tmp_path, {"svc/main.py": main}) == {"GET /probe": "if DEBUG (svc/main.py:12)",
                                                            "GET /always": None}


SHADOWED_HANDLERS = '''from fastapi import FastAPI

app = FastAPI()


def index():
    return "the module's"


def handler():
    return "the module's"


def make():
    return lambda: 1


def setup():
    index = make()
    app.add_api_route("/local", index)


def register(handler):
    app.add_api_route("/param", handler)
'''


def test_a_handler_named_by_a_parameter_or_local_is_not_the_module_function_of_that_name(tmp_path):
    """The value a parameter or local variable holds is made at run time: the module's namesake is shadowed."""
    routes = _routes(tmp_path, SHADOWED_HANDLERS)
    assert set(routes) == {"GET /local", "GET /param"}
    for label, (handler, reason) in routes.items():
        assert handler not in ("svc.main.index", "svc.main.handler"), label
        assert reason and "handler" in reason, label


METHODS_NOT_WRITTEN_OUT = '''from flask import Flask
from flask.views import MethodView

from svc.views import shared_view

web = Flask(__name__)
ALLOWED = ["POST", "PUT"]


class ItemAPI(MethodView):
    def get(self):
        return 1

    def delete(self):
        return 2


web.add_url_rule("/listed", view_func=shared_view, methods=ALLOWED)
web.add_url_rule("/items", view_func=ItemAPI.as_view("items"))


@web.route("/decorated", methods=ALLOWED)
def decorated():
    return 1
'''


def test_methods_not_written_out_are_unknown_never_get(tmp_path):
    """``methods=ALLOWED`` (a name) and a view class's own methods are not read: the route's HTTP method is unknown
    and says why; GET, the default when none is given, is never put in their place."""
    routes = _routes(tmp_path, METHODS_NOT_WRITTEN_OUT)
    assert set(routes) == {"? /listed", "? /items", "? /decorated"}
    assert routes["? /listed"][0] == "svc.views.shared_view"
    assert routes["? /decorated"][0] == "svc.main.decorated"
    for label, (_, reason) in routes.items():
        assert reason and "methods" in reason, label


def test_an_endpoint_class_without_methods_is_not_a_get_route(tmp_path):
    main = ('from starlette.applications import Starlette\nfrom starlette.endpoints import HTTPEndpoint\n'
            'from starlette.routing import Route\n\n\nclass Users(HTTPEndpoint):\n    async def post(self, request):\n'
            '        return 1\n\n\napp = Starlette(routes=[Route("/users", Users), Route("/put", Users, '
            'methods=["PUT"])])\n')
    assert set(_routes(tmp_path, main)) == {"? /users", "PUT /put"}
