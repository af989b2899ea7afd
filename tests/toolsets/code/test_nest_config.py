"""NestJS configuration values: ``configService.get('endpoints.orders')`` on an injected ``ConfigService`` reads the
configuration factories ``ConfigModule.forRoot({load: [...]})`` loads (a default-exported factory imported by name,
an arrow written in the array) and ``registerAs('ns', ...)`` namespaces; the environment variable a factory reads is
settled by the deployment. A class built from a constructor parameter takes what each construction passes, also
when the constructing file imports the class through a barrel's re-export (``export { X } from './X'``)."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.typescript.constants import ScriptFolder
from graphlore.toolsets.code.languages.typescript.extract import extract

MODULE = (
    "import { Module } from '@nestjs/common';\nimport { ConfigModule, ConfigService } from '@nestjs/config';\n"
    "import { OrdersClient } from './orders';\n\n"
    "const ordersProvider = {\n  provide: 'Orders',\n  useFactory: (config: ConfigService) => {\n"
    "    const url = config.get('endpoints.orders');\n    return new OrdersClient(url);\n  },\n"
    "  inject: [ConfigService],\n};\n\n"
    "@Module({ imports: [ConfigModule], providers: [ordersProvider] })\nexport class ShopModule {}\n")

TREE = {
    "shop/package.json": '{"name": "shop"}\n',
    "shop/src/config.ts": "export default () => ({\n  endpoints: {\n    orders: process.env.SHOP_ORDERS_URL || '',\n"
                          "  },\n});\n",
    "shop/src/app.module.ts": "import { Module } from '@nestjs/common';\nimport { ConfigModule } from '@nestjs/config';\n"
                              "import settings from './config';\n\n"
                              "@Module({ imports: [ConfigModule.forRoot({ load: [settings] })] })\n"
                              "export class AppModule {}\n",
    "shop/src/shop.module.ts": MODULE,
    "shop/src/orders/index.ts": "export { OrdersClient } from './OrdersClient';\n",
    "shop/src/orders/OrdersClient.ts":
        "export class OrdersClient {\n  private base: string;\n\n  constructor(endpoint: string) {\n"
        "    this.base = endpoint;\n  }\n\n  place(body: object) {\n"
        "    return fetch(`${this.base}/orders`, { method: 'POST', body: JSON.stringify(body) });\n  }\n}\n",
    "orders/package.json": '{"name": "orders"}\n',
    "orders/index.js": "const express = require('express');\nconst app = express();\n"
                       "app.post('/orders', (req, res) => res.json({}));\napp.listen(8080);\n",
    "docker-compose.yml": "services:\n  shop:\n    build: ./shop\n    environment:\n"
                          "      SHOP_ORDERS_URL: http://orders:8080\n  orders:\n    build: ./orders\n",
}


def test_a_client_built_from_a_nest_configuration_value_links(tmp_path: Path):
    nodes, edges = CodeGraph.build(write_tree(tmp_path / "sys", TREE)).snapshot()
    clients = [n for n in nodes.values() if n.kind == "client" and n.props["file"].endswith("OrdersClient.ts")]
    linked = {nodes[e.dst].props["microservice"] + " " + nodes[e.dst].props["label"]
              for client in clients for e in edges.values() if e.src == client.id and e.type == "HTTP_CALLS"}
    assert linked == {"orders POST /orders"}


def _fold(files: dict[str, str], path: str, owner: str, line: int, expr: str):
    facts = {p: extract(p, text.encode()) for p, text in files.items()}
    return ScriptFolder(facts, path).at(facts[path], owner, line).fold(expr)


def test_registered_namespaces_and_arrays_written_in_place_are_read():
    files = {
        "src/app.module.ts": "import { ConfigModule, registerAs } from '@nestjs/config';\n"
                             "export const db = registerAs('db', () => ({ url: process.env.DB_URL }));\n"
                             "const m = ConfigModule.forRoot({ load: [db, () => ({ api: { base: 'http://api:80' } })] });\n",
        "src/reader.ts": "import { ConfigService } from '@nestjs/config';\n\nexport class Reader {\n"
                         "  constructor(private readonly config: ConfigService) {}\n\n"
                         "  urls() {\n    return [this.config.get('db.url'), this.config.getOrThrow('api.base')];\n  }\n}\n",
    }
    assert _fold(files, "src/reader.ts", "Reader.urls", 7, "this.config.get('api.base')").text == "http://api:80"
    db = _fold(files, "src/reader.ts", "Reader.urls", 7, "this.config.getOrThrow('db.url')")
    assert "DB_URL" in db.text and not db.known


def test_a_key_no_factory_sets_is_not_guessed():
    files = {
        "src/app.module.ts": "import { ConfigModule } from '@nestjs/config';\n"
                             "const m = ConfigModule.forRoot({ load: [() => ({ api: { base: 'http://api:80' } })] });\n",
        "src/reader.ts": "import { ConfigService } from '@nestjs/config';\n\n"
                         "export function make(config: ConfigService) {\n  return config.get('api.other');\n}\n",
    }
    missing = _fold(files, "src/reader.ts", "make", 4, "config.get('api.other')")
    assert not missing.known and "no configuration factory the service loads sets it" in missing.why[0]
    # a key written as an environment variable's name is read from the environment, as NestJS does
    assert "PORT" in _fold(files, "src/reader.ts", "make", 4, "config.get('PORT')").text


def test_a_get_of_another_class_is_no_configuration_read():
    files = {
        "src/app.module.ts": "import { ConfigModule } from '@nestjs/config';\n"
                             "const m = ConfigModule.forRoot({ load: [() => ({ api: { base: 'http://api:80' } })] });\n",
        "src/reader.ts": "import { ConfigService } from '@nestjs/config';\n\n"
                         "export function make(cache: Map<string, string>) {\n  return cache.get('api.base');\n}\n",
    }
    assert not _fold(files, "src/reader.ts", "make", 4, "cache.get('api.base')").known
