"""Next.js API routes from their files' paths: the pages router's ``pages/api`` handlers (methods from the
literal ``req.method`` checks, else any), the app router's ``route.ts`` exports, in a Next.js module only; a
client of another service links to them by path."""

from __future__ import annotations

from pathlib import Path

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
        ("store", "ANY /api/orders", "default"), ("store", "ANY /api/docs/{slug}", "docs"),
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
