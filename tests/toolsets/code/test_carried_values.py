"""Values carried where the first readers lost them (issue 22, the blind sets' reader gaps), each on a small
hand-written system: a URL kept in a config mapping (Flask ``app.config``, a module dict, ``.update``), a sender
imported by name, a script's sibling module, a Skaffold Jib module and two ConfigMaps of one name, and a client
whose URL has one value that links and one that does not (one truth for the client and its edges)."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.code_graph import FIXTURES

from graphlore.toolsets.code.index.graph import CodeGraph

COMPOSE = """services:
  web:
    build: ./web
    environment:
      ITEMS_ADDR: "items:8000"
  items:
    build: ./items
"""

ITEMS = '''from flask import Flask

app = Flask(__name__)


@app.route("/items/<item_id>")
def get_item(item_id):
    return {}


@app.route("/items", methods=["POST"])
def add_item():
    return {}


@app.route("/stock", methods=["PUT"])
def put_stock():
    return {}
'''

WEB = '''import os

import requests
from flask import Flask
from httpx import put as send
from requests import post

ROUTES = {"items": "http://items:8000/items", "elsewhere": os.environ.get("NOWHERE")}


def create_app():
    app = Flask(__name__)

    @app.route("/show/<item_id>")
    def show(item_id):
        return requests.get(f'{app.config["ITEMS_URI"]}/{item_id}').json()

    @app.route("/add", methods=["POST"])
    def add():
        return post(url=ROUTES["items"], json={}).json()

    @app.route("/stock", methods=["POST"])
    def stock():
        return send(app.config["STOCK_URI"], json={}).json()

    @app.route("/lost")
    def lost():
        return requests.get(app.config["NEVER_SET"]).json()

    app.config["ITEMS_URI"] = "http://{}/items".format(os.environ.get("ITEMS_ADDR"))
    app.config.update(STOCK_URI="http://items:8000/stock")
    return app
'''


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def _clients_of(root: Path) -> list[dict]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return [n.props for n in nodes.values() if n.kind == "client"]


def _clients(root: Path) -> dict[str, dict]:
    return {props["declaring_fqn"].rsplit(".", 1)[-1]: props for props in _clients_of(root)}


def test_urls_kept_in_a_config_mapping_and_senders_imported_by_name(tmp_path: Path):
    _write(tmp_path, {"docker-compose.yml": COMPOSE, "items/Dockerfile": "FROM python:3.12\n", "items/app.py": ITEMS,
                      "web/Dockerfile": "FROM python:3.12\n", "web/web.py": WEB})
    clients = _clients(tmp_path)
    show = clients["show"]   # app.config["X"] set later in the factory, the address from the deployment's env
    assert (show["target_url"], show["match"], show["target_service"]) == ("http://items:8000/items/{item_id}",
                                                                         "cross_service", "items")
    add = clients["add"]     # a module-level dict, sent by a function imported from requests
    assert (add["http_method"], add["target_url"], add["match"]) == ("POST", "http://items:8000/items",
                                                                   "cross_service")
    stock = clients["stock"]   # app.config.update(KEY=...), sent by httpx's put imported under another name
    assert (stock["http_method"], stock["client_kind"], stock["match"]) == ("PUT", "httpx", "cross_service")
    lost = clients["lost"]   # a key the code never sets stays unknown, saying so
    assert lost["match"] == "unresolved"
    assert "app.config['NEVER_SET'] is known at run time only" in lost["unresolved_reason"]



LOADED = '''import os

import requests
from flask import Flask

app = Flask(__name__)
app.config.from_object("web.defaults")
app.config["KEPT"] = "http://items:8000/items"
app.config["ITEMS_URI"] = "http://items:8000/items"
app.config.from_envvar("WEB_SETTINGS")


@app.route("/kept/<item_id>")
def kept(item_id):
    return requests.get(f'{app.config["KEPT"]}/{item_id}').json()


@app.route("/show/<item_id>")
def show(item_id):
    return requests.get(f'{app.config["ITEMS_URI"]}/{item_id}').json()
'''


def test_a_key_a_bulk_load_may_replace_after_it_is_set_is_not_known(tmp_path: Path):
    """``app.config.from_envvar(...)`` after ``app.config["ITEMS_URI"] = ...`` may replace it (a file the code does
    not name): no value, so no link; a load before the key is set does not."""
    _write(tmp_path, {"docker-compose.yml": COMPOSE, "items/Dockerfile": "FROM python:3.12\n", "items/app.py": ITEMS,
                      "web/Dockerfile": "FROM python:3.12\n", "web/web.py": LOADED})
    clients = _clients(tmp_path)
    assert clients["show"]["match"] == "unresolved"
    assert "app.config.from_envvar(...) (line 10) may replace it" in clients["show"]["unresolved_reason"]
    assert clients["kept"]["match"] == "unresolved"   # from_envvar comes after it too
    body = LOADED.replace('app.config.from_envvar("WEB_SETTINGS")\n', "")
    _write(tmp_path, {"web/web.py": body})
    clients = _clients(tmp_path)
    assert (clients["kept"]["match"], clients["show"]["match"]) == ("cross_service", "cross_service")


SCRIPT = '''from store import Store


def main():
    return Store().load()
'''

STORE = '''class Store:
    def load(self):
        return []
'''


def test_a_scripts_sibling_module_is_the_import(tmp_path: Path):
    _write(tmp_path, {"svc/Dockerfile": "FROM python:3.12\n", "svc/__init__.py": "", "svc/main.py": SCRIPT,
                      "svc/store.py": STORE, "svc/other.py": "import json\n\n\ndef f():\n    return json.loads('1')\n"})
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    fqn = {n.id: n.props.get("fqn") for n in nodes.values()}
    calls = {(fqn[e.src], fqn[e.dst]) for e in edges.values() if e.type == "CALLS"}
    assert any(src.endswith("main.main") and dst.endswith("store.Store.load") for src, dst in calls)
    other = next(n for n in nodes.values() if n.props.get("fqn") == "svc.other")
    assert "json" in other.props["imports_external"]   # no json.py beside it: the library, as before



def test_a_sibling_named_like_the_standard_library_or_the_module_itself_is_not_the_import(tmp_path: Path):
    """``import logging`` beside a ``logging.py`` is Python's own module when the folder is imported as a package
    (the sibling only when run as a script): which one is not known, so no link to the sibling; and a module never
    imports itself (``import redis`` inside ``redis.py`` is the library it wraps)."""
    _write(tmp_path, {"svc/Dockerfile": "FROM python:3.12\n", "svc/__init__.py": "",
                      "svc/logging.py": "import logging\n\n\ndef getLogger(name):\n    return logging.getLogger(name)\n",
                      "svc/redis.py": "import redis\n\n\ndef from_url(url):\n    return redis.from_url(url)\n",
                      "svc/views.py": "import logging\n\nlog = logging.getLogger(__name__)\n"})
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    fqn = {n.id: n.props.get("fqn") for n in nodes.values()}
    calls = {(fqn[e.src], fqn[e.dst]) for e in edges.values() if e.type == "CALLS"}
    assert not calls, calls


def test_spring_placeholders_take_the_deployment_env_in_every_position(tmp_path: Path):
    """``${READER_ADDR}`` with no property file entry is the env var the Deployment gives the service through a
    ConfigMap (``envFrom``): on a field, a constructor and a method parameter, a Feign ``url`` and a
    ``@ConfigurationProperties`` field (``reader.url`` <- ``READER_URL``). The Deployment is the writer's through
    its image, which Skaffold builds with Jib from the writer's module (``context`` is the root)."""
    root = tmp_path / "placeholder-env"
    shutil.copytree(FIXTURES / "placeholder-env", root)
    (root / "vm/config.yaml").unlink()
    clients = {(c["declaring_fqn"], c["line"]): c for c in _clients_of(root)}
    assert len(clients) == 5
    for client in clients.values():
        assert (client["match"], client["target_service"]) == ("cross_service", "reader"), client["declaring_fqn"]
        assert "reader-vm" not in (client["target_url"] or client["base_url"] or "")


def test_two_configmaps_of_one_name_give_each_value_and_the_client_says_what_links(tmp_path: Path):
    """The VM deployment's ConfigMap of the same name gives READER_ADDR a second value, a host no deployment
    names: every client's URL is one of the two; each links through the value that names a service, and the
    client says so (its match is its edges', the other value is in its detail), rather than a client marked
    unresolved beside a cross_service edge."""
    root = tmp_path / "placeholder-env"
    shutil.copytree(FIXTURES / "placeholder-env", root)
    nodes, edges = CodeGraph.build(root).snapshot()
    clients = [n for n in nodes.values() if n.kind == "client"]
    [by_props] = [n for n in clients if n.props["declaring_fqn"].endswith("byProps(String)")]
    assert by_props.props["target_url"] == "http://reader:8080/reads/{id}"   # READER_URL has one value
    several = [n for n in clients if n is not by_props]
    assert len(several) == 4
    for node in several:
        assert node.props["match"] == "cross_service"
        assert node.props["match_detail"].startswith("1 of the 2 values of its URL link; the others do not")
        made = [e for e in edges.values() if e.src == node.id and e.type == "HTTP_CALLS"]
        assert [e.props["match"] for e in made] == ["cross_service"]
        assert nodes[made[0].dst].props["label"] == "GET /reads/{id}"


API = '''from requests import get


class Request:
    def __init__(self, url, headers):
        self.url = url
        self.headers = headers


class Call:
    def __init__(self, name, request):
        self.name = name
        self.request = request

    def run(self):
        return get(url=self.request.url, headers=self.request.headers)
'''

PAGES = '''from api import Call, Request

BASE = "http://items:8000"


def page(item_id):
    first = Call("item", Request(url=f"{BASE}/items/{item_id}", headers={}))
    second = Call("stock", Request(headers={}, url=BASE + "/stock"))
    return [first.run(), second.run()]
'''


def test_a_url_carried_in_an_object_is_a_client_where_the_object_is_built(tmp_path: Path):
    _write(tmp_path, {"docker-compose.yml": COMPOSE, "items/Dockerfile": "FROM python:3.12\n", "items/app.py": ITEMS,
                      "web/Dockerfile": "FROM python:3.12\n", "web/api.py": API, "web/pages.py": PAGES})
    found = sorted((c["file"], c["line"], c["http_method"], c["target_url"], c["match"]) for c in _clients_of(tmp_path))
    assert found == [("web/api.py", 16, "GET", "{url}", "unresolved"),
                     ("web/pages.py", 7, "GET", "http://items:8000/items/{item_id}", "cross_service"),
                     ("web/pages.py", 8, "GET", "http://items:8000/stock", "no_route")]
    [sender] = [c for c in _clients_of(tmp_path) if c["file"] == "web/api.py"]
    assert "read as the clients where they are built (web/pages.py:7, web/pages.py:8)" in sender["unresolved_reason"]

    # one construction passes an object built elsewhere: no value is certain, so only the sender remains
    (tmp_path / "web/pages.py").write_text(PAGES + '''

def other(request):
    return Call("other", request).run()
''')
    assert [(c["file"], c["match"]) for c in _clients_of(tmp_path)] == [("web/api.py", "unresolved")]


def test_class_attributes_and_django_settings_fold(tmp_path: Path):
    """``Endpoints.ITEMS`` (a class attribute, here and imported) and ``settings.ITEMS_URL`` (Django's settings:
    the module ``manage.py`` names) fold; a class attribute the module also assigns from outside does not."""
    _write(tmp_path, {
        "docker-compose.yml": COMPOSE, "items/Dockerfile": "FROM python:3.12\n", "items/app.py": ITEMS,
        "web/Dockerfile": "FROM python:3.12\n",
        "web/manage.py": 'import os\n\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "site.settings")\n',
        "web/site/__init__.py": "",
        "web/site/settings.py": 'import os\n\nITEMS_URL = "http://{}/items".format(os.environ["ITEMS_ADDR"])\n',
        "web/site/endpoints.py": 'class Endpoints:\n    ITEMS = "http://items:8000/items"\n',
        "web/site/views.py": '''import requests
from django.conf import settings

from site.endpoints import Endpoints


class Local:
    STOCK = "http://items:8000/stock"


class Moved:
    STOCK = "http://items:8000/stock"


Moved.STOCK = "http://elsewhere:9000/stock"


def by_settings(request):
    return requests.get(settings.ITEMS_URL + "/1")


def by_imported_class(request):
    return requests.post(Endpoints.ITEMS)


def by_local_class(request):
    return requests.put(Local.STOCK)


def by_moved_class(request):
    return requests.put(Moved.STOCK)
'''})
    clients = _clients(tmp_path)
    assert (clients["by_settings"]["target_url"], clients["by_settings"]["match"]) == (
        "http://items:8000/items/1", "cross_service")
    assert clients["by_imported_class"]["match"] == "cross_service"
    assert clients["by_local_class"]["match"] == "cross_service"
    assert clients["by_moved_class"]["match"] == "unresolved"
