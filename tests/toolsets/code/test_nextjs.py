"""Next.js API routes from their files' paths: the pages router's ``pages/api`` handlers (methods from the
literal ``req.method`` checks, else any), the app router's ``route.ts`` exports, in a Next.js module only; a
client of another service links to them by path."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

FILES = {
    "store/package.json": '{"name": "store", "dependencies": {"next": "14.2.0"}}\n',
    "store/next.config.js": "module.exports = { reactStrictMode: true };\n",
    "store/Dockerfile": "FROM node:20\n",
    "store/pages/api/orders/[id].ts": '''export default async function handler(req, res) {
  if (req.method === 'DELETE') {
    return res.status(204).end();
  }
  switch (req.method) {
    case 'GET':
      return res.json({});
    default:
      return res.status(405).end();
  }
}
''',
    "store/pages/api/orders/index.js": "export default (req, res) => res.json([]);\n",
    "store/pages/api/carts/[user].ts": '''const handler = async (req, res) => {
  const { method } = req;
  switch (method) {
    case 'POST':
      return res.status(201).end();
    default:
      return res.json({});
  }
};

export default handler;
''',
    "store/pages/api/docs/[...slug].ts": "export default function docs(req, res) { res.end(); }\n",
    "store/pages/api/_helpers.ts": "export const shared = 1;\n",
    "store/pages/about.tsx": "export default function About() { return null; }\n",
    "store/src/app/(shop)/items/[sku]/route.ts": '''import { NextResponse } from 'next/server';

export async function GET(request: Request) {
  return NextResponse.json({});
}

const update = async (request: Request) => NextResponse.json({});
export { update as PUT };
export const dynamic = 'force-dynamic';
''',
    "store/src/app/_drafts/route.ts": "export function GET() { return new Response(''); }\n",
    "legacy/package.json": '{"name": "legacy"}\n',
    "legacy/Dockerfile": "FROM node:20\n",
    "legacy/pages/api/ping.js": "export default function ping(req, res) { res.end(); }\n",
    "checkout/package.json": '{"name": "checkout"}\n',
    "checkout/Dockerfile": "FROM node:20\n",
    "checkout/index.js": '''async function run(id) {
  await fetch(`http://store:3000/api/orders/${id}`, { method: 'DELETE' });
  await fetch('http://store:3000/items/abc');
}
''',
}


def test_nextjs_api_routes_come_from_file_paths_and_link(tmp_path: Path):
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    nodes, edges = CodeGraph.build(tmp_path).snapshot()
    routes = {(n.props["microservice"], n.props["label"], n.props["handler_fqn"].rsplit("#", 1)[-1])
              for n in nodes.values() if n.kind == "route"}
    assert routes == {
        ("store", "DELETE /api/orders/{id}", "handler"), ("store", "GET /api/orders/{id}", "handler"),
        ("store", "ANY /api/orders", "default"), ("store", "ANY /api/docs/{slug}/**", "docs"),
        ("store", "POST /api/carts/{user}", "handler"),
        ("store", "GET /items/{sku}", "GET"), ("store", "PUT /items/{sku}", "update")}
    links = {(nodes[e.src].props["label"], nodes[e.dst].props["label"], e.props["match"])
             for e in edges.values() if e.type == "HTTP_CALLS"}
    assert links == {("DELETE store /api/orders/{id}", "DELETE /api/orders/{id}", "cross_service"),
                     ("GET store /items/abc", "GET /items/{sku}", "cross_service")}


def test_an_update_that_makes_a_module_a_nextjs_one_equals_a_full_build(tmp_path: Path):
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = CodeGraph.build(tmp_path)
    (tmp_path / "legacy/next.config.mjs").write_text("export default {};\n")
    graph.update()
    nodes, _ = graph.snapshot()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()
    assert any(n.kind == "route" and n.props["microservice"] == "legacy" and n.props["label"] == "ANY /api/ping"
               for n in nodes.values())


BASE_PATH = {
    "docs/package.json": '{"name": "docs", "dependencies": {"next": "14.2.0"}}\n',
    "docs/next.config.mjs": "// basePath: '/old',\nconst base = '/docs';\n"
                            "export default { reactStrictMode: true, basePath: base };\n",
    "docs/Dockerfile": "FROM node:20\n",
    "docs/pages/api/search/[[...terms]].ts": "export default function search(req, res) { res.end(); }\n",
    "docs/app/api/files/[...path]/route.ts": "export async function GET() { return new Response(''); }\n",
    "env/package.json": '{"name": "env", "dependencies": {"next": "14.2.0"}}\n',
    "env/next.config.js": "module.exports = { basePath: process.env.BASE_PATH };\n",
    "env/Dockerfile": "FROM node:20\n",
    "env/pages/api/ping.js": "export default function ping(req, res) { res.end(); }\n",
    "reader/package.json": '{"name": "reader"}\n',
    "reader/Dockerfile": "FROM node:20\n",
    "reader/index.js": """async function run() {
  await fetch('http://docs:3000/docs/api/files/guides/intro.md');
  await fetch('http://docs:3000/docs/api/search');
  await fetch('http://docs:3000/api/search/x');
}
""",
}


def test_base_path_prefixes_every_route_and_catch_alls_take_the_rest(tmp_path: Path):
    for rel, text in BASE_PATH.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = CodeGraph.build(tmp_path)
    nodes, edges = graph.snapshot()
    routes = {(n.props["microservice"], n.props["label"]): n.props for n in nodes.values() if n.kind == "route"}
    assert set(routes) == {("docs", "ANY /docs/api/search/**"), ("docs", "GET /docs/api/files/{path}/**"),
                           ("env", "ANY {?}/api/ping")}
    assert "process.env.BASE_PATH" in str(routes[("env", "ANY {?}/api/ping")]["unresolved_reason"])
    links = {(nodes[e.src].props["label"], nodes[e.dst].props.get("label", nodes[e.dst].name), e.props["match"])
             for e in edges.values() if e.type == "HTTP_CALLS"}
    assert links == {   # the path without the basePath reaches no route: said, never guessed
        ("GET docs /docs/api/files/guides/intro.md", "GET /docs/api/files/{path}/**", "cross_service"),
        ("GET docs /docs/api/search", "ANY /docs/api/search/**", "cross_service"),
        ("GET docs /api/search/x", "docs", "no_route")}
    (tmp_path / "docs/next.config.mjs").write_text("export default { basePath: '/manual' };\n")
    graph.update()
    assert graph.snapshot() == CodeGraph.build(tmp_path).snapshot()   # a changed basePath: incremental == full
    assert any(n.kind == "route" and n.props["label"] == "ANY /manual/api/search/**" for n in graph.snapshot()[0].values())


def test_a_pages_handler_wrapped_in_a_call_is_the_files_route(tmp_path: Path):
    """``export default NextAuth(authOptions)`` and ``export default withAuth(handler)``: the default export is a
    call's result (before: no route)."""
    files = {
        "web/package.json": '{"name": "web", "dependencies": {"next": "14.2.0"}}\n',
        "web/next.config.mjs": "export default { reactStrictMode: true };\n",
        "web/pages/api/auth/[...nextauth].ts": 'import NextAuth from "next-auth"\nimport { authOptions } from '
                                              '"../../../lib/auth"\n\nexport default NextAuth(authOptions)\n',
        "web/pages/api/me.ts": "import { withAuth } from '../../lib/auth';\n\nasync function me(req, res) {\n"
                               "  if (req.method === 'GET') return res.json({});\n}\n\nexport default withAuth(me);\n",
        "web/pages/api/config.ts": "export default { runtime: 'edge' };\n",
    }
    nodes, _ = CodeGraph.build(write_tree(tmp_path, files)).snapshot()
    routes = {(n.props["label"], n.props["file"], n.props["line"]) for n in nodes.values() if n.kind == "route"}
    assert routes == {("ANY /api/auth/{nextauth}/**", "web/pages/api/auth/[...nextauth].ts", 4),
                      ("GET /api/me", "web/pages/api/me.ts", 7)}
