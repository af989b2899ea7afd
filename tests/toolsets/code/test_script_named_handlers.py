"""TS/JS routes registered with a handler named by reference (Express, Koa) are exposed by that function, not by
the function or module that registers them: a trace from a client reaches the handler's body, and the handler's
callers reach the clients over HTTP. A reference the reader cannot follow leaves the registering symbol, as before."""

from __future__ import annotations

import pytest
from helpers.code_graph import render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PACKAGE = '{"name": "shop", "dependencies": {"express": "4", "@koa/router": "12"}}'


def exposed(tmp_path, files: dict[str, str]) -> dict[str, str]:
    """route label -> the symbol that exposes it."""
    write_tree(tmp_path, {"shop/package.json": PACKAGE, **files})
    out = {}
    for line in render(CodeGraph.build(tmp_path)):
        if line.startswith("E EXPOSES "):
            source, _, route = line[len("E EXPOSES "):].partition(" -> route:")
            out[route] = source
    return out


def test_a_function_of_the_module_and_one_of_the_registering_scope(tmp_path):
    routes = exposed(tmp_path, {"shop/server.js": (
        "const express = require('express');\nconst app = express();\n"
        "function ping(req, res) { res.send('pong'); }\n"
        "const stats = async (req, res) => { res.json({}); };\n"
        "function mount() {\n  function inner(req, res) { res.send(1); }\n  app.get('/inner', inner);\n}\n"
        "app.get('/ping', ping);\napp.get('/stats', stats);\nmount();\n")})
    assert routes["GET /ping"] == "shop/server.js#ping"
    assert routes["GET /stats"] == "shop/server.js#stats"
    assert routes["GET /inner"] == "shop/server.js#mount.inner"


def test_an_imported_function_by_name_default_and_through_a_barrel(tmp_path):
    routes = exposed(tmp_path, {
        "shop/src/handlers/orders.ts": "export async function listOrders(req: any, res: any) { res.json([]); }\n",
        "shop/src/handlers/index.ts": "export * from './orders';\nexport { default as health } from './health';\n",
        "shop/src/handlers/health.ts": "export default function health(req: any, res: any) { res.send('ok'); }\n",
        "shop/src/carts.js": "function showCart(req, res) { res.json({}); }\nmodule.exports = { showCart };\n",
        "shop/src/app.ts": (
            "import express from 'express';\nimport { listOrders, health } from './handlers';\n"
            "const { showCart } = require('./carts');\nconst app = express();\n"
            "app.get('/orders', listOrders);\napp.get('/health', health);\napp.get('/cart', showCart);\n")})
    assert routes["GET /orders"] == "shop/src/handlers/orders.ts#listOrders"
    assert routes["GET /health"] == "shop/src/handlers/health.ts#health"
    assert routes["GET /cart"] == "shop/src/carts.js#showCart"


def test_a_member_of_a_module_imported_whole_after_middleware(tmp_path):
    routes = exposed(tmp_path, {
        "shop/src/users.js": ("exports.remove = function (req, res) { res.sendStatus(204); };\n"
                              "function list(req, res) { res.json([]); }\nmodule.exports.list = list;\n"),
        "shop/src/items.ts": "export const find = async (req: any, res: any) => { res.json([]); };\n",
        "shop/src/app.js": (
            "const express = require('express');\nconst users = require('./users');\n"
            "import * as items from './items';\nconst router = express.Router();\n"
            "function auth(req, res, next) { next(); }\n"
            "router.get('/users', auth, users.list);\nrouter.delete('/users/:id', users.remove);\n"
            "router.get('/items', items.find);\nmodule.exports = router;\n")})
    assert routes["GET /{?}/users"] == "shop/src/users.js#list"   # the last argument, not the middleware
    assert routes["DELETE /{?}/users/{id}"] == "shop/src/users.js#remove"
    assert routes["GET /{?}/items"] == "shop/src/items.ts#find"


def test_a_method_of_a_class_named_directly_or_through_an_instance_koa_and_express(tmp_path):
    routes = exposed(tmp_path, {
        "shop/app/controllers/stock.ts": (
            "export class StockControllers {\n  static async upsert(ctx: any) { ctx.status = 204; }\n"
            "  static async byId(ctx: any) { ctx.body = {}; }\n}\n"),
        "shop/app/controllers/index.ts": "export * from './stock';\n",
        "shop/app/reviews.ts": "export default class Reviews {\n  add(req: any, res: any) { res.json({}); }\n}\n",
        "shop/app/routes.ts": (
            "const Router = require('@koa/router');\nimport { StockControllers } from './controllers';\n"
            "export function stockRouter() {\n  const router = new Router({ prefix: '/api' });\n"
            "  router.put('/stock/:id', StockControllers.upsert);\n"
            "  router.get('by-id', '/stock/:id', StockControllers.byId);\n  return router;\n}\n"),
        "shop/app/web.ts": (
            "import express from 'express';\nimport Reviews from './reviews';\nconst app = express();\n"
            "const reviews = new Reviews();\napp.post('/reviews', reviews.add);\n")})
    assert routes["PUT /api/stock/{id}"] == "shop/app/controllers/stock.ts#StockControllers.upsert"
    assert routes["GET /api/stock/{id}"] == "shop/app/controllers/stock.ts#StockControllers.byId"   # named form
    assert routes["POST /reviews"] == "shop/app/reviews.ts#Reviews.add"


@pytest.mark.parametrize("handler, note", [
    ("wrap(orders.list)", "a call's result"),
    ("this.list", "a method of `this`"),
    ("orders.missing", "no such export"),
    ("bodyParser.json", "a library's middleware"),
    ("unknownName", "nothing of that name"),
])
def test_a_reference_not_followed_leaves_the_registering_symbol(tmp_path, handler, note):
    routes = exposed(tmp_path, {
        "shop/orders.js": "exports.list = function (req, res) { res.json([]); };\n",
        "shop/server.js": (
            "const express = require('express');\nconst bodyParser = require('body-parser');\n"
            "const orders = require('./orders');\nconst app = express();\nconst wrap = (fn) => fn;\n"
            f"app.get('/orders', {handler});\n")})
    assert routes["GET /orders"] == "shop/server.js", note


def test_a_handler_of_another_service_is_never_the_routes(tmp_path):
    routes = exposed(tmp_path, {
        "other/package.json": '{"name": "other"}',
        "other/handlers.js": "exports.list = function (req, res) { res.json([]); };\n",
        "shop/server.js": ("const express = require('express');\nconst h = require('../other/handlers');\n"
                           "const app = express();\napp.get('/list', h.list);\n")})
    assert routes["GET /list"] == "shop/server.js"


def test_a_trace_from_a_client_reaches_the_handlers_body(tmp_path):
    write_tree(tmp_path, {
        "store/package.json": '{"name": "store", "dependencies": {"@koa/router": "12", "koa": "2"}}',
        "store/app/repo.ts": "export function addParcel(p: any) { return p; }\n",
        "store/app/parcels.ts": ("import { addParcel } from './repo';\nexport class Parcels {\n"
                                 "  static async put(ctx: any) { addParcel(ctx.request.body); }\n}\n"),
        "store/app/index.ts": (
            "import Koa from 'koa';\nconst Router = require('@koa/router');\nimport { Parcels } from './parcels';\n"
            "const router = new Router();\nrouter.put('/parcels/:id', Parcels.put);\n"
            "const app = new Koa();\napp.use(router.routes());\n"),
        "web/package.json": '{"name": "web", "dependencies": {"axios": "1"}}',
        "web/send.js": ("const axios = require('axios');\n"
                        "function send(id) { return axios.put('http://store/parcels/' + id, {}); }\n")})
    lines = render(CodeGraph.build(tmp_path))
    assert "E EXPOSES store/app/parcels.ts#Parcels.put -> route:PUT /parcels/{id}" in lines
    assert "E CALLS store/app/parcels.ts#Parcels.put -> store/app/repo.ts#addParcel [static_import]" in lines
    assert any(line.startswith("E HTTP_CALLS client:PUT store /parcels/") and "route:PUT /parcels/{id}" in line
               for line in lines)


@pytest.mark.parametrize("mount, note", [
    ("function mount(health) {\n  app.get('/health', health);\n}\n", "a parameter shadows the function"),
    ("function mount() {\n  const health = pick();\n  app.get('/health', health);\n}\n",
     "a local shadows the function"),
    ("function mount(users) {\n  app.get('/health', users.health);\n}\n", "a parameter shadows the module"),
])
def test_a_name_shadowed_in_the_registering_scope_is_not_the_module_function(tmp_path, mount, note):
    routes = exposed(tmp_path, {
        "shop/users.js": "exports.health = function (req, res) { res.send('users'); };\n",
        "shop/server.js": (
            "const express = require('express');\nconst users = require('./users');\nconst app = express();\n"
            "function health(req, res) { res.send('ok'); }\nconst pick = () => (req, res) => res.send(1);\n"
            + mount + "mount(null);\n")})
    assert routes["GET /health"] == "shop/server.js#mount", note
