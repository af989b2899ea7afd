"""Ruby: the ruby-web fixture system (its README: Sinatra and Rails routes; Faraday, Net::HTTP, HTTParty and
RestClient clients; URLs from constants, instance variables, locals and the deployment's env) against its exact
expected set, the structure and calls one project gives, how values fold, each route and client style on its
own, and updates equal to a full build."""

from __future__ import annotations

import shutil

import pytest
from helpers.code_graph import FIXTURES, edit, expected_lines, render

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import plain
from graphlore.toolsets.code.languages.ruby.constants import RubyConstants, RubyFolder
from graphlore.toolsets.code.languages.ruby.extract import extract

PART2_EDGES = ("EXPOSES", "HTTP_CALLS", "DECLARES_CLIENT")


def part2(graph: CodeGraph) -> list[str]:
    return [line for line in render(graph) if line[0] in "RCPS"
            or (line.startswith("E ") and line.split()[1] in PART2_EDGES)]


def test_ruby_web_routes_clients_and_links_are_exactly_the_expected_ones():
    graph = CodeGraph.build(FIXTURES / "ruby-web")
    assert part2(graph) == expected_lines("ruby_web_services.txt")
    nodes, _ = graph.snapshot()
    # a gRPC stub's address: ENV.fetch's default (no deployment file sets RATINGS_ADDR), and a literal
    assert {n.name: n.props["channel_address"] for n in nodes.values() if n.kind == "client" and
            n.name.startswith("grpc")} == {"grpc ratings shop.ratings.Ratings/GetRating": "ratings:50051",
                                           "grpc ? shop.ratings.Ratings/Rate": "ratings:50051"}


SHOP = b"""require_relative 'ledger'

module Shop
  BASE = ENV.fetch('PAY_URL', 'http://pay:80')

  # A cart.
  class Cart < Base
    include Audits
    extend Builders

    def self.build(x)
      new(x)
      self.make
      make
      helper
    end

    def self.make; end

    def initialize(ledger)
      @ledger = Ledger.new
      @other = ledger
    end

    def add(item, qty = 1)
      self.check(item)
      c = Ledger.new(BASE)
      c.record(item)
      Ledger.open
      Ledger.record(item)
      @ledger.record(item)
      @other.record(item)
      audit
      helper
      puts "x"
      item.check
      qty
    end

    def check(item); end
    def helper; end
  end

  class Base
    def boot; end
  end

  module Audits
    def audit; end
  end
end
"""

LEDGER = b"""module Shop
  class Ledger
    def self.open; end
    def record(x); end
    def check; end
  end
end

module Shop
  module Factory
    def self.new(kind); end
  end
end

def total
  Shop::Factory.new(:a)
  Shop::Ledger.open
  d = Shop::Ledger.new
  d = nil if rand > 1
  d.record(1)
end
"""


@pytest.fixture
def shop(tmp_path):
    (tmp_path / "Gemfile").write_text("source 'https://rubygems.org'\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "shop.rb").write_bytes(SHOP)
    (tmp_path / "lib" / "ledger.rb").write_bytes(LEDGER)
    return tmp_path


def _edges(graph: CodeGraph, kind: str) -> dict[tuple[str, str], str]:
    nodes, edges = graph.snapshot()
    return {(nodes[e.src].props["fqn"], nodes[e.dst].props["fqn"]): e.props.get("resolution", "")
            for e in edges.values() if e.type == kind}


def test_a_ruby_project_gives_nested_modules_classes_members_and_resolved_calls(shop):
    graph = CodeGraph.build(shop)
    nodes, _ = graph.snapshot()
    symbols = {n.props["fqn"]: n.props for n in nodes.values() if n.kind == "symbol"}
    cart = "Shop.Cart"
    assert symbols[cart]["extends"] == ["Shop.Base"]
    assert symbols[cart]["includes"] == ["Shop.Audits"]
    assert symbols[cart]["extends_modules"] == ["Builders"]
    assert symbols[cart]["docstring"] == "A cart."
    assert symbols["Shop.Audits"]["modifiers"] == ["module"]
    assert symbols[f"{cart}.initialize"]["symbol_kind"] == "constructor"
    assert symbols[f"{cart}.build"]["modifiers"] == ["static"]
    assert symbols[f"{cart}.ledger"]["type"] == "Ledger"     # an instance variable made with Ledger.new
    assert symbols[f"{cart}.other"]["type"] == ""            # given a parameter: no type
    assert symbols["Shop.BASE"]["modifiers"] == ["const", "static"]
    assert symbols["total"]["symbol_kind"] == "function"
    calls = _edges(graph, "CALLS")
    add = f"{cart}.add"
    for target in (f"{cart}.check", "Shop.Ledger.record", "Shop.Ledger.open", "Shop.Audits.audit", f"{cart}.helper",
                   "Shop.Ledger"):
        assert (add, target) in calls, target
    assert (f"{cart}.build", f"{cart}.initialize") in calls            # new(x) in a singleton method
    assert (f"{cart}.build", f"{cart}.make") in calls                  # self.make, make: the class's singleton
    assert (f"{cart}.build", f"{cart}.helper") not in calls            # an instance method: not from the class
    assert {(site["name"], site["reason"]) for site in symbols[f"{cart}.build"]["unresolved_calls"]} == \
        {("helper", "not_found")}
    assert ("total", "Shop.Ledger.open") in calls                      # Shop::Ledger from another file
    assert ("total", "Shop.Factory.new") in calls                      # a singleton new, not a construction
    assert ("total", "Shop.Ledger.record") not in calls                # d is given nil too: no type, no guess
    unresolved = {(site["name"], site["reason"]) for site in symbols[add].get("unresolved_calls", [])}
    # Ledger.record is an instance method (no singleton call), @other and item have no known class
    assert unresolved == {("record", "not_found"), ("record", "unknown_receiver"), ("check", "unknown_receiver"),
                          ("puts", "builtin")}
    assert not any(site["name"] == "qty" for site in symbols[add].get("unresolved_calls", []))   # a parameter
    services = {n.name for n in nodes.values() if n.kind == "microservice"}
    assert services == {shop.name}


def test_a_gemspec_names_its_service(tmp_path):
    (tmp_path / "pay").mkdir()
    (tmp_path / "pay" / "pay.gemspec").write_text('Gem::Specification.new do |spec|\n  spec.name = "payments"\nend\n')
    (tmp_path / "pay" / "lib").mkdir()
    (tmp_path / "pay" / "lib" / "pay.rb").write_text("module Pay; end\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "Gemfile").write_text("source 'https://rubygems.org'\n")
    (tmp_path / "web" / "app.rb").write_text("class Web; end\n")
    gems = tmp_path / "web" / "vendor" / "bundle" / "ruby" / "3.3.0" / "gems" / "rack-3.0" / "lib"
    gems.mkdir(parents=True)
    (gems / "rack.rb").write_text("module Rack; end\n")   # Bundler's installed gems: never read
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    assert not any("vendor/" in n.props.get("file", "") for n in nodes.values())
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert set(services) == {"payments", "web"}
    assert services["payments"]["declared_names"] == {"gemspec": "payments"}


@pytest.mark.parametrize(("expr", "value", "known"), [
    ("URL + '/x'", "http://h/x", True),
    ('"#{URL}/items/#{id}"', "http://h/items/{id}", False),
    ("format('%s/items/%d', URL, 7)", "http://h/items/7", True),
    ("ENV['HOST'] + '/p'", "${env:HOST}/p", False),
    ("ENV.fetch('HOST', 'http://d') + '/p'", "${env:HOST}/p", False),
    ("ENV['HOST'] || 'http://d'", "${env:HOST}", False),
    ("url + '/q'", "http://h/v1/q", True),
    ("@base + '/r'", "${env:BASE}/r", False),
    ("Conf::ROOT", "http://root", True),
    ("ROOT", "http://root", True),
    ("URI(URL)", "http://h", True),
    ("other", "{other}", False),
    ("helper.upcase", "{?}", False),
])
def test_ruby_values_fold_from_literals_constants_locals_ivars_and_the_environment(expr, value, known):
    facts = extract("f.rb", b"""module Conf
  ROOT = 'http://root'.freeze

  class F
    URL = 'http://h'

    def initialize
      @base = ENV['BASE']
    end

    def go(id, other)
      url = URL + '/v1'
      1
    end
  end
end
""")
    constants = RubyConstants.__new__(RubyConstants)
    constants.service_of = {}
    constants.by_name = {"Conf.F.URL": [("'http://h'", facts, "Conf.F")],
                         "Conf.ROOT": [("'http://root'.freeze", facts, "Conf")]}
    folded = RubyFolder(constants, facts, "Conf.F").at(facts, "Conf.F.go", 13).fold(expr)
    assert (plain(folded.text), folded.known) == (value, known)
    if "'http://d'" in expr:   # the default in the code is kept for when no deployment file sets the variable
        assert folded.text.startswith("\x01HOST\x1ehttp://d\x02")


def _routes(tmp_path, files: dict[str, str]) -> list[str]:
    for rel, body in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return [line for line in render(CodeGraph.build(tmp_path)) if line.startswith(("R ", "C "))]


def test_rails_resources_give_the_conventional_actions_with_forms_unless_the_app_is_api_only(tmp_path):
    lines = _routes(tmp_path, {"Gemfile": "", "config/routes.rb": """Rails.application.routes.draw do
  resources :photos, except: [:destroy]
  resources :tags, :labels, only: :index
  resource :account, controller: 'users', only: %i[show edit]
  resources :articles, param: :slug, only: [:show] do
    get :feed, on: :collection
    get :preview
    post :publish, on: :member
    resource :favorite, only: [:create]
  end
  scope module: 'v1', path: 'v1' do
    get 'ping/now'
  end
end
""", "app/controllers/users_controller.rb": "class UsersController < ApplicationController\n  def edit; end\nend\n",
        "app/controllers/v1/ping_controller.rb": "module V1\n  class PingController\n    def now; end\n  end\nend\n"})
    routes = sorted(line.split(" framework=")[0] + " " + line.split("handler=")[1].split()[0] for line in lines)
    assert routes == ["R GET /account config/routes.rb", "R GET /account/edit UsersController.edit",
                      "R GET /articles/feed config/routes.rb",
                      "R GET /articles/{article_slug}/preview config/routes.rb",
                      "R GET /articles/{slug} config/routes.rb", "R GET /labels config/routes.rb",
                      "R GET /photos config/routes.rb", "R GET /photos/new config/routes.rb",
                      "R GET /photos/{id} config/routes.rb", "R GET /photos/{id}/edit config/routes.rb",
                      "R GET /tags config/routes.rb",
                      "R GET /v1/ping/now V1.PingController.now", "R PATCH /photos/{id} config/routes.rb",
                      "R POST /articles/{article_slug}/favorite config/routes.rb",
                      "R POST /articles/{slug}/publish config/routes.rb",
                      "R POST /photos config/routes.rb", "R PUT /photos/{id} config/routes.rb"]


def test_sinatra_routes_only_in_a_sinatra_file_or_app_class_and_never_in_a_method(tmp_path):
    lines = _routes(tmp_path, {"Gemfile": "", "app.rb": """require 'sinatra'
require_relative 'routes/b'
get('/a') { 'a' }
""", "routes/b.rb": "post '/b' do\nend\n", "shop/base.rb": """module Shop
  class Base < Sinatra::Base; end
  class Admin < Base
    get '/admin' do
    end
  end
end
""", "shop/admin_routes.rb": """module Shop
  class Admin
    delete '/admin/:id' do
    end
  end
end
""", "other.rb": """get '/not-a-route' do
end
class Plain
  get '/nor-this' do
  end
end
class Api < Sinatra::Application
  put %r{/regex/\\d+} do
  end
  def helper
    get '/a-call'
  end
end
"""})
    # a file app.rb requires relatively, a subclass of a project Sinatra class, the class reopened elsewhere
    assert sorted(line.split(" service=")[0] for line in lines) == [
        "R DELETE /admin/{id} framework=sinatra handler=Shop.Admin", "R GET /a framework=sinatra handler=app.rb",
        "R GET /admin framework=sinatra handler=Shop.Admin", "R POST /b framework=sinatra handler=routes/b.rb",
        "R PUT /{?} framework=sinatra handler=Api"]


def test_clients_resolve_from_their_base_and_an_unknown_url_stays_unresolved(tmp_path):
    lines = _routes(tmp_path, {"docker-compose.yml": "services:\n  web:\n    build: web\n    environment:\n"
                               "      API: http://api:9000/v1\n  api:\n    build: api\n",
                               "web/Gemfile": "", "api/Gemfile": "", "api/app.rb": "class Api; end\n",
                               "web/client.rb": """class Client
  def a
    conn = Faraday.new(ENV.fetch('API'))
    conn.post('items')
    RestClient.delete("http://api:9000/items/#{1}")
    Net::HTTP.get('api', '/status')
    req = Net::HTTP::Put.new(URI('http://api:9000/x'))
    http = Net::HTTP.new('api', 9000)
    http.post('/orders', '{}')
    RestClient::Request.execute(method: :patch, url: 'http://api:9000/p')
  end

  def b(url)
    HTTParty.get(url)
    conn = Faraday.new(url: url)
    conn.get('/y')
    thing.get('/z')
  end
end
"""})
    assert sorted(line.split(" from=")[0] for line in lines if line.startswith("C ")) == [
        "C DELETE api /items/1 kind=restclient", "C GET ? /{?} kind=httparty", "C GET ? /{?}/y kind=faraday",
        "C GET api /status kind=net_http", "C PATCH api /p kind=restclient", "C POST api /orders kind=net_http",
        "C POST api /v1/items kind=faraday", "C PUT api /x kind=net_http"]


def test_updates_equal_a_full_build(tmp_path):
    root = tmp_path / "ruby-web"
    shutil.copytree(FIXTURES / "ruby-web", root)
    graph = CodeGraph.build(root)
    # a new Rails route with its action, a Faraday call to it, and the catalog's URL no longer set by the deployment
    edit(root, "catalog/config/routes.rb", "  get 'version'", "  get 'ready', to: 'health#ready'\n  get 'version'")
    edit(root, "catalog/app/controllers/health_controller.rb", "  def show", "  def ready; end\n\n  def show")
    edit(root, "orders/lib/catalog_client.rb", "  def all", "  def ready\n    @conn.get('/ready')\n  end\n\n  def all")
    edit(root, "docker-compose.yml", "      CATALOG_URL: http://catalog:3000\n", "")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(root).snapshot()
    lines = part2(graph)
    assert "R GET /ready framework=rails handler=HealthController.ready service=catalog resolved=True" in lines
    ready = [line for line in lines if line.startswith("C GET ") and "CatalogClient.ready" in line]
    assert ready == ["C GET ? /{?}/ready kind=faraday from=CatalogClient.ready match=unresolved why=the URL's start "
                     "is not known; environment variable CATALOG_URL is set by none of the project's deployment "
                     "files"]


def test_resolve_reads_a_name_as_ruby_writes_it(tmp_path, embedder):
    from helpers import backend

    from graphlore.contract import parse_request
    from graphlore.runtime import Runtime
    from graphlore.toolsets.code.query import models, tools

    tree = tmp_path / "ruby-web"
    shutil.copytree(FIXTURES / "ruby-web", tree)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        for written, label in (("Api::ProductsController", "Api.ProductsController"),
                               ("::Api::ProductsController", "Api.ProductsController"),
                               ("Api::ProductsController#show", "Api.ProductsController.show"),
                               ("Shop::Ratings::Ratings::Service", "Shop.Ratings.Ratings.Service")):
            request = parse_request(models.ResolveRequest, {"identifier": written, "project_path": str(tree)})
            found = tools.resolve(runtime, request)
            assert found.status == "one", written
            assert found.node.label.startswith(label), written
    finally:
        runtime.close()


def test_resolve_takes_a_predicate_method_s_question_mark_as_its_name_not_a_pattern(tmp_path, embedder):
    from helpers import backend
    from helpers.code_tools import write_tree

    from graphlore.contract import parse_request
    from graphlore.errors import InvalidInput
    from graphlore.runtime import Runtime
    from graphlore.toolsets.code.query import models, tools

    tree = write_tree(tmp_path / "shop", {"Gemfile": "source 'https://rubygems.org'\n",
                                          "lib/cart.rb": "module Shop\n  class Cart\n    def empty?\n      true\n"
                                                         "    end\n  end\nend\n"})
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        for written in ("Shop.Cart.empty?", "Shop::Cart#empty?"):
            found = tools.resolve(runtime, parse_request(models.ResolveRequest,
                                                         {"identifier": written, "project_path": str(tree)}))
            assert (found.status, found.node.label.split("(")[0]) == ("one", "Shop.Cart.empty?"), written
        with pytest.raises(InvalidInput):   # a ? inside a name is still a pattern
            tools.resolve(runtime, parse_request(models.ResolveRequest,
                                                 {"identifier": "Shop.Cart.emp?y", "project_path": str(tree)}))
    finally:
        runtime.close()


def test_grape_routes_take_the_prefix_version_and_the_blocks_around_them(tmp_path):
    lines = _routes(tmp_path, {"Gemfile": "", "api.rb": """module Shop
  class API < Grape::API
    version 'v1', using: :path
    format :json
    prefix :api

    resource :orders do
      get do
      end
      route_param :id do
        get do
        end
        put :cancel do
        end
      end
    end
    post '/ping' do
    end
  end

  class Quiet < Grape::API
    version 'v2', using: :header
    get :status do
    end
  end
end
"""})
    assert sorted(line.split(" service=")[0] for line in lines) == [
        "R GET /api/v1/orders framework=grape handler=Shop.API",
        "R GET /api/v1/orders/{id} framework=grape handler=Shop.API",
        "R GET /status framework=grape handler=Shop.Quiet",
        "R POST /api/v1/ping framework=grape handler=Shop.API",
        "R PUT /api/v1/orders/{id}/cancel framework=grape handler=Shop.API"]


def test_a_rails_route_s_handler_is_its_own_service_s_controller_never_another_s(tmp_path):
    """Two Rails services route `resources :products`; only shop declares its controller: shop's routes are its
    actions', admin's stay with admin's routes file (shop's controller serves nothing of admin's)."""
    from helpers.code_tools import write_tree

    files = {"docker-compose.yml": "services:\n  shop:\n    build: ./shop\n  admin:\n    build: ./admin\n"}
    for svc in ("shop", "admin"):
        files |= {f"{svc}/Gemfile": "gem 'rails'\n", f"{svc}/Dockerfile": "FROM ruby\n",
                  f"{svc}/config/routes.rb": "Rails.application.routes.draw do\n  resources :products, only: [:show]\nend\n"}
    files["shop/app/controllers/products_controller.rb"] = "class ProductsController\n  def show\n  end\nend\n"
    root = write_tree(tmp_path / "sys", files)
    nodes, edges = CodeGraph.build(root).snapshot()
    exposed = {nodes[e.dst].props["microservice"]: nodes[e.src].props["file"] for e in edges.values()
               if e.type == "EXPOSES"}
    assert exposed == {"shop": "shop/app/controllers/products_controller.rb", "admin": "admin/config/routes.rb"}
    # with admin's own controller too, each service's route is its own controller's (the name is no longer unique)
    (root / "admin/app/controllers").mkdir(parents=True)
    (root / "admin/app/controllers/products_controller.rb").write_text(files["shop/app/controllers/products_controller.rb"])
    nodes, edges = CodeGraph.build(root).snapshot()
    exposed = {nodes[e.dst].props["microservice"]: nodes[e.src].props["file"] for e in edges.values()
               if e.type == "EXPOSES"}
    assert exposed == {"shop": "shop/app/controllers/products_controller.rb",
                       "admin": "admin/app/controllers/products_controller.rb"}


def test_a_ruby_method_serves_and_calls_the_rpc_the_grpc_gem_names_it_after(tmp_path):
    """`GetHTTPStatus` is `get_http_status` in the grpc gem (not `get_h_t_t_p_status`, and camel-casing it back
    gives `GetHttpStatus`): the server's method serves it and the stub's call is its client."""
    from helpers.code_tools import write_tree

    proto = ('syntax = "proto3";\npackage ops;\nservice Health {\n  rpc GetHTTPStatus (Req) returns (Res);\n'
             '  rpc Ping (Req) returns (Res);\n}\nmessage Req {}\nmessage Res {}\n')
    root = write_tree(tmp_path / "sys", {
        "docker-compose.yml": "services:\n  status:\n    build: ./status\n  web:\n    build: ./web\n",
        "protos/status.proto": proto, "status/Gemfile": "gem 'grpc'\n", "web/Gemfile": "gem 'grpc'\n",
        "status/Dockerfile": "FROM ruby\n", "web/Dockerfile": "FROM ruby\n",
        "status/server.rb": "require 'grpc'\n\nclass HealthServer < Ops::Health::Service\n"
                            "  def get_http_status(req, _call)\n  end\n\n  def ping(req, _call)\n  end\nend\n",
        "web/client.rb": "require 'grpc'\n\nclass Checker\n  def check\n"
                         "    stub = Ops::Health::Stub.new('status:50051', :this_channel_is_insecure)\n"
                         "    stub.get_http_status(Ops::Req.new)\n  end\nend\n"})
    nodes, _ = CodeGraph.build(root).snapshot()
    grpc = sorted((n.kind, n.props["microservice"], n.props["grpc"]) for n in nodes.values()
                  if n.kind in ("route", "client") and n.props.get("grpc"))
    assert grpc == [("client", "web", "ops.Health/GetHTTPStatus"), ("route", "status", "ops.Health/GetHTTPStatus"),
                    ("route", "status", "ops.Health/Ping")]


def test_a_constant_of_another_service_is_never_read(tmp_path):
    """admin reads `CATALOG_URL`, which only orders assigns: Ruby never loads orders' file in admin, so admin's
    URL is not known (no link), while orders' own client links to catalog."""
    from helpers.code_tools import write_tree

    client = 'require \'net/http\'\n\nclass Cat\n  def items\n    Net::HTTP.get(URI("#{CATALOG_URL}/items"))\n  end\nend\n'
    root = write_tree(tmp_path / "sys", {
        "docker-compose.yml": "services:\n  catalog:\n    build: ./catalog\n  orders:\n    build: ./orders\n"
                              "  admin:\n    build: ./admin\n",
        "catalog/Gemfile": "gem 'sinatra'\n", "catalog/Dockerfile": "FROM ruby\n",
        "catalog/app.rb": "require 'sinatra'\n\nget '/items' do\n  'x'\nend\n",
        "orders/Gemfile": "gem 'sinatra'\n", "orders/Dockerfile": "FROM ruby\n",
        "orders/config.rb": "CATALOG_URL = 'http://catalog:4567'\n", "orders/client.rb": client,
        "admin/Gemfile": "gem 'sinatra'\n", "admin/Dockerfile": "FROM ruby\n", "admin/client.rb": client})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["microservice"]: n.props for n in nodes.values() if n.kind == "client"}
    assert (clients["orders"]["match"], clients["orders"]["target_service"]) == ("cross_service", "catalog")
    assert clients["admin"]["match"] == "unresolved" and clients["admin"]["target_service"] is None
