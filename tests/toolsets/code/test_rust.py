"""Rust: the rust-web fixture system (its README: axum, actix-web and rocket routes; reqwest clients; rdkafka;
tonic) against its exact expected set, the structure a crate gives (modules, impl blocks, traits, use imports,
calls resolved and never guessed), how values fold, Cargo workspaces, and updates equal to a full build."""

from __future__ import annotations

import shutil

import pytest
from helpers.code_graph import FIXTURES, edges_by_fqn, edit, expected_lines, render

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.rust.constants import RustFolder, RustValues
from graphlore.toolsets.code.languages.rust.extract import extract

PART2_EDGES = ("EXPOSES", "HTTP_CALLS", "DECLARES_CLIENT", "DECLARES_PRODUCER", "ASYNC_CALLS", "GRPC_CALLS")


def part2(graph: CodeGraph) -> list[str]:
    return [line for line in render(graph) if line[0] in "RCPS"
            or (line.startswith("E ") and line.split()[1] in PART2_EDGES)]


def test_rust_web_routes_clients_and_links_are_exactly_the_expected_ones():
    assert part2(CodeGraph.build(FIXTURES / "rust-web")) == expected_lines("rust_web_services.txt")


CARGO = '[package]\nname = "order-service"\nversion = "0.1.0"\n'
MAIN = """mod model;
mod store;

use crate::model::{Order, Priced as Price};
use crate::store::*;

/// Starts the service.
#[tokio::main]
async fn main() {
    let order = Order::new(1);
    order.place();
    let repo = MemoryRepo::default();
    store::count(&repo);
    helper();
    model::total(&order);
}

fn helper() {
    fn audit_log() {}

    audit_log();
    let s: Store = Store::open();
    s.put(1);
    let x = make_thing();
    x.place();
    undeclared();
}
"""
MODEL = """use crate::store::Store;

pub trait Priced {
    fn price(&self) -> u64;
}

#[derive(Debug, Clone, Serialize)]
pub struct Order {
    pub id: u64,
    store: Store,
}

pub enum Status { Open, Held(u64) }

pub struct Id(pub u64);

impl Id {
    pub fn zero() -> Self { Self(0) }
}

impl Order {
    pub fn new(id: u64) -> Self {
        Order { id, store: Store::open() }
    }

    pub fn place(&self) {
        self.store.put(self.id);
        self.audit();
        Self::check(self.id);
        let held = Status::Held(self.id);
        let id = Id(self.id);
        self.to_value();
    }

    fn audit(&self) {}

    fn check(id: u64) -> bool { id > 0 }
}

impl Priced for Order {
    fn price(&self) -> u64 { self.id }
}

pub fn total(o: &Order) -> u64 { o.price() }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_places() {
        Order::new(1).place();
    }
}
"""
STORE = """mod memory;
pub use memory::MemoryRepo;

pub struct Store;

impl Store {
    pub fn open() -> Store { Store }
    pub fn put(&self, id: u64) {}
}

pub fn count(repo: &MemoryRepo) -> usize { repo.len_of() }

pub fn make_thing() -> Thing { Thing }
"""
MEMORY = """use super::Store;

#[derive(Default)]
pub struct MemoryRepo { items: Vec<u64> }

impl MemoryRepo {
    pub fn len_of(&self) -> usize { self.items.len() }
}

impl crate::model::Priced for MemoryRepo {
    fn price(&self) -> u64 { 0 }
}
"""


@pytest.fixture
def crate(tmp_path):
    (tmp_path / "Cargo.toml").write_text(CARGO)
    src = tmp_path / "src"
    (src / "store").mkdir(parents=True)
    (src / "main.rs").write_text(MAIN)
    (src / "model.rs").write_text(MODEL)
    (src / "store" / "mod.rs").write_text(STORE)
    (src / "store" / "memory.rs").write_text(MEMORY)
    return tmp_path


def test_a_crate_gives_modules_types_impl_methods_and_resolved_calls(crate):
    graph = CodeGraph.build(crate)
    nodes, _ = graph.snapshot()
    symbols = {n.props["fqn"]: n.props for n in nodes.values() if n.kind == "symbol"}
    # files are modules by their path in the crate: main.rs is the crate, store/mod.rs is store
    assert {"order_service", "order_service.model", "order_service.store", "order_service.store.memory"} <= set(symbols)
    assert symbols["order_service.model.Order"]["symbol_kind"] == "class"
    assert symbols["order_service.model.Priced"]["symbol_kind"] == "interface"
    assert symbols["order_service.model.Status"]["symbol_kind"] == "enum"
    assert symbols["order_service.model.Order.id"]["symbol_kind"] == "field"
    assert symbols["order_service.model.Order.new"]["symbol_kind"] == "method"
    assert symbols["order_service.main"]["docstring"] == "Starts the service."
    assert "ENTRY_POINT" in symbols["order_service.main"]["capabilities"]
    assert not any("it_places" in fqn for fqn in symbols)    # a #[cfg(test)] module is not read
    calls = edges_by_fqn(graph, "CALLS")
    assert not any(src == "order_service.model" for src, _dst in calls)   # nor its calls
    assert calls[("order_service.main", "order_service.model.Order.new")] == "static"                 # Type::f()
    assert calls[("order_service.main", "order_service.model.Order.place")] == "inferred_type"        # let x = T::new()
    assert calls[("order_service.main", "order_service.store.count")] == "static"                     # module::f()
    assert calls[("order_service.main", "order_service.helper")] == "local"
    assert calls[("order_service.helper", "order_service.helper.audit_log")] == "local"   # declared in the body
    assert calls[("order_service.main", "order_service.model.total")] == "static"
    assert calls[("order_service.model.Order.place", "order_service.model.Order.audit")] == "same_class"   # self.m()
    assert calls[("order_service.model.Order.place", "order_service.model.Order.check")] == "static"       # Self::f()
    assert calls[("order_service.model.Order.place", "order_service.model.Status")] == "constructor"      # a variant
    assert calls[("order_service.model.Order.place", "order_service.model.Id")] == "constructor"     # a tuple struct
    assert calls[("order_service.model.Id.zero", "order_service.model.Id")] == "constructor"         # Self(..)
    place_sites = {site["name"]: site["reason"] for site in symbols["order_service.model.Order.place"]["unresolved_calls"]}
    assert place_sites == {"to_value": "external_base"}     # a method of a derived (library) trait
    assert calls[("order_service.model.Order.place", "order_service.store.Store.put")] == "same_class"     # self.field.m()
    assert calls[("order_service.helper", "order_service.store.Store.put")] == "receiver_type"             # let s: T
    assert calls[("order_service.helper", "order_service.store.make_thing")] == "static_import"            # use a::*
    # a parameter typed with a type the module re-exports (pub use memory::MemoryRepo), methods of an impl elsewhere
    assert calls[("order_service.store.count", "order_service.store.memory.MemoryRepo.len_of")] == "receiver_type"
    implements = edges_by_fqn(graph, "IMPLEMENTS")
    assert ("order_service.model.Order", "order_service.model.Priced") in implements
    assert ("order_service.store.memory.MemoryRepo", "order_service.model.Priced") in implements   # another file's trait
    assert ("order_service.model.Order.price", "order_service.model.Priced.price") in edges_by_fqn(graph, "OVERRIDES")
    assert ("order_service", "order_service.model.Order") in edges_by_fqn(graph, "IMPORTS")
    # never guessed: a receiver whose type is not in the project, a name declared nowhere
    unresolved = {site["name"]: site["reason"] for site in symbols["order_service.helper"]["unresolved_calls"]}
    assert unresolved == {"place": "external_type", "undeclared": "external_name"}
    assert ("order_service.helper", "order_service.model.Order.place") not in calls


def test_use_trees_give_one_import_per_name():
    facts = extract("src/a.rs", b"use crate::a::{b::{C, D as E}, f};\nuse std::env;\nuse super::*;\nuse x::y::{self};\n")
    assert [(i.target, i.names) for i in facts.imports] == [
        ("crate.a.b.C", (("crate.a.b.C", "C"),)), ("crate.a.b.D", (("crate.a.b.D", "E"),)),
        ("crate.a.f", (("crate.a.f", "f"),)), ("std.env", (("std.env", "env"),)), ("super", (("*", "*"),)),
        ("x.y", (("x.y", "y"),))]


VALUES = b"""use std::env;
const BASE: &str = "http://inventory:8080";
const API: &str = concat!("/api", "/v1");
struct C { base: String }
impl C {
    fn new() -> Self {
        let base = env::var("INVENTORY_URL").unwrap_or_else(|_| "http://localhost:8080".to_string());
        C { base }
    }
    fn go(&self, id: u64, path: &str) {
        let direct = format!("{}/items/{}", BASE, id);
        let named = format!("{BASE}{API}/x/{id}");
        let positional = format!("{0}/a/{1}/{0}", BASE, "b");
        let from_env = std::env::var("PRICES").expect("set");
        let field = format!("{}/stock", self.base);
        let unknown = format!("{}/{}", path, id);
    }
}
"""


@pytest.mark.parametrize(("expr", "value"), [
    ("direct", "http://inventory:8080/items/{?:id}"),
    ("named", "http://inventory:8080/api/v1/x/{?:id}"),
    ("positional", "http://inventory:8080/a/b/http://inventory:8080"),
    ("from_env", "\x01PRICES\x02"),
    ("field", "\x01INVENTORY_URL\x1ehttp://localhost:8080\x02/stock"),
    ("unknown", "{?:path}/{?:id}"),
])
def test_rust_values_fold_from_literals_consts_format_fields_and_the_environment(expr, value):
    facts = extract("src/c.rs", VALUES)
    folded = RustFolder(RustValues([("c", facts)]), "c", facts).at(facts, "C.go", 17).fold(expr)
    assert folded.text == value


WORKSPACE = '[workspace]\nmembers = ["services/*", "libs/util"]\n'


def test_a_cargo_workspace_makes_each_member_a_service_and_a_bin_target_none(tmp_path):
    (tmp_path / "Cargo.toml").write_text(WORKSPACE)
    for name in ("billing", "ledger"):
        crate = tmp_path / "services" / name
        (crate / "src" / "bin").mkdir(parents=True)
        (crate / "Cargo.toml").write_text(f'[package]\nname = "{name}-svc"\n\n[[bin]]\nname = "{name}-cli"\n'
                                          f'path = "src/bin/cli.rs"\n')
        (crate / "src" / "main.rs").write_text("fn main() { util::log(); }\n")
        (crate / "src" / "bin" / "cli.rs").write_text("fn main() {}\n")
    (tmp_path / "libs" / "util" / "src").mkdir(parents=True)
    (tmp_path / "libs" / "util" / "Cargo.toml").write_text('[package]\nname = "util"\n')
    (tmp_path / "libs" / "util" / "src" / "lib.rs").write_text("pub fn log() {}\n")
    graph = CodeGraph.build(tmp_path)
    nodes, _ = graph.snapshot()
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert {"billing-svc", "ledger-svc", "util"} <= set(services)
    assert services["billing-svc"]["deployable"] and not services["util"]["deployable"]   # a library crate
    assert not any("cli" in name for name in services)
    fqns = {n.props["fqn"] for n in nodes.values() if n.kind == "symbol"}
    assert {"billing_svc.main", "billing_svc.bin.cli.main", "util.log"} <= fqns
    assert ("billing_svc.main", "util.log") in edges_by_fqn(graph, "CALLS")    # another crate of the workspace by its name


def test_a_client_whose_url_the_code_cannot_know_stays_unresolved(tmp_path):
    root = tmp_path / "rust-web"
    shutil.copytree(FIXTURES / "rust-web", root)
    edit(root, "orders/src/clients/inventory.rs", 'env::var("INVENTORY_URL").unwrap_or_else', 'env::var("UPSTREAM").unwrap_or_else')
    lines = part2(CodeGraph.build(root))
    reserve = [line for line in lines if line.startswith("C GET ") and "reserve" in line]
    # no deployment file sets UPSTREAM: the code's default (localhost) names no service of the project
    assert reserve == ["C GET localhost /api/stock/{sku} kind=reqwest from=orders.clients.inventory.InventoryClient."
                       "reserve match=unresolved why='localhost' is this machine; no service of the project is published "
                       "at port 8080; the name UPSTREAM says no address"]
    forward = [line for line in lines if "forward" in line]
    assert forward == ["C POST ? /{?} kind=reqwest from=orders.clients.inventory.InventoryClient.forward match=unresolved "
                       "why=the URL's start is not known; target is not a constant (a variable, a field or a parameter: "
                       "known at run time only)",
                       "E DECLARES_CLIENT orders.clients.inventory.InventoryClient.forward -> client:POST ? /{?}"]
    assert not any(line.startswith("E HTTP_CALLS client:GET") and "/api/stock/" in line for line in lines)


def test_updates_equal_a_full_build(tmp_path):
    root = tmp_path / "rust-web"
    shutil.copytree(FIXTURES / "rust-web", root)
    graph = CodeGraph.build(root)
    # a new axum route, an actix handler moved to another scope, and a reqwest call to the new route
    edit(root, "orders/src/routes/mod.rs", '.route("/orders/:id", get(get_order))',
         '.route("/orders/:id", get(get_order).put(get_order))')
    edit(root, "inventory/src/main.rs", 'web::scope("/api/admin")', 'web::scope("/internal")')
    edit(root, "inventory/src/events.rs", "pub fn listen() {",
         "pub async fn touch() {\n    reqwest::Client::new().put(\"http://orders:8080/api/orders/1\").send().await;\n}\n\n"
         "pub fn listen() {")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(root).snapshot()
    lines = part2(graph)
    assert "R POST /internal/stock framework=actix_web handler=inventory.admin.add_stock service=inventory " \
           "resolved=True" in lines
    assert "C PUT orders /api/orders/1 kind=reqwest from=inventory.events.touch match=cross_service" in lines


def test_route_attributes_and_library_calls_give_capabilities():
    nodes, _ = CodeGraph.build(FIXTURES / "rust-web").snapshot()
    caps = {n.props["fqn"]: n.props["capabilities"] for n in nodes.values() if n.kind == "symbol"}
    assert caps["inventory.get_stock"] == ["HTTP_ENDPOINT"]                        # #[get("/api/stock/{sku}")]
    assert caps["shipping.status.ping"] == ["HTTP_ENDPOINT"]                       # rocket's #[get(..)]
    assert caps["orders.clients.inventory.InventoryClient.release"] == ["HTTP_CLIENT"]   # on a Client::new()
    assert caps["orders.clients.events.announce"] == ["MESSAGE_PRODUCER"]
    assert caps["inventory.events.listen"] == ["MESSAGE_LISTENER"]


ACTIX = """use actix_web::{delete, get, post, web, App, HttpServer};

#[get("/{id}")]
async fn show() -> &'static str { "" }

#[post("")]
async fn create() -> &'static str { "" }

#[delete("/{id}")]
async fn remove() -> &'static str { "" }

#[actix_web::route("/both", method = "GET", method = "HEAD")]
async fn both() -> &'static str { "" }

async fn list() -> &'static str { "" }

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    HttpServer::new(|| {
        App::new()
            .service(web::scope("/api/items").service(show).service(create).service(both))
            .service(web::scope("/v2").service(web::scope("/items").service(remove).route("", web::get().to(list))))
    })
    .bind(("0.0.0.0", 8080))?
    .run()
    .await
}
"""
ROCKET = """#[macro_use] extern crate rocket;

#[get("/<id>")]
fn show(id: u32) -> String { id.to_string() }

#[post("/", data = "<body>")]
fn create(body: String) -> String { body }

#[get("/health")]
fn health() -> &'static str { "ok" }

#[launch]
fn rocket() -> _ {
    rocket::build().mount("/items", routes![show, create]).mount("/", routes![health])
}
"""


@pytest.mark.parametrize(("source", "routes"), [
    (ACTIX, ["R DELETE /v2/items/{id} framework=actix_web handler=api.remove service=api resolved=True",
             "R GET /api/items/both framework=actix_web handler=api.both service=api resolved=True",
             "R GET /api/items/{id} framework=actix_web handler=api.show service=api resolved=True",
             "R GET /v2/items framework=actix_web handler=api.list service=api resolved=True",
             "R HEAD /api/items/both framework=actix_web handler=api.both service=api resolved=True",
             "R POST /api/items framework=actix_web handler=api.create service=api resolved=True"]),
    (ROCKET, ["R GET /health framework=rocket handler=api.health service=api resolved=True",
              "R GET /items/{id} framework=rocket handler=api.show service=api resolved=True",
              "R POST /items framework=rocket handler=api.create service=api resolved=True"]),
])
def test_attribute_routes_take_the_prefixes_of_the_scopes_and_mounts_that_serve_them(tmp_path, source, routes):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "api"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(source)
    assert [line for line in render(CodeGraph.build(tmp_path)) if line.startswith("R ")] == routes


def test_an_impl_block_in_another_file_is_followed_by_updates(crate):
    graph = CodeGraph.build(crate)
    # a method moves to a new file's impl block (declared by a new mod line), a trait impl goes away
    edit(crate, "src/store/mod.rs", "mod memory;", "mod memory;\nmod extra;")
    edit(crate, "src/store/mod.rs", "    pub fn put(&self, id: u64) {}\n", "")
    (crate / "src" / "store" / "extra.rs").write_text("impl super::Store {\n    pub fn put(&self, id: u64) {}\n}\n")
    edit(crate, "src/store/memory.rs", "impl crate::model::Priced for MemoryRepo {", "impl MemoryRepo {")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(crate).snapshot()
    calls = edges_by_fqn(graph, "CALLS")
    assert calls[("order_service.helper", "order_service.store.extra.Store.put")] == "receiver_type"
    assert ("order_service.store.memory.MemoryRepo", "order_service.model.Priced") not in edges_by_fqn(graph, "IMPLEMENTS")


def test_resolve_reads_a_path_as_rust_writes_it(tmp_path, embedder):
    from helpers import backend

    from graphlore.contract import parse_request
    from graphlore.runtime import Runtime
    from graphlore.toolsets.code.query import models, tools

    tree = tmp_path / "rust-web"
    shutil.copytree(FIXTURES / "rust-web", tree)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        for written, fqn in (("orders::clients::inventory::InventoryClient::reserve",
                              "orders.clients.inventory.InventoryClient.reserve"),
                             ("crate::clients::inventory::InventoryClient", "orders.clients.inventory.InventoryClient"),
                             ("InventoryClient::new", "orders.clients.inventory.InventoryClient.new"),
                             ("super::routes::api", "orders.routes.api")):
            request = parse_request(models.ResolveRequest, {"identifier": written, "project_path": str(tree)})
            found = tools.resolve(runtime, request)
            assert (found.status, found.node.label) == ("one", fqn), written
    finally:
        runtime.close()


MIDDLEWARE = """use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use reqwest_tracing::TracingMiddleware;
use std::env;

struct Quotes {
    http: ClientWithMiddleware,
}

impl Quotes {
    async fn get(&self, count: u32) {
        let addr = env::var("QUOTE_ADDR").expect("QUOTE_ADDR is not set");
        self.http.post(format!("{}/getquote", addr)).json(&count).send().await.unwrap();
    }
}

async fn direct() {
    let client = ClientBuilder::new(reqwest::Client::new()).with(TracingMiddleware::default()).build();
    client.get("http://quote:8090/health").send().await.unwrap();
}
"""


def test_a_reqwest_middleware_client_is_a_reqwest_client(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "quote-client"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(MIDDLEWARE)
    graph = CodeGraph.build(tmp_path)
    assert [line for line in render(graph) if line.startswith("C ")] == [
        "C GET quote /health kind=reqwest from=quote_client.direct match=unresolved why='quote' is not a microservice "
        "of this project (an outside service?)",
        "C POST ? /{?}/getquote kind=reqwest from=quote_client.Quotes.get match=unresolved why=the URL's start is not "
        "known; environment variable QUOTE_ADDR is set by none of the project's deployment files"]
    nodes, _ = graph.snapshot()
    caps = {n.props["fqn"]: n.props["capabilities"] for n in nodes.values() if n.kind == "symbol"}
    assert caps["quote_client.Quotes.get"] == ["HTTP_CLIENT"]     # a field typed ClientWithMiddleware


CONFIG_MAIN = """mod config;
mod handlers;

fn main() {
    let state = AppState { config: config::Config::from_env() };
}

pub struct AppState {
    pub config: config::Config,
}
"""
CONFIG = """use std::env;

pub struct Config {
    pub quote_addr: String,
    pub port: u16,
}

impl Config {
    pub fn from_env() -> Self {
        Config { quote_addr: env::var("QUOTE_ADDR").unwrap_or("http://quote:8090".to_string()), port: 8080 }
    }
}
"""
HANDLERS = """use crate::AppState;

pub async fn quote(state: &AppState, count: u32) {
    let client = reqwest::Client::new();
    client.post(format!("{}/getquote", state.config.quote_addr)).send().await.unwrap();
}
"""


def test_a_field_of_a_config_struct_is_what_the_crate_s_struct_literal_sets(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "checkout"\n')
    (tmp_path / "src").mkdir()
    for name, text in (("main.rs", CONFIG_MAIN), ("config.rs", CONFIG), ("handlers.rs", HANDLERS)):
        (tmp_path / "src" / name).write_text(text)
    (tmp_path / "docker-compose.yml").write_text("services:\n  checkout:\n    build: .\n    environment:\n"
                                                 "      - QUOTE_ADDR=http://quote-svc:9000\n")
    clients = [line for line in render(CodeGraph.build(tmp_path)) if line.startswith("C ")]
    # state.config.quote_addr: Config's literal in from_env sets it from QUOTE_ADDR, which the deployment sets
    assert clients == ["C POST quote-svc /getquote kind=reqwest from=checkout.handlers.quote match=unresolved "
                       "why='quote-svc' is not a microservice of this project (an outside service?)"]


def test_a_field_another_struct_declares_too_is_not_folded_from_that_struct_s_literal(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "checkout"\n')
    (tmp_path / "src").mkdir()
    # Config is read from the environment (no literal) and declares quote_addr too: AuditSink's literal is not its
    sink = "pub struct AuditSink {\n    pub quote_addr: String,\n}\n\npub fn sink() -> AuditSink {\n" \
           "    AuditSink { quote_addr: \"http://audit:9000\".to_string() }\n}\n"
    config = "#[derive(serde::Deserialize)]\npub struct Config {\n    pub quote_addr: String,\n}\n"
    for name, text in (("main.rs", CONFIG_MAIN + sink), ("config.rs", config), ("handlers.rs", HANDLERS)):
        (tmp_path / "src" / name).write_text(text)
    clients = [line for line in render(CodeGraph.build(tmp_path)) if line.startswith("C ")]
    assert clients == ["C POST ? /{?}/getquote kind=reqwest from=checkout.handlers.quote match=unresolved why=the URL's "
                       "start is not known; state.config.quote_addr is not a constant (a variable, a field or a "
                       "parameter: known at run time only)"]


ROCKET_MAIN = """#[macro_use] extern crate rocket;
mod users;

#[launch]
fn rocket() -> _ {
    rocket::build().mount("/users", users::routes())
}
"""
ROCKET_USERS = """#[get("/<id>")]
pub fn show(id: u32) -> String { id.to_string() }

#[post("/", data = "<body>")]
pub fn create(body: String) -> String { body }

pub fn routes() -> Vec<rocket::Route> {
    routes![show]
}
"""


def test_a_rocket_mount_of_a_function_s_routes_takes_its_base_and_a_file_without_use_rocket_is_rocket_s(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "api"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(ROCKET_MAIN)
    (tmp_path / "src" / "users.rs").write_text(ROCKET_USERS)
    graph = CodeGraph.build(tmp_path)
    # users.rs names rocket nowhere (the crate's root has #[macro_use] extern crate rocket): its routes are rocket's
    assert [line for line in render(graph) if line.startswith("R ")] == [
        "R GET /users/{id} framework=rocket handler=api.users.show service=api resolved=True",
        "R POST / framework=rocket handler=api.users.create service=api resolved=True"]
    edit(tmp_path, "src/users.rs", "routes![show]", "routes![show, create]")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert "R POST /users framework=rocket handler=api.users.create service=api resolved=True" in render(graph)


CART_PROTO = 'syntax = "proto3";\npackage shop;\nservice Cart { rpc GetCart (Req) returns (Resp); }\n' \
             'message Req {}\nmessage Resp {}\n'
CART_SERVER = """use tonic::{Request, Response, Status};
pub mod shop { tonic::include_proto!("shop"); }
use shop::cart_server::{Cart, CartServer};
struct Svc;
#[tonic::async_trait]
impl Cart for Svc {
    async fn get_cart(&self, r: Request<shop::Req>) -> Result<Response<shop::Resp>, Status> { todo!() }
}
"""
CART_DOMAIN = """use tonic::Status;

pub trait Cart { fn get_cart(&self) -> u32; }

pub struct Pg;

impl Cart for Pg { fn get_cart(&self) -> u32 { 1 } }
"""
WEB_MAIN = """use tonic::transport::Channel;
mod rest;
mod stub;
use rest::CartClient;

async fn show(c: CartClient) { c.get_cart().await; }
"""
WEB_REST = """pub struct CartClient { base: String }

impl CartClient {
    pub async fn get_cart(&self) { reqwest::get(format!("{}/cart", self.base)).await; }
}
"""
WEB_STUB = """use tonic::transport::Channel;

pub mod shop { tonic::include_proto!("shop"); }

pub struct Carts { inner: shop::cart_client::CartClient<Channel> }

impl Carts {
    pub async fn load(&mut self) { self.inner.get_cart(shop::Req {}).await; }
}
"""


def test_a_project_struct_or_trait_named_like_a_tonic_stub_is_no_grpc_client_or_server(tmp_path):
    files = {"Cargo.toml": '[workspace]\nmembers = ["cart", "web"]\n', "proto/cart.proto": CART_PROTO,
             "cart/Cargo.toml": '[package]\nname = "cart"\n', "cart/src/domain.rs": CART_DOMAIN,
             "cart/src/main.rs": "mod domain;\n" + CART_SERVER + "fn main() {}\n",
             "web/Cargo.toml": '[package]\nname = "web"\n', "web/src/main.rs": WEB_MAIN + "fn main() {}\n",
             "web/src/rest.rs": WEB_REST, "web/src/stub.rs": WEB_STUB}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = CodeGraph.build(tmp_path)
    # web's rest::CartClient is a REST wrapper of its own: its get_cart is no call of the Cart service's GetCart;
    # the tonic stub a struct of the project holds is (and the wrapper's own reqwest::get is an HTTP call)
    assert [line for line in render(graph) if line.startswith("C ")] == [
        "C GET ? /{?}/cart kind=reqwest from=web.rest.CartClient.get_cart match=unresolved why=the URL's start is not "
        "known; self.base is not a constant (a variable, a field or a parameter: known at run time only)",
        "C grpc cart shop.Cart/GetCart kind=grpc from=web.stub.Carts.load match=cross_service"]
    assert ("web.show", "web.rest.CartClient.get_cart") in edges_by_fqn(graph, "CALLS")
    # nor does an impl of the project's own trait Cart serve the Cart service: tonic's cart_server::Cart does
    assert [line for line in render(graph) if line.startswith("R ")] == [
        "R grpc shop.Cart/GetCart framework=grpc handler=cart.Svc.get_cart service=cart resolved=True"]


SHADOWED = """use axum::{Router, routing::get};
async fn a() {}
async fn b() {}
async fn c() {}
fn v1() -> Router { Router::new().route("/a", get(a)) }
fn build_app() -> Router {
    let app = Router::new().route("/b", get(b));
    let app = Router::new()
        .nest("/v2", app);
    let api = Router::new().route("/c", get(c));
    let app = app.nest("/api", api.clone()).nest("/v1", v1());
    app
}
"""


def test_a_router_a_let_shadows_is_served_where_each_binding_goes(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "w"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(SHADOWED)
    # the first app goes under /v2 only; the chain on the second app adds nothing of /v2 to /api or /v1
    assert [line for line in render(CodeGraph.build(tmp_path)) if line.startswith("R ")] == [
        "R GET /api/c framework=axum handler=w.c service=w resolved=True",
        "R GET /v1/a framework=axum handler=w.a service=w resolved=True",
        "R GET /v2/b framework=axum handler=w.b service=w resolved=True"]


KAFKA_MAIN = """mod bus;
use rdkafka::consumer::{Consumer, StreamConsumer};
use bus::Bus;

async fn start(b: Bus, c: StreamConsumer) {
    b.subscribe(&["orders"]);
    c.subscribe(&["payments"]).unwrap();
}
"""
KAFKA_BUS = "pub struct Bus { topics: Vec<String> }\n\nimpl Bus {\n    pub fn subscribe(&self, names: &[&str]) {}\n}\n"


def test_a_subscribe_of_the_project_s_own_type_is_no_rdkafka_consumer(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "k"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(KAFKA_MAIN + "fn main() {}\n")
    (tmp_path / "src" / "bus.rs").write_text(KAFKA_BUS)
    graph = CodeGraph.build(tmp_path)
    assert [line for line in render(graph) if line.startswith("R ")] == [
        "R kafka payments framework=rdkafka handler=k.start service=k resolved=True"]
    assert ("k.start", "k.bus.Bus.subscribe") in edges_by_fqn(graph, "CALLS")


def test_a_trait_impl_apart_from_its_struct_overrides_the_trait_s_method(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "s"\n')
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.rs").write_text("mod model;\nmod repo;\nmod pg_impl;\nuse crate::repo::Repo;\n\n"
                                 "fn by_dyn(r: &dyn Repo) { r.get(); }\n")
    (src / "repo.rs").write_text("pub trait Repo { fn get(&self) -> u32; }\n")
    (src / "model.rs").write_text("pub struct Pg {}\n\npub struct Mem {}\n")
    (src / "pg_impl.rs").write_text("use crate::model::Pg;\nuse crate::repo::Repo;\n\n"
                                    "impl Repo for Pg { fn get(&self) -> u32 { 1 } }\n")
    graph = CodeGraph.build(tmp_path)
    # a call through the trait reaches the implementation in impact and paths (OVERRIDDEN_BY), never one guessed
    assert set(edges_by_fqn(graph, "OVERRIDES")) == {("s.pg_impl.Pg.get", "s.repo.Repo.get")}
    assert edges_by_fqn(graph, "CALLS")[("s.by_dyn", "s.repo.Repo.get")] == "receiver_type"
    (src / "mem_impl.rs").write_text("use crate::model::Mem;\n\nimpl crate::repo::Repo for Mem { fn get(&self) -> u32 "
                                     "{ 2 } }\n")
    edit(tmp_path, "src/main.rs", "mod pg_impl;", "mod pg_impl;\nmod mem_impl;")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert ("s.mem_impl.Mem.get", "s.repo.Repo.get") in edges_by_fqn(graph, "OVERRIDES")


def test_a_method_overrides_the_method_of_its_own_impl_block_s_trait_only(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "s"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(
        "pub trait Named { fn name(&self) -> String; }\npub trait Other { fn name(&self) -> String; }\n"
        "pub struct T;\n"
        "impl Named for T { fn name(&self) -> String { String::new() } }\n"
        "impl Other for T { fn name(&self) -> String { String::new() } }\n")
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    overrides = {(nodes[e.src].props["line_start"], nodes[e.dst].props["fqn"]) for e in edges.values()
                 if e.type == "OVERRIDES"}
    assert overrides == {(4, "s.Named.name"), (5, "s.Other.name")}


OTHER_CLIENTS = """use std::env;
use surf::Client as SurfClient;
use ureq::Agent;

async fn with_awc(count: u32) {
    let client = awc::Client::new();
    let addr: String = format!("{}{}", env::var("PRICE_ADDR").unwrap_or_else(|_| "http://pricing:9000".to_string())
        .parse::<String>().expect("bad address"), "/price");
    client.post(addr).send_json(&count).await.unwrap();
}

async fn with_awc_default() {
    let client = awc::Client::default();
    client.delete("http://pricing:9000/price/1").send().await.unwrap();
}

async fn with_surf(http: SurfClient) {
    surf::get("http://pricing:9000/a").await.unwrap();
    http.put("http://pricing:9000/b").await.unwrap();
}

fn with_ureq(agent: Agent) {
    ureq::post("http://pricing:9000/c").call().unwrap();
    agent.get("http://pricing:9000/d").call().unwrap();
}

fn with_isahc() {
    isahc::get("http://pricing:9000/e").unwrap();
}

struct Client;
impl Client {
    fn get(&self, _url: &str) {}
}

fn own_type(c: Client) {
    c.get("http://pricing:9000/not-a-call");
}
"""


def test_awc_surf_ureq_and_isahc_calls_are_clients_like_reqwest_s(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "cart"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(OTHER_CLIENTS)
    lines = sorted(line.split(" match=")[0] for line in render(CodeGraph.build(tmp_path)) if line.startswith("C "))
    assert lines == [
        "C DELETE pricing /price/1 kind=awc from=cart.with_awc_default",
        "C GET pricing /a kind=surf from=cart.with_surf",
        "C GET pricing /d kind=ureq from=cart.with_ureq",
        "C GET pricing /e kind=isahc from=cart.with_isahc",
        "C POST pricing /c kind=ureq from=cart.with_ureq",
        "C POST pricing /price kind=awc from=cart.with_awc",
        "C PUT pricing /b kind=surf from=cart.with_surf",
    ]
