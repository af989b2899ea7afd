"""TypeScript/JavaScript module path aliases: tsconfig ``paths`` (with ``extends`` and ``baseUrl``, comments
and trailing commas as tsconfig allows), a bare ``baseUrl``, and a bundler's literal ``resolve.alias``: an
aliased import reaches the project file (an index file, an extension tried), so its calls resolve; a
specifier no alias maps, or that maps to no project file, stays an external package."""

from __future__ import annotations

from pathlib import Path

from helpers import backend
from helpers.code_graph import bump, render

from graphlore.runtime import Runtime
from graphlore.toolsets.code.index.code_index import CodeIndex
from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.languages.typescript.aliases import aliased, read_aliases, read_jsonc

SERVICE = '''export class OrdersService {
  static listOrders() { return 1; }
}
export function formatMoney(x: number) { return `${x}`; }
'''
APP = '''import { OrdersService } from "@/api";
import { formatMoney } from "~lib/money";
import { debounce } from "lodash";
import { Missing } from "@/nowhere";

export function Page() {
  OrdersService.listOrders();
  formatMoney(3);
  debounce(1);
  Missing.go();
}
'''

#: a front end whose page imports ``@/api`` with no alias file
WITHOUT_ALIASES = {
    "web/package.json": '{"name": "web"}',
    "web/src/api/index.ts": 'export { OrdersService } from "./orders.gen";\n',
    "web/src/api/orders.gen.ts": SERVICE,
    "web/src/pages/Page.tsx": APP,
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _calls(root: Path) -> set[str]:
    """The project symbols ``Page`` calls (by fqn)."""
    nodes, edges = CodeGraph.build(root).snapshot()
    page = next(n.id for n in nodes.values() if n.props.get("fqn") == "web/src/pages/Page.tsx#Page")
    return {nodes[e.dst].props["fqn"] for e in edges.values() if e.src == page and e.type == "CALLS"}


def test_tsconfig_paths_through_extends_resolve_aliased_imports(tmp_path: Path):
    root = _write(tmp_path / "shop", {
        "web/package.json": '{"name": "web"}',
        "web/tsconfig.base.json": '{\n  // shared\n  "compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["./src/*"],},},\n}\n',
        "web/tsconfig.json": '{"extends": "./tsconfig.base.json", "compilerOptions": {"strict": true /* "@/x" */}}',
        "web/vite.config.ts": "import path from 'path'\nexport default { resolve: { alias: {\n"
                              "  '~lib': path.resolve(__dirname, './src/lib'),\n} } }\n",
        "web/src/api/index.ts": 'export { OrdersService } from "./orders.gen";\n',
        "web/src/api/orders.gen.ts": SERVICE,
        "web/src/lib/money.ts": SERVICE.replace("OrdersService", "Other"),
        "web/src/pages/Page.tsx": APP,
    })
    # through @/api's index file and its re-export, and the bundler alias (not lib/money's twin names)
    assert _calls(root) == {"web/src/api/orders.gen.ts#OrdersService.listOrders", "web/src/lib/money.ts#formatMoney"}


def test_without_an_alias_file_the_import_stays_external(tmp_path: Path):
    root = _write(tmp_path / "shop", WITHOUT_ALIASES)
    assert "web/src/api/orders.gen.ts#OrdersService.listOrders" not in _calls(root)


def test_alias_matching_follows_typescript():
    table = (("*", ("src/*",)), ("@/*", ("src/*", "gen/*")), ("@app", ("src/app/main",)))
    assert aliased(table, "@/client") == ["src/client", "gen/client", "src/@/client"]
    assert aliased(table, "@app") == ["src/app/main", "src/@app"]
    assert aliased((("@/*", ("src/*",)),), "react") == []


def test_tsconfig_comments_inside_strings_are_kept(tmp_path: Path):
    path = tmp_path / "tsconfig.json"
    path.write_text('{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}, // c\n "a": "http://x" /* y */,}')
    assert read_jsonc(path) == {"compilerOptions": {"paths": {"@/*": ["./src/*"]}}, "a": "http://x"}


def test_an_alias_added_later_updates_like_a_full_build(tmp_path: Path):
    """A tsconfig change moves the layout: the importing files resolve again (incremental == full)."""
    root = _write(tmp_path / "shop", WITHOUT_ALIASES)
    graph = CodeGraph.build(root)
    (root / "web/tsconfig.json").write_text('{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}')
    bump(root / "web/tsconfig.json")
    stats = graph.update()
    assert stats.layout_changed
    assert render(graph) == render(CodeGraph.build(root))
    assert any("Page -> web/src/api/orders.gen.ts#OrdersService.listOrders" in line for line in render(graph))


def test_a_restored_index_keeps_its_aliases_and_resolves_only_what_changed(tmp_path: Path, embedder):
    """The stored record of a file holds its import aliases: after a restart, one edited file is resolved again,
    not every file whose context lost its aliases on the way through the store."""
    root = _write(tmp_path / "shop", {**WITHOUT_ALIASES,
                                      "web/tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}'})
    home = tmp_path / "home"
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    CodeIndex(runtime, root).sync()
    runtime.close()
    other = root / "web/src/api/index.ts"
    other.write_text(other.read_text() + "// edited\n")
    bump(other)
    runtime = Runtime(backend.settings_for(home), embedder=embedder)
    try:
        report = CodeIndex(runtime, root).sync()
    finally:
        runtime.close()
    assert report.restored and (report.parsed, report.resolved) == (1, 1)


def test_a_vite_root_path_is_the_config_folder_not_the_tree_root(tmp_path: Path):
    """``'@': '/src'`` in ``web/vite.config.ts`` is ``web/src`` (Vite's root), never the tree's own ``src``."""
    root = _write(tmp_path / "shop", {
        "package.json": '{"name": "root"}',
        "src/api/index.ts": SERVICE,
        **{k: v for k, v in WITHOUT_ALIASES.items()},
        "web/vite.config.ts": "export default { resolve: { alias: { '@': '/src' } } }\n",
    })
    assert _calls(root) == {"web/src/api/orders.gen.ts#OrdersService.listOrders"}


def test_a_folder_tsconfig_without_paths_takes_no_alias_from_above(tmp_path: Path):
    """The nearest tsconfig governs a file: one without ``paths`` (and no ``extends``) maps no ``@/``, so a
    root tsconfig's ``@/*`` does not reach into another project's files."""
    root = _write(tmp_path / "shop", {
        "tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}',
        "src/api/index.ts": SERVICE,
        "web/package.json": '{"name": "web"}',
        "web/tsconfig.json": '{"compilerOptions": {"strict": true}}',
        "web/src/pages/Page.tsx": APP,
    })
    assert _calls(root) == set()


def test_an_extends_target_of_any_name_updates_like_a_full_build(tmp_path: Path):
    """``"extends": "./configs/base.json"`` (no tsconfig name): an edit of that file moves the layout too."""
    root = _write(tmp_path / "shop", {**WITHOUT_ALIASES, "web/tsconfig.json": '{"extends": "./configs/base.json"}',
                                      "web/configs/base.json": '{"compilerOptions": {"paths": {"@/x/*": ["../src/*"]}}}'})
    graph = CodeGraph.build(root)
    (root / "web/configs/base.json").write_text('{"compilerOptions": {"paths": {"@/*": ["../src/*"]}}}')
    bump(root / "web/configs/base.json")
    assert graph.update().layout_changed
    assert render(graph) == render(CodeGraph.build(root))
    assert any("Page -> web/src/api/orders.gen.ts#OrdersService.listOrders" in line for line in render(graph))
    assert not graph.update().layout_changed   # and an update with nothing changed reads no layout again


def test_a_bundler_alias_joins_every_path_segment(tmp_path: Path):
    """``path.resolve(__dirname, 'src', 'components')`` is ``web/src/components`` (only ``src`` was taken)."""
    (tmp_path / "web").mkdir()
    (tmp_path / "web/vite.config.ts").write_text(
        "import path from 'path'\nexport default { resolve: { alias: [\n"
        "  { find: '@c', replacement: path.resolve(__dirname, 'src', 'components') },\n] } }\n")
    (tmp_path / "web/webpack.config.js").write_text(
        "module.exports = { resolve: { alias: { '@': path.join(__dirname, 'src'), 'x': 'lib/x' } } };\n")
    assert dict(read_aliases(tmp_path, "web", ["vite.config.ts", "webpack.config.js"])) == {
        "@c": ("web/src/components",), "@c/*": ("web/src/components/*",), "@": ("web/src",), "@/*": ("web/src/*",),
        "x": ("web/lib/x",), "x/*": ("web/lib/x/*",)}
