"""Koa routers (``@koa/router``, ``koa-router``): each verb call is a route under the router's ``prefix`` option
and ``prefix()`` calls; Koa's ``app.use`` takes no path, so a router an app uses serves at the root, and one nested
under another router at a path (``parent.use('/p', child.routes())``) or by koa-mount serves under it; a path mount
whose router is not known leaves the routers it may hold with an unknown prefix."""

from __future__ import annotations

from helpers.code_graph import render
from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

ROUTES = """const Router = require('@koa/router');

import { Packages } from './controllers';

export function apiRouter() {
    const router = new Router({
      prefix: '/api'
    });
    router.get('/packages/:packageId', Packages.getById);
    router.put('/packages/:packageId', Packages.upsert);
    router.get('summary', '/packages/summary/:ownerId', Packages.summary);
    return router;
}
"""

APP = """import Koa from 'koa';
import KoaRouter from 'koa-router';
import { apiRouter } from './routes';

const admin = new KoaRouter();
admin.prefix('/admin');
admin
  .del('/cache', async (ctx) => { ctx.status = 204; })
  .all('/ping', async (ctx) => { ctx.body = 'pong'; });

const v2 = KoaRouter();   // koa-router needs no `new`
v2.post('/orders', async (ctx) => { ctx.status = 201; });
admin.use('/v2', v2.routes(), v2.allowedMethods());

export function create() {
    const app = new Koa();
    const api = apiRouter();
    app.use(api.routes());
    app.use(admin.routes());
    return app;
}
"""

MOUNTED = """import Koa from 'koa';
import mount from 'koa-mount';
import Router from '@koa/router';
import { makeRouter } from './other';

const router = Router();
router.get('/items', async (ctx) => { ctx.body = []; });

const app = new Koa();
app.use(mount('/shop', makeRouter().routes()));
app.use(router.routes());
"""

EXPRESS = """const express = require('express');
const app = express();
app.get('/health', (req, res) => res.send('ok'));
app.listen(3000);
"""


def test_koa_routers_prefixes_and_nesting(tmp_path):
    write_tree(tmp_path, {
        "packages/package.json": '{"name": "packages", "dependencies": {"koa": "2", "@koa/router": "12"}}',
        "packages/app/routes.ts": ROUTES, "packages/app/app.ts": APP,
        "packages/app/controllers.ts": "export const Packages = {};\n",
        "shop/package.json": '{"name": "shop", "dependencies": {"koa": "2", "@koa/router": "12"}}',
        "shop/index.js": MOUNTED,
        "web/package.json": '{"name": "web", "dependencies": {"express": "4"}}', "web/index.js": EXPRESS})
    routes = sorted(" ".join(line.split()[:4]) for line in render(CodeGraph.build(tmp_path))
                    if line.startswith("R ") and "framework=koa" in line)
    assert routes == [
        "R ANY /admin/ping framework=koa",
        "R DELETE /admin/cache framework=koa",
        "R GET /api/packages/summary/{ownerId} framework=koa",
        "R GET /api/packages/{packageId} framework=koa",
        "R GET /{?}/items framework=koa",   # koa-mount('/shop', a router not known): this one may be under it
        "R POST /admin/v2/orders framework=koa",
        "R PUT /api/packages/{packageId} framework=koa"]
    # Express is still read as Express, and a Koa `Router()` is no Express router
    assert [" ".join(line.split()[:4]) for line in render(CodeGraph.build(tmp_path))
            if "framework=express" in line] == ["R GET /health framework=express"]


def test_routers_used_without_a_path_nest_under_their_parent_through_module_exports(tmp_path):
    write_tree(tmp_path, {
        "api/package.json": '{"name": "api", "dependencies": {"koa": "2", "koa-router": "7"}}',
        "api/src/routes/index.js": (
            'const Router = require("koa-router")\nconst router = new Router()\nconst api = new Router()\n'
            'const users = require("./users-router")\nconst tags = require("./tags-router")\n'
            'api.use(users)\napi.use(tags.routes())\nrouter.use("/api", api.routes())\nmodule.exports = router\n'),
        "api/src/routes/users-router.js": (
            'const Router = require("koa-router")\nconst router = new Router()\n'
            'router.post("/users/login", async (ctx) => {})\nmodule.exports = router.routes()\n'),
        "api/src/routes/tags-router.js": (
            'const Router = require("koa-router")\nconst router = new Router()\n'
            'router.get("/tags", async (ctx) => {})\nmodule.exports = router\n'),
        "api/src/app.js": ('const Koa = require("koa")\nconst routes = require("./routes")\nconst app = new Koa()\n'
                           'app.use(routes.routes())\n')})
    routes = sorted(" ".join(line.split()[:3]) for line in render(CodeGraph.build(tmp_path))
                    if line.startswith("R ") and "framework=koa" in line)
    assert routes == ["R GET /api/tags", "R POST /api/users/login"]


PREFIXED = """const Koa = require('koa');
const Router = require('@koa/router');

const v1 = new Router({ prefix: '/api' });
v1.prefix('/v1');   // replaces the option for the routes registered after it
v1.get('/x', async (ctx) => { ctx.body = 1; });

const v2 = new Router({ prefix: '/api' });
v2.get('/z', async (ctx) => { ctx.body = 1; });
v2.prefix('/v2');   // puts /v2 before the routes registered already

const chained = new Router().prefix('/chained');
chained.get('/w', async (ctx) => { ctx.body = 1; });

const app = new Koa();
app.use(v1.routes());
app.use(v2.routes());
app.use(chained.routes());
"""


def test_prefix_calls_replace_the_option_for_later_routes_and_go_before_earlier_ones(tmp_path):
    write_tree(tmp_path, {"web/package.json": '{"name": "web", "dependencies": {"koa": "2"}}',
                          "web/app.js": PREFIXED})
    routes = sorted(" ".join(line.split()[:3]) for line in render(CodeGraph.build(tmp_path))
                    if line.startswith("R ") and "framework=koa" in line)
    assert routes == ["R GET /chained/w", "R GET /v1/x", "R GET /v2/api/z"]


STATIC = """const Koa = require('koa');
const Router = require('@koa/router');
const mount = require('koa-mount');
const serve = require('koa-static');

const router = new Router();
router.get('/items', async (ctx) => { ctx.body = []; });

const app = new Koa();
app.use(mount('/public', serve('static')));   // a package's middleware: none of the project's routers
app.use(router.routes());
"""


def test_a_package_middleware_mounted_at_a_path_leaves_the_routers_placed(tmp_path):
    write_tree(tmp_path, {"web/package.json": '{"name": "web", "dependencies": {"koa": "2"}}', "web/app.js": STATIC})
    routes = [" ".join(line.split()[:3]) for line in render(CodeGraph.build(tmp_path))
              if line.startswith("R ") and "framework=koa" in line]
    assert routes == ["R GET /items"]
