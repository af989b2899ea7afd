"""A TypeScript/JavaScript client's URL built by a function of the project (``export const orderUrl = (base, id) =>
`${base}/orders/${id}```, ``export function cartUrl(..) { return base + ".." }``, a class's static method), in the
calling file or imported by name or as a namespace, is folded at the call: the function's returned value with its
parameters bound to the call's arguments; several returns are several values; a callback's return is not its
function's; an instance method and a function calling itself stay unknown."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

PATHS = """export const orderUrl = (base: string, id: number) => `${base}/orders/${id}`;

export function cartUrl(base: string, saved: boolean): string {
  [1].map((x) => { return "http://not-this"; });
  if (saved) {
    return base + "/carts/saved";
  }
  return `${base}/carts/open`;
}

export function deep(base: string): string {
  return deep(base + "/again");
}

export class Paths {
  static stock(base: string) { return base + "/stock"; }
  mine(base: string) { return base + "/mine"; }
}
"""

CALLS = """import axios from 'axios';
import { orderUrl, cartUrl, Paths } from './paths';
import * as paths from './paths';

const BASE = 'http://orders:8080';

const localUrl = (b: string) => b + '/local';

export function one(id: number) { return axios.get(orderUrl(BASE, id)); }
export function cart(saved: boolean) { return axios.get(cartUrl(BASE, saved)); }
export function stock() { return axios.get(Paths.stock(BASE)); }
export function spaced() { return axios.get(paths.orderUrl(BASE, 7)); }
export function local() { return axios.get(localUrl(BASE)); }
export function loop() { return axios.get(paths.deep(BASE)); }
export function mine(p: Paths) { return axios.get(p.mine(BASE)); }
"""


def test_a_url_returned_by_a_function_is_folded_at_each_call(tmp_path: Path):
    root = write_tree(tmp_path / "shop", {
        "web/package.json": '{"name": "web", "dependencies": {"axios": "1"}}\n', "web/Dockerfile": "FROM node\n",
        "web/src/paths.ts": PATHS, "web/src/calls.ts": CALLS})
    nodes, _ = CodeGraph.build(root).snapshot()
    clients = {n.props["declaring_fqn"].rsplit(".", 1)[-1].rpartition("#")[2]: n.props
               for n in nodes.values() if n.kind == "client"}
    assert clients["one"]["target_url"] == "http://orders:8080/orders/{id}"          # arrow function, by name
    assert clients["cart"]["target_url"] == "{http://orders:8080/carts/saved|http://orders:8080/carts/open}"
    assert clients["stock"]["target_url"] == "http://orders:8080/stock"              # a class's static method
    assert clients["spaced"]["target_url"] == "http://orders:8080/orders/7"          # a namespace import
    assert clients["local"]["target_url"] == "http://orders:8080/local"              # the file's own
    assert clients["loop"]["unresolved_reason"] == "the result of deep(...)"
    assert clients["mine"]["unresolved_reason"] == "the result of p.mine(...)"
