"""Go routes registered from a table: a ``for ... range`` loop over a slice, array or map of entries registers
one route per entry (gorilla/mux, net/http, gin, chi, echo), the entry's handler being the route's handler; the
table a package-level variable (any file of the package, or another package), a local, or what a function
returns; its entries positional or keyed struct literals, an anonymous struct, or a map's keys and values."""

from __future__ import annotations

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

GO_MOD = "module example.org/shop\n\ngo 1.22\n"
DOCKERFILE = "FROM golang\nCOPY . .\nRUN go build -o /app .\n"

HANDLERS = """package api

import "net/http"

func ListOrders(w http.ResponseWriter, r *http.Request) {}
func GetOrder(w http.ResponseWriter, r *http.Request)   {}
func Health(w http.ResponseWriter, r *http.Request)     {}
"""


def _routes(tmp_path, files: dict[str, str]) -> set[tuple[str, str, str]]:
    tree = write_tree(tmp_path / "shop", {"go.mod": GO_MOD, "Dockerfile": DOCKERFILE, "api/handlers.go": HANDLERS,
                                          **files})
    nodes, _ = CodeGraph.build(tree).snapshot()
    return {(n.props["http_method"], n.props["path_template"], (n.props.get("handler_fqn") or "").rsplit(".", 1)[-1])
            for n in nodes.values() if n.kind == "route"}


GORILLA_TABLE = """package web

import (
	"net/http"

	"example.org/shop/api"
)

type Entry struct {
	Title   string
	Verb    string
	Pattern string
	Fn      http.HandlerFunc
}

type Entries []Entry

var entries = Entries{
	Entry{"list", "GET", "/orders", api.ListOrders},
	Entry{"one", http.MethodGet, "/orders/{id}", api.GetOrder},
}
"""

GORILLA_LOOP = """package web

import "github.com/gorilla/mux"

func NewRouter() *mux.Router {
	root := mux.NewRouter().StrictSlash(true)
	v2 := root.PathPrefix("/v2").Subrouter()
	for _, e := range entries {
		v2.
			HandleFunc(e.Pattern, e.Fn).
			Name(e.Title).
			Methods(e.Verb)
	}
	return root
}
"""


def test_a_gorilla_loop_over_a_positional_table_in_another_file_registers_each_entry(tmp_path):
    found = _routes(tmp_path, {"web/table.go": GORILLA_TABLE, "web/router.go": GORILLA_LOOP,
                               "main.go": MAIN})
    assert found == {("GET", "/v2/orders", "ListOrders"), ("GET", "/v2/orders/{id}", "GetOrder")}


MAIN = """package main

import (
	"net/http"

	"example.org/shop/web"
)

func main() {
	http.ListenAndServe(":8080", web.NewRouter())
}
"""


def test_a_gorilla_builder_chain_over_a_keyed_table_a_function_returns(tmp_path):
    router = """package web

import (
	"net/http"

	"github.com/gorilla/mux"

	"example.org/shop/api"
)

type Route struct {
	Name    string
	Method  string
	Pattern string
	Handler http.HandlerFunc
}

func table() []Route {
	return []Route{
		{Name: "list", Method: "GET", Pattern: "/orders", Handler: api.ListOrders},
		{Name: "make", Method: "POST", Pattern: "/orders", Handler: api.GetOrder},
	}
}

func NewRouter() *mux.Router {
	r := mux.NewRouter()
	for _, rt := range table() {
		r.Methods(rt.Method).Path(rt.Pattern).Name(rt.Name).Handler(rt.Handler)
	}
	r.Path("/health").Methods("GET").HandlerFunc(api.Health)
	return r
}
"""
    found = _routes(tmp_path, {"web/router.go": router, "main.go": MAIN})
    assert found == {("GET", "/orders", "ListOrders"), ("POST", "/orders", "GetOrder"), ("GET", "/health", "Health")}


def test_a_serve_mux_loop_over_a_local_anonymous_struct_table_with_method_patterns(tmp_path):
    main = """package main

import (
	"net/http"

	"example.org/shop/api"
)

func main() {
	mux := http.NewServeMux()
	routes := []struct {
		pattern string
		handler http.HandlerFunc
	}{
		{"GET /orders", api.ListOrders},
		{"GET /orders/{id}", api.GetOrder},
	}
	for _, rt := range routes {
		mux.HandleFunc(rt.pattern, rt.handler)
	}
	http.ListenAndServe(":8080", mux)
}
"""
    assert _routes(tmp_path, {"main.go": main}) == {("GET", "/orders", "ListOrders"),
                                                    ("GET", "/orders/{id}", "GetOrder")}


def test_a_serve_mux_loop_over_a_map_of_paths_to_handlers(tmp_path):
    main = """package main

import (
	"net/http"

	"example.org/shop/api"
)

func main() {
	mux := http.NewServeMux()
	handlers := map[string]http.HandlerFunc{
		"/orders": api.ListOrders,
		"/health": api.Health,
	}
	for path, h := range handlers {
		mux.HandleFunc(path, h)
	}
	http.ListenAndServe(":8080", mux)
}
"""
    assert _routes(tmp_path, {"main.go": main}) == {("ANY", "/orders", "ListOrders"), ("ANY", "/health", "Health")}


def test_a_gin_group_loop_over_a_table_of_another_package(tmp_path):
    table = """package routes

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"example.org/shop/api"
)

type Route struct {
	Method  string
	Path    string
	Handler gin.HandlerFunc
}

var All = []Route{
	{Method: http.MethodGet, Path: "/orders", Handler: api.List},
	{Method: "DELETE", Path: "/orders/:id", Handler: api.Drop},
}
"""
    handlers = """package api

import "github.com/gin-gonic/gin"

func List(c *gin.Context) {}
func Drop(c *gin.Context) {}
"""
    main = """package main

import (
	"github.com/gin-gonic/gin"

	"example.org/shop/routes"
)

func main() {
	engine := gin.Default()
	v1 := engine.Group("/v1")
	for _, r := range routes.All {
		v1.Handle(r.Method, r.Path, r.Handler)
	}
	engine.Run(":8080")
}
"""
    found = _routes(tmp_path, {"routes/routes.go": table, "api/gin.go": handlers, "main.go": main})
    assert {f for f in found if f[2] in ("List", "Drop")} == {("GET", "/v1/orders", "List"),
                                                              ("DELETE", "/v1/orders/{id}", "Drop")}


def test_chi_and_echo_loops_with_the_method_from_the_entry(tmp_path):
    main = """package main

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v4"

	"example.org/shop/api"
)

type chiRoute struct {
	Method  string
	Pattern string
	Handler http.HandlerFunc
}

var chiRoutes = []chiRoute{{"PUT", "/orders/{id}", api.GetOrder}}

func ping(c echo.Context) error { return nil }

var echoRoutes = []struct {
	Method string
	Path   string
	Fn     echo.HandlerFunc
}{{"PATCH", "/ping", ping}}

func main() {
	r := chi.NewRouter()
	for _, rt := range chiRoutes {
		r.Method(rt.Method, rt.Pattern, rt.Handler)
	}
	e := echo.New()
	for _, rt := range echoRoutes {
		e.Add(rt.Method, rt.Path, rt.Fn)
	}
	http.ListenAndServe(":8080", r)
}
"""
    assert _routes(tmp_path, {"main.go": main}) == {("PUT", "/orders/{id}", "GetOrder"), ("PATCH", "/ping", "ping")}


def test_an_entry_that_does_not_set_the_path_gives_an_unknown_path_not_another_entrys(tmp_path):
    main = """package main

import (
	"net/http"

	"example.org/shop/api"
)

type Route struct {
	Path    string
	Handler http.HandlerFunc
}

var routes = []Route{
	{Path: "/orders", Handler: api.ListOrders},
	{Handler: api.Health},
}

func main() {
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.HandleFunc(rt.Path, rt.Handler)
	}
	http.ListenAndServe(":8080", mux)
}
"""
    found = _routes(tmp_path, {"main.go": main})
    assert ("ANY", "/orders", "ListOrders") in found
    assert {f for f in found if f[2] == "Health"} and all(f[1] != "/orders" for f in found if f[2] == "Health")


def test_a_loop_over_a_parameter_is_not_read_as_a_table(tmp_path):
    main = """package main

import (
	"net/http"

	"example.org/shop/api"
)

type Route struct {
	Path    string
	Handler http.HandlerFunc
}

var routes = []Route{{"/orders", api.ListOrders}}

func register(mux *http.ServeMux, routes []Route) {
	for _, rt := range routes {
		mux.HandleFunc(rt.Path, rt.Handler)
	}
}

func main() {
	mux := http.NewServeMux()
	register(mux, nil)
	http.ListenAndServe(":8080", mux)
}
"""
    assert all(f[1] != "/orders" for f in _routes(tmp_path, {"main.go": main}))


def test_only_tables_a_loop_may_register_from_are_kept():
    from graphlore.toolsets.code.languages.go.extract import extract
    source = b"""package web

var routes = []string{"/a", "/b"}

func f() {
	cases := []struct{ in string }{{"x"}}
	seen := []string{"y"}
	for _, c := range cases {
		_ = c
	}
	_ = seen
}
"""
    tables = extract("web/table.go", source).extra["tables"]
    assert set(tables[""]) == {"routes"} and set(tables["f"]) == {"cases"}
    assert "tables" not in extract("web/table_test.go", source).extra


GIN_FIELD_GROUPS = """package web

import "github.com/gin-gonic/gin"

type Server struct {
	engine *gin.Engine
}

func (s *Server) Orders(c *gin.Context) {}
func (s *Server) Items(c *gin.Context)  {}
func (s *Server) Drop(c *gin.Context)   {}

func (s *Server) Routes() {
	s.engine.Static("/assets", "./web/assets")
	s.engine.StaticFile("/favicon.ico", "./web/favicon.ico")
	api := s.engine.Group("/api/shop")
	{
		api.GET("", s.Orders)
		items := api.Group("/items")
		items.GET("/all", s.Items)
		orders := api.Group("/orders")
		orders.DELETE("", s.Drop)
	}
}
"""


def test_gin_groups_of_a_field_router_and_sibling_groups_keep_their_own_prefixes(tmp_path):
    found = _routes(tmp_path, {"web/server.go": GIN_FIELD_GROUPS})
    assert {(verb, path) for verb, path, _ in found} == {
        ("GET", "/api/shop"), ("GET", "/api/shop/items/all"), ("DELETE", "/api/shop/orders"),
        ("GET", "/assets/*filepath"), ("GET", "/favicon.ico")}   # static files: every path under the prefix
