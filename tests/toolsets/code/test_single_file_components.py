"""Vue and Svelte single-file components are read as the code of their ``<script>`` blocks (``<script>``,
``<script setup lang="ts">``, Svelte's ``<script context="module">``), at the component's own lines; and an axios
instance's URL that is not absolute is a path under its ``baseURL``, with or without a leading ``/`` (axios's
``combineURLs``), never a host."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import orders_service, write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.typescript.extract import component_script, extract

API = """import axios from "axios";

export const HTTP = axios.create({ baseURL: "http://orders:8000/" });
"""

OPTIONS_API = """<template>
  <div class="orders" @click="load(order.id)">
    <span v-for="o in orders">{{ o.name }}</span>
  </div>
</template>

<script>
import { HTTP } from "../api";

export default {
  name: "OrderList",
  methods: {
    load(id) {
      return HTTP.get(`orders/${id}`);
    },
  },
};
</script>

<style scoped>
.orders { color: red; }
</style>
"""

SETUP_TS = """<script setup lang="ts">
import { HTTP } from "../api";

async function place(body: object): Promise<void> {
  await HTTP.post("orders", body);
}
</script>

<template>
  <button @click="place({})">Order</button>
</template>
"""

SVELTE = """<script context="module">
  export const prerender = false;
</script>

<script>
  import { HTTP } from "./api";

  function reorder(id) {
    return HTTP.post("orders", { id });
  }
</script>

<button on:click={() => reorder(1)}>Again</button>
"""


def _tree(root: Path) -> Path:
    return write_tree(root, {
        **orders_service(),
        "web/package.json": '{"name": "web", "dependencies": {"vue": "^3.4.0", "axios": "^1.6.0"}}',
        "web/Dockerfile": "FROM node:20\n",
        "web/src/api.js": API,
        "web/src/components/OrderList.vue": OPTIONS_API,
        "web/src/components/PlaceOrder.vue": SETUP_TS,
        "web/src/Reorder.svelte": SVELTE.replace('"./api"', '"./api.js"')})


def _clients(root: Path) -> dict[tuple[str, int], tuple[str, str]]:
    nodes, _ = CodeGraph.build(root).snapshot()
    return {(n.props["file"], n.props["line"]): (n.props["label"], n.props["match"])
            for n in nodes.values() if n.kind == "client"}


def test_script_blocks_are_read_at_the_components_lines():
    code, typed, tsx = component_script(OPTIONS_API.encode())
    assert (typed, tsx) == (False, False) and len(code) == len(OPTIONS_API.encode())
    assert code.count(b"\n") == OPTIONS_API.count("\n") and b"<template>" not in code and b"color" not in code
    facts = extract("web/src/components/OrderList.vue", OPTIONS_API.encode())
    [call] = [c for c in facts.calls if c.name == "get"]
    assert call.line == 14
    facts = extract("web/src/components/PlaceOrder.vue", SETUP_TS.encode())
    assert facts.language == "typescript"
    assert [s.name for s in facts.symbols if s.kind == "function"] == ["place"]


def test_component_calls_through_an_imported_axios_instance_link(tmp_path: Path):
    clients = _clients(_tree(tmp_path / "shop"))
    assert clients[("web/src/components/OrderList.vue", 14)] == ("GET orders /orders/{id}", "cross_service")
    assert clients[("web/src/components/PlaceOrder.vue", 5)] == ("POST orders /orders", "cross_service")
    assert clients[("web/src/Reorder.svelte", 9)] == ("POST orders /orders", "cross_service")


def test_a_relative_url_under_an_unknown_base_is_no_host(tmp_path: Path):
    """``HTTP.get("orders")`` on an instance whose ``baseURL`` is not known: the start is unknown, and ``orders`` is
    never read as a host (before: ``GET orders /``, a service named by a path segment)."""
    root = _tree(tmp_path / "shop")
    (root / "web/src/api.js").write_text(API.replace('"http://orders:8000/"', "process.env.VUE_APP_API"))
    clients = _clients(root)
    label, match = clients[("web/src/components/PlaceOrder.vue", 5)]
    assert match == "unresolved" and label.startswith("POST ? ") and label.endswith("/orders"), label


def test_a_url_that_starts_with_a_variable_stays_whole_on_an_instance(tmp_path: Path):
    """``api.post(process.env.PAYMENTS_URL + "/orders")`` on an instance with a ``baseURL``: whether the variable's value
    is absolute is known only once it is settled, so the base is not put in front of it (before: ``POST orders
    /http:/payments:8000/orders``, a link to the instance's service)."""
    root = write_tree(tmp_path / "shop", {
        **orders_service(), **orders_service("payments"),
        "docker-compose.yml": "services:\n  orders:\n    build: ./orders\n  payments:\n    build: ./payments\n"
                              "  web:\n    build: ./web\n    environment:\n      PAYMENTS_URL: http://payments:8000\n",
        "web/package.json": '{"name": "web", "dependencies": {"axios": "^1.6.0"}}', "web/Dockerfile": "FROM node:20\n",
        "web/src/api.js": API,
        "web/src/pay.js": 'import { HTTP } from "./api";\n\n'
                          'export const pay = () => HTTP.post(process.env.PAYMENTS_URL + "/orders");\n'})
    assert _clients(root)[("web/src/pay.js", 3)] == ("POST payments /orders", "cross_service")


def test_a_relative_url_without_a_base_is_no_host(tmp_path: Path):
    """``axios.get("orders")`` (no ``baseURL``): a path relative to the page or process, never a host ``orders``
    (before: ``GET orders /``, linked to the service ``orders``)."""
    root = write_tree(tmp_path / "shop", {
        **orders_service(),
        "web/package.json": '{"name": "web", "dependencies": {"axios": "^1.6.0"}}', "web/Dockerfile": "FROM node:20\n",
        "web/src/list.js": 'import axios from "axios";\n\nexport const list = () => axios.get("orders");\n'})
    label, match = _clients(root)[("web/src/list.js", 3)]
    assert match == "unresolved" and label.startswith("GET ? ") and label.endswith("/orders"), label


DOCS_AND_COMMENTS = """<template>
  <div v-if="open"><template v-if="a"><b>x</b></template></div>
</template>

<script setup lang="ts" generic="T extends Record<string, unknown>">
import { HTTP } from "../api";

const open = (id: T) => HTTP.get(`orders/${id}`);
</script>

<docs>
```vue
<script>
export default { mounted() { HTTP.delete("orders/1"); } };
</script>
```
</docs>

<!-- <script>HTTP.put("orders/2")</script> -->
"""

SVELTE_HEAD = """<script>
  import { HTTP } from "./api.js";
  const reorder = (id) => HTTP.post("orders", { id });
</script>

<svelte:head>
  <script type="application/ld+json">{ "@context": "https://schema.org", "name": "shop" }</script>
  <script>window.dataLayer.push({ event: "view" });</script>
</svelte:head>

<br>
<p>Again</p>
"""


def test_only_the_components_own_script_blocks_are_code():
    """A ``<script>`` inside a custom block (``<docs>``' example), an HTML comment or an element (Svelte's
    ``<svelte:head>``) is not the component's code; an attribute value may hold ``>`` (``generic="T extends
    Record<string, unknown>"``)."""
    facts = extract("web/src/components/Open.vue", DOCS_AND_COMMENTS.encode())
    assert facts.language == "typescript"
    assert [(c.name, c.line) for c in facts.calls if c.name in ("get", "delete", "put")] == [("get", 8)]
    facts = extract("web/src/Reorder.svelte", SVELTE_HEAD.encode())
    assert [(c.name, c.line) for c in facts.calls] == [("post", 3)]


def test_a_tsx_block_is_read_with_the_tsx_grammar():
    component = b'<script lang="tsx">\nexport const Row = () => <div onClick={() => HTTP.get("orders/1")} />;\n</script>\n'
    assert component_script(component)[1:] == (True, True)
    assert [(c.name, c.line) for c in extract("web/src/Row.vue", component).calls] == [("get", 2)]
