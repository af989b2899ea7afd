"""The whole project's code graph in memory, built in full or updated incrementally.

An update walks the tree (`layout.walk.scan`), recomputes the layout only when a build or config file
changed, reads a source file only when its size or mtime changed and parses it only when its content
hash changed (with its language's ``extract``). Then cross-file resolution (`languages.resolver`) runs for
the files that changed and for every unchanged file that looked up something whose digest changed
(`languages.symbols`), so that an incremental update gives exactly the nodes and edges of a full build (a
test compares the two after edits, deletions and renames). Last, part 2 reads the routes, clients and
producers of the frameworks whose input files changed, keeps the others' (`frameworks.read.PartTwo`), and
links them all (`services.links`).

Records (see `model.py`): nodes of kind ``symbol`` (every symbol; ``symbol_kind`` tells which),
``microservice`` and ``module`` (the layout), and edges from the closed set in `model.EDGE_TYPES`. Every
edge of a file's result has its source in that file (or the file's package); the layout's nodes and
edges (microservice -> module -> top-level package/module/file) are recomputed on every update.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from graphlore.tools import Progress

from ..frameworks.read import PartTwo
from ..frameworks.triggers import trigger_edges
from ..languages import registry
from ..languages.symbols import Bound, FileResult, Table, Tracker, digests
from ..layout.entry_points import import_stamps
from ..layout.layout import Layout, detect_layout, layout_sources, settle_deployable
from ..layout.walk import Scan, scan
from ..model import (
    FileContext,
    FileFacts,
    GraphEdge,
    GraphNode,
    content_hash,
    make_edge,
    module_id,
    node_text,
    package_id,
    service_id,
)
from ..services.app_config import app_config
from ..services.aspire import with_aspire
from ..services.config_view import (
    amqp_config,
    client_config,
    deployment_values,
    service_config,
    settings_fields,
)
from ..services.deployment import Deployment, read_deployment
from ..services.dotnet_config import dotnet_config
from ..services.identity import ServiceNames
from ..services.jndi_config import jndi_config
from ..services.links import link
from ..services.settings import Values, module_values
from ..services.unreadable import owner, unreadable_files
from ..services.viper_config import read_services, viper_config, viper_fields


@contextmanager
def _phase(stats: UpdateStats, name: str) -> Iterator[None]:
    clock = time.perf_counter()
    yield
    stats.seconds[name] = stats.seconds.get(name, 0.0) + time.perf_counter() - clock


class FileState(Protocol):
    """What `CodeGraph.restore` needs per file (`persist.FileRecord` has it)."""

    stamp: tuple[int, int]
    ctx: FileContext
    facts: FileFacts
    digests: dict[str, str]
    deps: frozenset[str]


@dataclass(slots=True)
class UpdateStats:
    """What one build or update did (counts and seconds per phase)."""

    files: int = 0
    loc: int = 0
    read: int = 0
    parsed: int = 0
    removed: int = 0
    resolved: int = 0
    layout_changed: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    #: files whose facts changed (parsed again, new or moved to another module)
    changed_paths: list[str] = field(default_factory=list)
    #: files resolved again (their nodes and edges may differ): changed ones and their dependants
    resolved_paths: list[str] = field(default_factory=list)
    #: files that are gone (their nodes and edges are gone too)
    removed_paths: list[str] = field(default_factory=list)
    #: files read again (size or mtime moved), whether or not their content changed
    stamped_paths: list[str] = field(default_factory=list)
    #: the frameworks part 2 read again (the others' items were kept: none of their input files changed)
    frameworks_read: list[str] = field(default_factory=list)


def settings_of(graph: CodeGraph, found: Scan | None = None) -> tuple[Deployment, dict[str, Values]]:
    """The project's deployment files read, and each module's settings (what part 2 folds ``${...}`` placeholders
    and environment variables with); ``found``: this update's scan of the tree, if there is one."""
    assert graph.layout is not None
    deployment = read_deployment(graph.layout, graph.root, list(graph.layout.deployment_files))
    settle_deployable(graph.layout, deployment.run, deployment.started)
    return deployment, module_values(graph.layout, graph.root, deployment,
                                     found.layout_files if found is not None else None)


class CodeGraph:
    """A project's graph: `build` once, then `update` after edits; `snapshot` gives nodes and edges."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        self.facts: dict[str, FileFacts] = {}
        self.stamps: dict[str, tuple[int, int]] = {}
        self.table = Table()
        self.results: dict[str, FileResult] = {}
        self.digests: dict[str, dict[str, str]] = {}
        self.dependents: dict[str, set[str]] = {}
        self.layout: Layout | None = None
        self._layout_key: tuple | None = None
        self.layout_nodes: list[GraphNode] = []
        self.layout_edges: list[GraphEdge] = []
        #: restored without resolving (see `restore`): results of files not resolved since hold no records
        self.partial = False
        #: part 2's records (routes, clients, producers and their links), recomputed after every update
        self.service_nodes: list[GraphNode] = []
        self.service_edges: list[GraphEdge] = []
        self._settings: tuple[Deployment, dict[str, Values]] | None = None
        #: configuration files the readers cannot parse, path -> why (`services.unreadable`), with the settings
        self.unreadable: dict[str, str] = {}
        self._part_two = PartTwo()

    @classmethod
    def build(cls, root: str | Path) -> CodeGraph:
        graph = cls(root)
        graph.update()
        return graph

    @classmethod
    def restore(cls, root: str | Path, files: dict[str, FileState]) -> CodeGraph:
        """A graph that resumes from what an earlier build persisted (see `persist.FileRecord`): every
        file's facts, stamp, layout context, digests and dependency keys, without parsing or resolving.

        Its `results` hold the dependency keys only (the nodes and edges are in the store), so
        `snapshot` is not available; `update` resolves exactly what a warm graph would, and the layout
        is recomputed on the first update (files whose context changed are bound again).
        """
        graph = cls(root)
        graph.partial = True
        for path, state in files.items():
            graph.facts[path] = state.facts
            graph.stamps[path] = state.stamp
            graph.table.add(Bound(state.facts, state.ctx, registry.by_name(state.facts.language)))
            graph.digests[path] = dict(state.digests)
            graph.results[path] = FileResult(deps=state.deps)
            for key in state.deps:
                graph.dependents.setdefault(key, set()).add(path)
        return graph

    # ---- update -------------------------------------------------------------------------------
    def update(self, found: Scan | None = None, progress: Progress | None = None) -> UpdateStats:
        """Bring the graph up to date with the tree (``found``: a walk of it just made, to reuse), reporting
        ``progress`` in files read and files resolved."""
        stats = UpdateStats()
        with _phase(stats, "scan"):
            found = scan(self.root) if found is None else found
        with _phase(stats, "layout"):
            layout_key = (tuple(sorted(found.layout_stamp.items())), tuple(sorted(found.package_dirs)),
                          layout_sources(found), import_stamps(found))
            # the files the layout read besides layout files (a tsconfig's ``extends`` target) count too
            extra = self.layout.input_stamps() if self.layout is not None else None
            if (layout_key, extra) != self._layout_key:
                self.layout = detect_layout(found)
                self._layout_key = (layout_key, self.layout.input_stamps())
                stats.layout_changed = True
        layout = self.layout
        assert layout is not None
        with _phase(stats, "parse"):
            changed = self._read_changed(found, stats, progress)
        with _phase(stats, "invalidate"):
            dirty = self._invalidate(found, layout, changed, stats)
        with _phase(stats, "resolve"):
            self._resolve(dirty, progress)
            stats.resolved = len(dirty)
            stats.resolved_paths = dirty
        with _phase(stats, "services"):
            if stats.layout_changed or self._settings is None:
                self._settings = settings_of(self, found)
                self.unreadable = {**unreadable_files(self.root, found.layout_files), **self._settings[0].unreadable}
        with _phase(stats, "layout_records"):
            self._layout_records(layout)
        with _phase(stats, "services"):
            deployment, settings = self._settings
            running = {path: bound.facts for path, bound in self.table.files.items() if not bound.ctx.is_test}
            deployment = with_aspire(deployment, layout, running)
            names = ServiceNames(layout, deployment)
            config = service_config(layout, settings, deployment, names)
            vipers = read_services(layout, self.root, running)
            settings = self._with_viper_fields(settings, vipers)
            for extra in (dotnet_config(layout, self.root, running), app_config(layout, self.root, running),
                          viper_config(vipers), jndi_config(layout, self.root, running)):
                for service, lines in extra.items():
                    config[service] = list(dict.fromkeys(config.get(service, []) + lines))
            roots = {node.name: node.props["root"] for node in self.layout_nodes if node.kind == "microservice"}
            held = {path: owner(path, roots) for path in self.unreadable}
            for node in self.layout_nodes:
                if node.kind == "microservice":
                    node.props["aliases"] = names.aliases(node.name)
                    mine = [f"{path}: {why}" for path, why in self.unreadable.items() if held[path] == node.name]
                    if mine:
                        node.props["unreadable_files"] = mine
                    if node.name in config:
                        node.props["config"] = config[node.name]
            items = self._part_two.items(self.table, settings)
            stats.frameworks_read = list(self._part_two.read)
            self.service_nodes, self.service_edges = link(items, layout, deployment, names)
            amqp = amqp_config(self.service_nodes)
            for node in self.layout_nodes:   # the bindings its listeners are reached through, in its configuration
                if node.kind == "microservice" and node.name in amqp:
                    node.props["config"] = list(dict.fromkeys(node.props.get("config", []) + amqp[node.name]))
            client_config(self.service_nodes, config, deployment, settings)
            fields = settings_fields([b for b in self.table.files.values() if b.facts.language == "python"], config,
                                     deployment)
            for node in self.layout_nodes:   # hidden: `describe` of each field shows its own (``settings_from``)
                if node.kind == "microservice":
                    node.props.pop("_settings_fields", None)
                    if node.name in fields:
                        node.props["_settings_fields"] = fields[node.name]
                    # hidden: `describe` of a symbol shows where the environment variables its code reads are set
                    node.props["_env_sources"] = {"values": deployment_values(node.name, config, deployment),
                                                  "root_env": deployment.root_env_notes}
            self.service_edges += trigger_edges(self.table, self.root)
        stats.files = len(self.facts)
        stats.loc = sum(f.loc for f in self.facts.values())
        return stats

    def _invalidate(self, found: Scan, layout: Layout, changed: dict[str, FileFacts], stats: UpdateStats) -> list[str]:
        """Drop removed files, bind changed (or moved) ones again, and give every file to resolve: those and
        the files that looked up a key whose digest changed."""
        removed = [path for path in self.facts if path not in found.sources]
        invalid: set[str] = set()
        for path in removed:
            invalid |= set(self.digests.pop(path, {}))
            self.table.remove(path)
            self._forget(path)
            del self.facts[path]
            self.stamps.pop(path, None)
        stats.removed = len(removed)
        stats.removed_paths = sorted(removed)
        self.facts.update(changed)
        rebind = set(changed) | self._share_imports(layout)
        if stats.layout_changed:
            rebind |= {path for path, bound in self.table.files.items()
                       if bound.ctx != layout.context(path, bound.facts.language)}
        for path in sorted(rebind):
            facts = self.facts[path]
            old = self.digests.get(path, {})
            self.table.remove(path)
            bound = Bound(facts, layout.context(path, facts.language), registry.by_name(facts.language))
            self.table.add(bound)
            new = digests(bound)
            self.digests[path] = new
            invalid |= {key for key in old.keys() | new.keys() if old.get(key) != new.get(key)}
        stats.changed_paths = sorted(rebind)
        dirty = set(rebind)
        for key in invalid:
            dirty |= self.dependents.get(key, set())
        return sorted(dirty & set(self.table.files))

    def _share_imports(self, layout: Layout) -> set[str]:
        """The files whose imports shared by their project (`Language.shared_imports`) changed, their facts
        holding the new ones: another file's ``global using`` moves what every file of its project sees."""
        moved: set[str] = set()
        for language in registry.LANGUAGES:
            if language.shared_imports is None:
                continue
            files = {path: (facts, layout.context(path, facts.language)) for path, facts in self.facts.items()
                     if facts.language in language.names}
            for path, facts in language.shared_imports(self.root, files).items():
                self.facts[path] = facts
                moved.add(path)
        return moved

    def _read_changed(self, found: Scan, stats: UpdateStats, progress: Progress | None = None) -> dict[str, FileFacts]:
        changed: dict[str, FileFacts] = {}
        total = len(found.sources)
        for number, (path, source) in enumerate(found.sources.items(), 1):
            if progress is not None:
                progress(number, total, "files read")
            stamp = (source.size, source.mtime_ns)
            old = self.facts.get(path)
            if old is not None and self.stamps.get(path) == stamp and old.language == source.language:
                continue
            try:
                data = (self.root / path).read_bytes()
            except OSError:
                continue
            stats.read += 1
            self.stamps[path] = stamp
            stats.stamped_paths.append(path)
            if old is not None and old.language == source.language:
                if content_hash(data) == old.content_hash:
                    continue
            changed[path] = registry.by_name(source.language).extract(path, data)
            stats.parsed += 1
        return changed

    def _forget(self, path: str) -> None:
        result = self.results.pop(path, None)
        if result is not None:
            for key in result.deps:
                holders = self.dependents.get(key)
                if holders is not None:
                    holders.discard(path)
                    if not holders:
                        del self.dependents[key]

    def _resolve(self, paths: list[str], progress: Progress | None = None) -> None:
        self.table.new_batch()
        tracker = Tracker()
        resolvers = {}
        for number, path in enumerate(paths, 1):
            if progress is not None:
                progress(number, len(paths), "files resolved")
            bound = self.table.files[path]
            language = bound.language
            resolver = resolvers.get(language.name)
            if resolver is None:
                resolver = resolvers[language.name] = language.resolver(self.table, tracker, language)
            self._forget(path)
            result = resolver.resolve_file(bound)
            result.deps = tracker.take()
            self.results[path] = result
            for key in result.deps:
                self.dependents.setdefault(key, set()).add(path)
        self.table.new_batch()

    # ---- the layout's records -------------------------------------------------------------------
    def _with_viper_fields(self, settings: dict[str, Values], vipers: list) -> dict[str, Values]:
        """The settings with each Go module's viper field values (`viper_fields`): a new mapping only when they
        moved, so the frameworks that fold with them read again (part 2 keeps items read from the same settings)."""
        by_service = viper_fields(vipers)
        wanted = {module: {} for module, values in settings.items() if values.config_fields}   # gone since
        wanted |= {module: by_service.get(one.name, {}) for one in vipers for module in one.modules}
        if all((settings.get(module) or Values()).config_fields == fields for module, fields in wanted.items()):
            return settings
        moved = dict(settings)
        for module, fields in wanted.items():
            moved[module] = replace(moved.get(module) or Values(), config_fields=fields)
        assert self._settings is not None
        self._settings = (self._settings[0], moved)
        return moved

    def _layout_records(self, layout: Layout) -> None:
        nodes: dict[str, GraphNode] = {}
        edges: dict[str, GraphEdge] = {}
        files_by_module: dict[str, list[Bound]] = {}
        for bound in self.table.files.values():
            files_by_module.setdefault(bound.ctx.module, []).append(bound)
        services_with_files = {b.ctx.microservice for b in self.table.files.values()}
        for name, service in sorted(layout.services.items()):
            if not service.deployable and name not in services_with_files:
                continue
            sid = service_id(name)
            props = {"name": name, "root": service.root, "modules": list(service.modules),
                     "deployable": service.deployable, "declared_names": dict(service.declared_names),
                     "name_source": service.name_source,
                     "files": sum(1 for b in self.table.files.values() if b.ctx.microservice == name)}
            nodes[sid] = GraphNode(sid, "microservice", name, node_text(name, service.root, "", ""), props)
        module_paths = set(files_by_module) | set(layout.modules)
        for path in sorted(module_paths):
            module = layout.modules.get(path)
            bounds = files_by_module.get(path, [])
            service = module.microservice if module is not None else (
                bounds[0].ctx.microservice if bounds else "")
            if not bounds and (module is None or service_id(service) not in nodes):
                continue   # e.g. an aggregator's own build with no sources: its members carry the services
            mid = module_id(path)
            name = module.name if module is not None else self.root.name
            props = {"path": path, "name": name, "microservice": service,
                     "build_files": list(module.build_files) if module else [],
                     "config_files": list(module.config_files) if module else [],
                     "spring_application_name": module.spring_name if module else None,
                     "files": len(bounds)}
            nodes[mid] = GraphNode(mid, "module", name, node_text(name, path, "", ""), props)
            if service_id(service) in nodes:
                edge = make_edge(service_id(service), "DECLARES", mid)
                edges[edge.id] = edge
            packages: dict[str, list[Bound]] = {}
            for bound in bounds:
                if bound.language.packages:
                    packages.setdefault(bound.facts.package, []).append(bound)
                elif not (bound.language.nested_modules and "." in bound.ctx.module_name):
                    edge = make_edge(mid, "DECLARES", bound.file_id)   # (a nested module's package declares it)
                    edges[edge.id] = edge
            for package, members in sorted(packages.items()):
                pid = package_id(path, package)
                test_only = all(b.ctx.is_test for b in members)
                props = {"fqn": package, "symbol_kind": "package", "language": members[0].facts.language,
                         "microservice": service,
                         "module": path, "file": "", "role": "TEST" if test_only else "OTHER", "capabilities": [],
                         "annotations": [], "modifiers": [], "generated": False, "docstring": "",
                         "signature": f"package {package}" if package else "", "files": len(members)}
                nodes[pid] = GraphNode(pid, "symbol", package or "(default package)",
                                       node_text(package, package, "", ""), props)
                edge = make_edge(mid, "DECLARES", pid)
                edges[edge.id] = edge
        self.layout_nodes = list(nodes.values())
        self.layout_edges = list(edges.values())

    # ---- reading ------------------------------------------------------------------------------
    def snapshot(self) -> tuple[dict[str, GraphNode], dict[str, GraphEdge]]:
        """Every node and edge by id (the layout's and every file's)."""
        if self.partial:
            raise RuntimeError("a restored graph holds the records of the files it resolved since, not all")
        nodes = {n.id: n for n in [*self.layout_nodes, *self.service_nodes]}
        edges = {e.id: e for e in [*self.layout_edges, *self.service_edges]}
        for path in sorted(self.results):
            result = self.results[path]
            for node in result.nodes:
                nodes[node.id] = node
            for edge in result.edges:
                edges[edge.id] = edge
        return nodes, edges

    def context(self, path: str) -> FileContext:
        return self.table.files[path].ctx

