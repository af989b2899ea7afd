"""PHP: the php-web fixture system (its README: Symfony, Laravel and Slim routes; curl, Guzzle, Symfony
HttpClient and file_get_contents clients; URLs from constants, properties, locals and the deployment's env)
against its exact expected set, the structure one PHP file gives, how values fold, and updates equal to a
full build."""

from __future__ import annotations

import shutil

import pytest
from helpers.code_graph import FIXTURES, edges_by_fqn, edit, expected_lines, render

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.folding import plain
from graphlore.toolsets.code.languages.php.constants import PHPConstants, PHPFolder
from graphlore.toolsets.code.languages.php.extract import extract

PART2_EDGES = ("EXPOSES", "HTTP_CALLS", "DECLARES_CLIENT")


def part2(graph: CodeGraph) -> list[str]:
    return [line for line in render(graph) if line[0] in "RCPS"
            or (line.startswith("E ") and line.split()[1] in PART2_EDGES)]


def test_php_web_routes_clients_and_links_are_exactly_the_expected_ones():
    graph = CodeGraph.build(FIXTURES / "php-web")
    assert part2(graph) == expected_lines("php_web_services.txt")
    files = {n.props["file"] for n in graph.snapshot()[0].values() if n.kind == "symbol"}
    assert "stock/src/app.php" in files and not any("/vendor/" in f for f in files)   # Composer's dependencies


SHOP = b"""<?php
namespace Shop\\Orders;

use Shop\\Billing\\Ledger as Book;
use Psr\\Log\\LoggerAwareTrait;

interface Priced { public function price(): int; }

trait Audits
{
    public function audit(string $what): void {}
}

/**
 * Places orders.
 */
final class OrderService extends BaseService implements Priced
{
    use Audits, LoggerAwareTrait;

    public const BASE = 'http://billing:8080';
    private const PATH = self::BASE . '/charges';

    /** @var Book */
    private $book;
    private $mailer;

    public function __construct(private readonly Book $ledger, Mailer $mailer, Book $book)
    {
        $this->mailer = $mailer;
        $this->book = $book;
    }

    public function price(): int
    {
        return 1;
    }

    public function place(int $id): void
    {
        $this->audit('place');
        $this->ledger->record($id);
        $this->book->record($id);
        $this->mailer->send($id);
        self::helper();
        static::helper();
        parent::boot();
        Factory::make();
        $order = new Order($id);
        $order->total();
        $made = Factory::make();
        $made->total();
        total($id);
        strlen('x');
        price();
    }

    private static function helper(): void {}
}

class BaseService { public function boot(): void {} }
class Mailer { public function send(int $id): void {} }
class Order
{
    public function __construct(int $id) {}
    public function total(): int { return 0; }
}
class Factory
{
    public static function make(): Order { return new Order(1); }
}
enum Status: string
{
    case Open = 'open';
}
function total(int $id): int
{
    return $id;
}
"""

LEDGER = b"""<?php
namespace Shop\\Billing;

class Ledger
{
    public function record(int $id): void {}
}
"""


@pytest.fixture
def shop(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/shop"}')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "OrderService.php").write_bytes(SHOP)
    (tmp_path / "src" / "Ledger.php").write_bytes(LEDGER)
    return tmp_path


def test_a_php_file_gives_namespaced_types_members_and_resolved_calls(shop):
    graph = CodeGraph.build(shop)
    nodes, _ = graph.snapshot()
    symbols = {n.props["fqn"]: n.props for n in nodes.values() if n.kind == "symbol"}
    service = "Shop.Orders.OrderService"
    assert symbols[service]["extends"] == ["Shop.Orders.BaseService"]
    assert symbols[service]["implements"] == ["Shop.Orders.Priced"]
    assert symbols[service]["uses"] == ["Shop.Orders.Audits", "Psr.Log.LoggerAwareTrait"]
    assert symbols[service]["docstring"] == "Places orders."
    assert symbols["Shop.Orders.Audits"]["modifiers"] == ["trait"]
    assert symbols[f"{service}.__construct"]["symbol_kind"] == "constructor"
    assert symbols[f"{service}.ledger"]["type"] == "Book"            # a promoted constructor parameter
    assert symbols[f"{service}.book"]["type"] == "Book"              # its docblock's @var
    assert symbols[f"{service}.mailer"]["type"] == "Mailer"          # the constructor parameter assigned to it
    assert symbols["Shop.Orders.Status.Open"]["symbol_kind"] == "field"
    assert symbols["Shop.Orders.total"]["symbol_kind"] == "function"
    calls = edges_by_fqn(graph, "CALLS")
    place = f"{service}.place"
    for target in ("Shop.Orders.Audits.audit", "Shop.Billing.Ledger.record", "Shop.Orders.Mailer.send",
                   f"{service}.helper", "Shop.Orders.BaseService.boot", "Shop.Orders.Factory.make",
                   "Shop.Orders.Order.__construct", "Shop.Orders.Order.total", "Shop.Orders.total"):
        assert (place, target) in calls, target
    assert ("Shop.Orders.Factory.make", "Shop.Orders.Order.__construct") in calls
    assert (service, "Shop.Orders.BaseService") in edges_by_fqn(graph, "EXTENDS")
    assert (service, "Shop.Orders.Priced") in edges_by_fqn(graph, "IMPLEMENTS")
    assert (f"{service}.price", "Shop.Orders.Priced.price") in edges_by_fqn(graph, "OVERRIDES")
    unresolved = {site["name"]: site["reason"] for site in symbols[place].get("unresolved_calls", [])}
    assert unresolved == {"strlen": "builtin", "price": "external_name"}   # a bare price() is no method call
    assert (place, f"{service}.price") not in calls
    services = {n.name: n.props for n in nodes.values() if n.kind == "microservice"}
    assert services["shop"]["declared_names"] == {"composer.json": "shop"}


def test_docblock_annotations_and_attributes_are_annotations_with_their_arguments():
    facts = extract("C.php", b"""<?php
/**
 * @Route("/api", name="api")
 */
class C
{
    /**
     * @Route(path="/rate/{sku}", methods={"PUT", "POST"})
     * @Security("is_granted('ROLE_USER')")
     */
    public function rate() {}

    #[Route('/a', methods: ['GET'])]
    #[\\Symfony\\Component\\Routing\\Attribute\\Route('/b')]
    public function a() {}
}
""")
    notes = {s.key: [(a.name, a.args) for a in s.annotations] for s in facts.symbols}
    assert notes["C"] == [("Route", (("", '"/api"'), ("name", '"api"')))]
    assert notes["C.rate"] == [("Route", (("path", '"/rate/{sku}"'), ("methods", '{"PUT", "POST"}'))),
                               ("Security", (("", "\"is_granted('ROLE_USER')\""),))]
    assert notes["C.a"] == [("Route", (("", "'/a'"), ("methods", "['GET']"))), ("Route", (("", "'/b'"),))]


@pytest.mark.parametrize(("expr", "value", "known"), [
    ("self::URL . '/x'", "http://h/x", True),
    ('"{$this->base}/items/$id"', "${env:BASE}/items/{id}", False),
    ("sprintf('%s/items/%d', self::URL, 7)", "http://h/items/7", True),
    ("$_ENV['HOST'] . '/p'", "${env:HOST}/p", False),
    ("$url . '/q'", "http://h/v1/q", True),
    ("$this->other", "{other}", False),
    ("strtoupper('a')", "{?}", False),
])
def test_php_values_fold_from_literals_constants_locals_properties_and_the_environment(expr, value, known):
    facts = extract("F.php", b"""<?php
class F
{
    const URL = 'http://h';
    private $base;

    public function __construct()
    {
        $this->base = getenv('BASE') ?: 'http://fallback';
    }

    public function go($id, $other)
    {
        $url = self::URL . '/v1';
        return 1;
    }
}
""")
    constants = PHPConstants.__new__(PHPConstants)
    constants.by_type, constants.services = {("F", "URL"): [("'http://h'", facts, "F")]}, {}
    folded = PHPFolder(constants, facts, "F").at(facts, "F.go", 16).fold(expr)
    assert (plain(folded.text), folded.known) == (value, known)



def test_a_class_constant_is_the_one_of_the_class_the_name_means_never_one_of_the_same_name(tmp_path):
    """``Config::URL`` is the constant of the class the file's ``use`` imports or namespace make ``Config``: a
    project class of that name in another namespace is not it (a library's, or one that does not exist)."""
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "Config.php").write_text("<?php\nnamespace App\\Settings;\n\nclass Config { const URL = 'http://h'; }\n")
    for name, head in (("Library", "use Vendor\\Sdk\\Config;"), ("Relative", ""),
                       ("Aliased", "use App\\Settings\\Config as Settings;")):
        written = "Settings::URL" if name == "Aliased" else "Config::URL"
        (tmp_path / f"{name}.php").write_text(f"""<?php
namespace App\\Web;

{head}

class {name}
{{
    public function go()
    {{
        return curl_init({written} . '/x');
    }}
}}
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    urls = {n.props["declaring_fqn"].split(".")[-2]: (plain(n.props["target_url"]), n.props["resolved"])
            for n in nodes.values() if n.kind == "client"}
    assert urls["Aliased"] == ("http://h/x", True)
    assert not urls["Library"][1] and not urls["Relative"][1], urls


def test_an_env_read_with_a_default_keeps_the_default_for_when_no_deployment_sets_it():
    facts = extract("F.php", b"<?php\n$u = getenv('CATALOGUE_URL') ?: 'http://catalogue:8080';\n")
    constants = PHPConstants.__new__(PHPConstants)
    constants.by_type, constants.services = {}, {}
    folded = PHPFolder(constants, facts, "").at(facts, "", 3).fold("$u")
    assert folded.text == "\x01CATALOGUE_URL\x1ehttp://catalogue:8080\x02"


def test_updates_equal_a_full_build(tmp_path):
    root = tmp_path / "php-web"
    shutil.copytree(FIXTURES / "php-web", root)
    graph = CodeGraph.build(root)
    # a new Laravel route, a curl call to it, and the stock service's URL no longer set by the deployment
    edit(root, "catalogue/routes/api.php", "Route::apiResource(", "Route::put('/products/{sku}/price', "
         "[ProductController::class, 'search']);\nRoute::apiResource(")
    edit(root, "ratings/src/Service/CatalogueClient.php", "    public function report(",
         "    public function reprice(string $sku): void\n    {\n        $curl = curl_init();\n"
         "        curl_setopt($curl, CURLOPT_URL, $this->baseUrl . \"/api/products/$sku/price\");\n"
         "        curl_setopt($curl, CURLOPT_CUSTOMREQUEST, 'PUT');\n    }\n\n    public function report(")
    edit(root, "docker-compose.yml", "      - STOCK_URL=http://stock:8080\n", "")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(root).snapshot()
    lines = part2(graph)
    assert "C PUT catalogue /api/products/{sku}/price kind=curl from=Shop.Ratings.Service.CatalogueClient.reprice " \
           "match=cross_service" in lines
    level = [line for line in lines if line.startswith("C GET ") and "StockClient.level" in line]
    assert level == ["C GET ? /{?}/stock/{?} kind=symfony_http_client from=App.Clients.StockClient.level "
                     "match=unresolved why=the URL's start is not known; environment variable STOCK_URL is set by "
                     "none of the project's deployment files; $sku is known at run time only"]


KERNEL = b"""<?php
namespace App;

use App\\Clients\\Pricing;

class Kernel
{
    protected function configureContainer($c): void
    {
        $c->setParameter('pricing_url', getenv('PRICING_URL') ?: 'http://pricing:8080');
        $c->register(Pricing::class)
            ->addArgument($c->getParameter('pricing_url'))
            ->setAutowired(true);
    }

    public function boot(string $where): void
    {
        (new Clients\\Stock('http://stock/api'))->level();
        (new Clients\\Audit('http://audit'))->send();
        (new Clients\\Audit($where))->send();
    }
}
"""

CLIENTS = {
    "Pricing.php": b"""<?php
namespace App\\Clients;

class Pricing
{
    private $base;

    public function __construct(string $base)
    {
        $this->base = $base;
    }

    public function quote(string $sku)
    {
        return file_get_contents($this->base . '/quotes/' . $sku);
    }
}
""",
    "Stock.php": b"""<?php
namespace App\\Clients;

class Stock
{
    public function __construct(private string $url) {}

    public function level()
    {
        $h = curl_init($this->url . '/level');
        return curl_exec($h);
    }
}
""",
    "Audit.php": b"""<?php
namespace App\\Clients;

class Audit
{
    public function __construct(private string $url) {}

    public function send()
    {
        return curl_exec(curl_init($this->url . '/events'));
    }
}
""",
}


def test_constructor_arguments_come_from_every_construction_and_container_registration(tmp_path):
    """A constructor parameter is what every ``new T(...)`` and Symfony ``register(T::class)->addArgument(...)``
    passes (a container parameter folded from its ``setParameter``); one construction with a run-time value
    leaves it unknown."""
    (tmp_path / "composer.json").write_text('{"name": "acme/web"}')
    (tmp_path / "src" / "Clients").mkdir(parents=True)
    (tmp_path / "src" / "Kernel.php").write_bytes(KERNEL)
    for name, src in CLIENTS.items():
        (tmp_path / "src" / "Clients" / name).write_bytes(src)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    clients = sorted((n.props["declaring_fqn"], n.props["label"]) for n in nodes.values() if n.kind == "client")
    assert clients == [
        ("App.Clients.Audit.send", "GET ? /{?}/events"),
        ("App.Clients.Pricing.quote", "GET pricing /quotes/{sku}"),   # PRICING_URL: no deployment sets it
        ("App.Clients.Stock.level", "GET stock /api/level"),
    ]


def test_a_slim_app_made_without_imports_registers_routes_and_a_plain_router_does_not(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/legacy"}')
    (tmp_path / "index.php").write_text("""<?php
$app = new \\Slim\\App();
$app->get('/hello/{name}', function ($request, $response, $args) { return $response; });
$app->post('/orders', 'OrderAction:create');
$router = new Router();
$router->get('/not-a-route', function () {});
$cache->get('/not/a/route/either');
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = sorted(n.props["label"] for n in nodes.values() if n.kind == "route")
    assert routes == ["GET /hello/{name}", "POST /orders"]



def test_a_route_handler_written_with_its_full_name_is_that_class_in_a_namespaced_file(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "Action.php").write_text("<?php\nnamespace Stock;\n\nclass Action { public function __invoke() {} "
                                         "public function forget() {} }\n")
    (tmp_path / "app.php").write_text("""<?php
namespace Stock;

use Slim\\Factory\\AppFactory;

$app = AppFactory::create();
$app->get('/a', \\Stock\\Action::class);
$app->delete('/b', [\\Stock\\Action::class, 'forget']);
$app->get('/c', Action::class);
""")
    routes = [line for line in render(CodeGraph.build(tmp_path)) if line.startswith("R ")]
    handlers = {line.split()[2]: line.split("handler=")[1].split()[0] for line in routes}
    assert handlers == {"/a": "Stock.Action.__invoke", "/b": "Stock.Action.forget", "/c": "Stock.Action.__invoke"}



def test_curl_s_custom_request_is_the_method_whatever_the_order_of_the_options(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "C.php").write_text("""<?php
class C
{
    public function put()
    {
        $h = curl_init('http://stock/items');
        curl_setopt($h, CURLOPT_POST, true);
        curl_setopt($h, CURLOPT_CUSTOMREQUEST, 'PUT');
    }

    public function patch()
    {
        $h = curl_init('http://stock/items');
        curl_setopt_array($h, [CURLOPT_POST => 1, CURLOPT_CUSTOMREQUEST => 'PATCH']);
    }
}
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    methods = {n.props["declaring_fqn"]: n.props["http_method"] for n in nodes.values() if n.kind == "client"}
    assert methods == {"C.put": "PUT", "C.patch": "PATCH"}



def test_a_url_is_resolved_against_the_base_uri_as_guzzle_does(tmp_path):
    """RFC 3986, as Guzzle and Symfony HttpClient resolve: a path starting with ``/`` replaces the base's path;
    another replaces its last segment (so ``http://h/api`` + ``x`` is ``http://h/x``)."""
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "C.php").write_text("""<?php
use GuzzleHttp\\Client;

class C
{
    private $bare;
    private $slashed;

    public function __construct()
    {
        $this->bare = new Client(['base_uri' => 'http://ratings/api']);
    }

    public function rooted() { return $this->bare->get('/fetch/1'); }
    public function segment() { return $this->bare->get('fetch/2'); }
    public function whole() { return $this->bare->get('http://stock/items'); }
}

class D
{
    private $http;

    public function __construct()
    {
        $this->http = new Client(['base_uri' => 'http://ratings/api/']);
    }

    public function below() { return $this->http->get('fetch/3'); }
    public function empty() { return $this->http->get(''); }
}
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    urls = {n.props["declaring_fqn"]: plain(n.props["target_url"]) for n in nodes.values() if n.kind == "client"}
    assert urls == {"C.rooted": "http://ratings/fetch/1", "C.segment": "http://ratings/fetch/2",
                    "C.whole": "http://stock/items", "D.below": "http://ratings/api/fetch/3",
                    "D.empty": "http://ratings/api/"}



def test_a_base_uri_is_the_one_of_the_client_the_call_is_made_on(tmp_path):
    """The class makes one client with a ``base_uri``; a call on another client (injected, or made without one)
    does not start at it."""
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "C.php").write_text("""<?php
use GuzzleHttp\\Client;

class C
{
    private $catalogue;
    private $ratings;

    public function __construct(Client $ratings)
    {
        $this->catalogue = new Client(['base_uri' => 'http://catalogue:8080']);
        $this->ratings = $ratings;
    }

    public function listed() { return $this->catalogue->get('/products'); }
    public function rate() { return $this->ratings->get('/api/rate'); }
    public function local() { $c = new Client(); return $c->get('/api/local'); }
    public function made() { $c = new Client(['base_uri' => 'http://stock']); return $c->get('/items'); }
}
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    urls = {n.props["declaring_fqn"]: plain(n.props["target_url"]) for n in nodes.values() if n.kind == "client"}
    assert urls == {"C.listed": "http://catalogue:8080/products", "C.rate": "/api/rate", "C.local": "/api/local",
                    "C.made": "http://stock/items"}



def test_an_untyped_property_another_method_gives_a_value_has_no_type_to_resolve_a_call_by(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "C.php").write_text("""<?php
class A { public function run() {} public function stop() {} }
class C
{
    private $x;
    private $y;

    public function __construct(A $a)
    {
        $this->x = $a;
        $this->y = new A();
    }

    public function swap($other) { $this->x = $other; }
    public function reset() { $this->y = new A(); }
    public function go() { $this->x->run(); $this->y->stop(); }
}
""")
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    fqn = {n.id: n.props.get("fqn") for n in nodes.values()}
    calls = {fqn[e.dst] for e in edges.values() if e.type == "CALLS" and fqn[e.src] == "C.go"}
    assert calls == {"A.stop"}   # $this->y is made an A wherever it is set; $this->x is given anything in swap()



def test_laravel_joins_its_base_url_and_the_path_with_one_slash(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "C.php").write_text("""<?php
use Illuminate\\Support\\Facades\\Http;

class C
{
    public function a() { return Http::baseUrl('http://stock/api/')->get('/items'); }
    public function b() { return Http::baseUrl('http://stock/api')->get('items'); }
    public function c() { return Http::baseUrl('http://stock/api/')->get(''); }
}
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    urls = {n.props["declaring_fqn"]: plain(n.props["target_url"]) for n in nodes.values() if n.kind == "client"}
    assert urls == {"C.a": "http://stock/api/items", "C.b": "http://stock/api/items", "C.c": "http://stock/api/"}


def test_a_call_on_a_receiver_of_unknown_type_is_never_guessed(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "A.php").write_text("""<?php
class Controller { public function get(string $key, string $default) {} }
class Listener
{
    public function on($event)
    {
        $request = $event->getRequest();
        $request->headers->get('X-Id', 'none');
    }
}
""")
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    assert not [e for e in edges.values() if e.type == "CALLS"]
    on = next(n.props for n in nodes.values() if n.kind == "symbol" and n.props["fqn"] == "Listener.on")
    assert {(s["name"], s["reason"]) for s in on["unresolved_calls"]} == {("getRequest", "unknown_receiver"),
                                                                         ("get", "unknown_receiver")}



def test_a_variable_given_another_value_has_no_type_to_resolve_a_call_by(tmp_path):
    """PHP variables declare no type: one given a value of another (or no known) type anywhere in the function
    (reassigned, a branch, a loop) is no receiver of the type it was first made with."""
    (tmp_path / "composer.json").write_text('{"name": "acme/x"}')
    (tmp_path / "A.php").write_text("""<?php
class A { public function run() {} public function stop() {} public function wait() {} }
class B { public function run() {} }
class Caller
{
    public function go($factory, $items, $flag)
    {
        $a = new A();
        $a = $factory->make();
        $a->run();
        $b = new A();
        if ($flag) { $b = new B(); }
        $b->stop();
        $c = new A();
        foreach ($items as $c) { $c->wait(); }
        $d = new A();
        $d->stop();
        $d = new A();
        $d->wait();
    }
}
""")
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    fqn = {n.id: n.props.get("fqn") for n in nodes.values()}
    lines = {(fqn[e.dst], line) for e in edges.values() if e.type == "CALLS" for line in e.props["lines"]}
    assert {(target, line) for target, line in lines if not target.endswith(("A", "B"))} == {
        ("A.stop", 17), ("A.wait", 19)}   # only $d: made as an A each time
    go = next(n.props for n in nodes.values() if n.kind == "symbol" and n.props["fqn"] == "Caller.go")
    assert {(s["name"], s["line"]) for s in go["unresolved_calls"]} >= {("run", 10), ("stop", 13), ("wait", 15)}


ROUTED = """<?php
namespace App\\Controller{sub};

use Symfony\\Component\\Routing\\Attribute\\Route;

#[Route('/NAME')]
class {cls}
{{
    #[Route('/list', methods: ['GET'])]
    public function list() {{}}
}}
"""


def test_symfony_routes_take_the_prefix_of_the_routing_file_import_that_covers_their_controller(tmp_path):
    """... and a route the routing file declares is its controller method's (one outside the project has none)."""
    (tmp_path / "composer.json").write_text('{"name": "acme/shop"}')
    (tmp_path / "config" / "routes").mkdir(parents=True)
    (tmp_path / "config" / "routes.yaml").write_text("""
api:
    resource: ../src/Controller/Api/
    type: attribute
    prefix: /api/v2
admin:
    resource: App\\Controller\\Admin\\
    type: attribute
    prefix: /admin
""")
    (tmp_path / "config" / "routes" / "localized.yaml").write_text("""
web:
    resource:
        path: ../../src/Controller/Web/
        namespace: App\\Controller\\Web
    type: attribute
    prefix:
        en: /shop
        fr: /boutique
orders_export:
    path: /export/{format<csv|json>}
    controller: App\\Controller\\Api\\Orders::list
    methods: [GET, HEAD]
home:
    path: /{_locale}
    controller: Symfony\\Bundle\\FrameworkBundle\\Controller\\TemplateController::templateAction
when@dev:
    profiler:
        resource: '@WebProfilerBundle/Resources/config/routing/wdt.xml'
        prefix: /_wdt
""")
    for sub, cls in (("Api", "Orders"), ("Admin", "Users"), ("Web", "Pages"), ("Other", "Misc")):
        (tmp_path / "src" / "Controller" / sub).mkdir(parents=True)
        (tmp_path / "src" / "Controller" / sub / f"{cls}.php").write_text(
            ROUTED.format(sub="\\" + sub, cls=cls).replace("NAME", cls.lower()))
    graph = CodeGraph.build(tmp_path)
    routes = sorted((n.props["label"], n.props["resolved"]) for n in graph.snapshot()[0].values() if n.kind == "route")
    assert routes == [("GET /admin/users/list", True), ("GET /api/v2/orders/list", True),
                      ("GET /export/{format}", True), ("GET /misc/list", True), ("GET /{?}/pages/list", False),
                      ("HEAD /export/{format}", True)]
    edit(tmp_path, "config/routes.yaml", "prefix: /api/v2", "prefix: /api/v3")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert "GET /api/v3/orders/list" in {n.props["label"] for n in graph.snapshot()[0].values() if n.kind == "route"}


def test_resolve_reads_a_name_as_php_writes_it(tmp_path, embedder):
    from helpers import backend

    from graphlore.contract import parse_request
    from graphlore.runtime import Runtime
    from graphlore.toolsets.code.query import models, tools

    tree = tmp_path / "php-web"
    shutil.copytree(FIXTURES / "php-web", tree)
    runtime = Runtime(backend.settings_for(tmp_path / "home"), embedder=embedder)
    try:
        for written in ("Shop\\Ratings\\Controller\\RatingsController", "\\Shop\\Ratings\\Controller\\RatingsController",
                        "RatingsController::rate", "Shop\\Ratings\\Controller\\RatingsController::rate"):
            request = parse_request(models.ResolveRequest, {"identifier": written, "project_path": str(tree)})
            found = tools.resolve(runtime, request)
            assert found.status == "one", written
            assert found.node.label.startswith("Shop.Ratings.Controller.RatingsController"), written
    finally:
        runtime.close()


def test_a_plain_switch_router_routes_its_literal_paths_only(tmp_path):
    (tmp_path / "composer.json").write_text('{"name": "acme/plain"}')
    (tmp_path / "index.php").write_text("""<?php
function route(): void
{
    $path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
    switch ($path) {
        case '/health':
            echo 'ok';
            break;
        case "/api/items":
            break;
        case 'items':
            break;
        default:
            http_response_code(404);
    }
}
switch ($_SERVER['PATH_INFO']) { case '/status': break; }
switch ($mode) { case '/not-a-path': break; }
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    routes = sorted((n.props["label"], n.props["framework"], nodes[n.props["handler"]].props["fqn"])
                    for n in nodes.values() if n.kind == "route")
    assert routes == [("ANY /api/items", "php_router", "route"), ("ANY /health", "php_router", "route"),
                      ("ANY /status", "php_router", "index.php")]


def test_symfony_services_yaml_gives_constructor_arguments(tmp_path):
    """``arguments`` by name or position, a ``_defaults`` ``bind``, ``%env(X)%`` settled with the deployment,
    ``%param%``; a service reference is no URL."""
    (tmp_path / "composer.json").write_text('{"name": "acme/web"}')
    (tmp_path / "docker-compose.yml").write_text("services:\n  web:\n    build: .\n    environment:\n"
                                                  "      STOCK_HOST: stock:8080\n")
    (tmp_path / "Dockerfile").write_text("FROM php:8.3-fpm\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "services.yaml").write_text("""
parameters:
    pricing_url: 'http://pricing:9000/v2'
services:
    _defaults:
        autowire: true
        bind:
            string $auditUrl: 'http://audit'
    App\\:
        resource: '../src/'
    App\\Client\\Pricing:
        arguments:
            $base: '%pricing_url%'
    App\\Client\\Stock:
        arguments: ['http://%env(STOCK_HOST)%']
    App\\Client\\Mailer:
        arguments:
            $base: '@mailer.transport'
    handlers:
        class: App\\Client\\Audit
        arguments: [!tagged_iterator app.handler]
""")
    (tmp_path / "src" / "Client").mkdir(parents=True)
    for cls, param, path in (("Pricing", "base", "/quotes"), ("Stock", "base", "/levels"),
                             ("Mailer", "base", "/send"), ("Audit", "auditUrl", "/events")):
        (tmp_path / "src" / "Client" / f"{cls}.php").write_text(f"""<?php
namespace App\\Client;

class {cls}
{{
    public function __construct(private string ${param}) {{}}

    public function call(): void
    {{
        curl_exec(curl_init($this->{param} . '{path}'));
    }}
}}
""")
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    clients = sorted((n.props["declaring_fqn"], n.props["label"]) for n in nodes.values() if n.kind == "client")
    assert clients == [("App.Client.Audit.call", "GET audit /events"), ("App.Client.Mailer.call", "GET ? /{?}/send"),
                       ("App.Client.Pricing.call", "GET pricing /v2/quotes"),
                       ("App.Client.Stock.call", "GET stock /levels")]


def test_a_kernel_configure_routes_prefix_and_a_curl_method_set_on_one_branch(tmp_path):
    """A Symfony Kernel's ``configureRoutes`` imports controllers under a prefix in PHP (Symfony 4's
    ``import($resource, '/prefix', $type)``, the configurator's ``import(...)->prefix('/x')``); a
    ``CURLOPT_POST`` set inside an ``if`` may not be set: the client's method is not known."""
    files = {
        "composer.json": '{"name": "acme/ratings", "type": "project"}',
        "src/Kernel.php": "<?php\nnamespace App;\nclass Kernel\n{\n    protected function configureRoutes($routes)\n"
                          "    {\n        $routes->import(__DIR__.'/Controller/', '/api', 'annotation');\n"
                          "        $routes->import('../config/{routes}/*.yaml');\n    }\n}\n",
        "src/Controller/R.php": "<?php\nnamespace App\\Controller;\nuse Symfony\\Component\\Routing\\Annotation\\Route;\n"
                                "class R\n{\n    /** @Route(\"/fetch/{sku}\", methods={\"GET\"}) */\n"
                                "    public function fetch($sku) {}\n}\n",
        "src/Admin/A.php": "<?php\nnamespace App\\Admin;\nuse Symfony\\Component\\Routing\\Annotation\\Route;\n"
                           "class A\n{\n    #[Route('/users', methods: ['GET'])]\n    public function users() {}\n}\n",
        "src/Kernel5.php": "<?php\nnamespace App;\nclass Kernel5\n{\n    protected function configureRoutes($routes): void\n"
                           "    {\n        $routes->import(__DIR__.'/Admin/', 'annotation')->prefix('/admin');\n    }\n}\n",
        "src/C.php": "<?php\nclass C\n{\n    public function send() {\n        $h = curl_init('http://stock/items');\n"
                     "        if (rand(0, 1)) { curl_setopt($h, CURLOPT_POST, true); }\n        return curl_exec($h);\n    }\n"
                     "    public function always() {\n        $h = curl_init('http://stock/all');\n"
                     "        curl_setopt($h, CURLOPT_POST, 1);\n        return curl_exec($h);\n    }\n"
                     "    public function both() {\n        if (rand(0, 1)) {\n            $h = curl_init('http://stock/one');\n"
                     "            curl_setopt($h, CURLOPT_POST, 1);\n        }\n    }\n}\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    labels = {n.props["label"] for n in nodes.values() if n.kind in ("route", "client")}
    assert {"GET /api/fetch/{sku}", "GET /admin/users"} <= labels
    assert not {"GET /fetch/{sku}", "GET /users"} & labels
    assert {"? stock /items", "POST stock /all", "POST stock /one"} <= labels
