"""``graphlore stores``, ``graphlore drop`` and ``graphlore doctor``: see what is stored, forget it, check the setup.

The commands read the toolsets' :class:`~graphlore.tools.StoreKind` declarations
through the registry (what each namespace holds, which locks its writers take)
and the backend through the store factory (:mod:`graphlore.catalog`), so they
work the same on SQLite and PostgreSQL.

``drop`` deletes a store for good, so it shows what it will delete (what the store
holds, its size) and asks on a terminal; ``--yes`` answers for scripts, and
without a terminal it refuses rather than guess. It first takes the namespace
locks the toolset's writers hold across transactions (an index update), so it
waits for an update in progress rather than cut it in half, and a namespace's
own namespaces (the ``skills/NAME/usage`` an older version kept under ``skills/NAME``) go with it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager

import click
from pydantic import Field

from graphlore.adapters.flags import Documented
from graphlore.catalog import (
    Catalog,
    StoreInfo,
    catalog,
    describe,
    human_size,
    project_stores,
    real_folder,
    toolset_of,
)
from graphlore.config import Settings
from graphlore.contract import Response
from graphlore.doctor import LLMInfo, Report, diagnose
from graphlore.errors import InvalidInput, NotFound
from graphlore.render import table
from graphlore.store import factory
from graphlore.tools import StoreKind
from graphlore.toolsets import ExtraMissing, load_toolset

#: After this long waiting for a namespace lock, ``drop`` says what it waits for.
WAIT_NOTICE_S = 1.0
JSON_HELP = "Print the result as JSON."


class DropResponse(Response):
    dropped: list[StoreInfo] = Field(description="What was deleted, as graphlore stores listed it.")


def store_kinds(registry: Mapping[str, str]) -> dict[str, StoreKind]:
    """Each registered toolset's store declaration (toolsets that keep nothing in the store, or whose extra is
    not installed, left out: their stores are listed without a toolset)."""
    kinds = {}
    for name in registry:
        try:
            kind = load_toolset(name, registry).stores
        except ExtraMissing:
            continue
        if kind is not None:
            kinds[name] = kind
    return kinds


def interactive() -> bool:
    """Whether a person can answer a question (stdin is a terminal)."""
    return sys.stdin.isatty()


# -- graphlore stores -------------------------------------------------------------------------------------


def when(iso: str | None) -> str:
    """``2026-11-27T14:03:12Z`` as ``2026-11-27 14:03 UTC``."""
    return f"{iso[:16].replace('T', ' ')} UTC" if iso else "not recorded"


def what(info: StoreInfo) -> str:
    """One store in a sentence: namespace (toolset, what it holds, size)."""
    holds = info.label or "unlabelled"
    return f"{info.namespace} ({info.toolset or 'no toolset'}: {holds}, {human_size(info.size_bytes)})"


def render_catalog(found: Catalog) -> str:
    where = f"on SQLite under {found.location}" if found.backend == "sqlite" else f"on PostgreSQL {found.location}"
    if not found.stores:
        return f"no stores {where} (nothing indexed, ingested or imported yet)"
    rows = [{"namespace": s.namespace, "toolset": s.toolset or "-", "holds": s.label or "(not recorded)",
             "size": human_size(s.size_bytes), "last write": when(s.last_write),
             "embedder": f"{s.embedder.name} ({s.embedder.dim})" if s.embedder else "-"} for s in found.stores]
    lines = [f"{len(found.stores)} store(s) {where}", "",
             table(rows, ["namespace", "toolset", "holds", "size", "last write", "embedder"],
                   {"holds": 70, "embedder": 50})]
    notes = [f"{s.namespace} cannot be read: [{s.problem.code}] {s.problem.message}" for s in found.stores
             if s.problem]
    if any(s.label is None and s.problem is None and s.toolset for s in found.stores):
        notes.append("(not recorded): the store does not say what it holds (made by an older graphlore, or its "
                     "first index never finished); `graphlore drop NAMESPACE` removes it")
    if any(s.last_write is None and s.problem is None for s in found.stores):
        notes.append("last write not recorded: no write since graphlore began to record it")
    return "\n".join([*lines, *([""] + notes if notes else [])])


def stores_command(registry: Mapping[str, str]) -> click.Command:
    @click.command("stores", cls=Documented, examples=("graphlore stores", "graphlore stores --json"))
    @click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
    def stores(as_json: bool) -> None:
        """List every store on the configured backend: what it holds, size, last write, embedder."""
        found = catalog(Settings.load(), store_kinds(registry))
        click.echo(found.model_dump_json(indent=2) if as_json else render_catalog(found))

    return stores


# -- graphlore drop ---------------------------------------------------------------------------------------


def _chosen(settings: Settings, kinds: Mapping[str, StoreKind], namespace: str | None, project: str | None,
            toolset: str | None) -> str:
    """The namespace the command line names (one, or an error saying what exists)."""
    if (namespace is None) == (project is None):
        raise InvalidInput("name one store: graphlore drop NAMESPACE, or graphlore drop --project PATH "
                           "(graphlore stores lists them)")
    if toolset is not None and project is None:
        raise InvalidInput("--toolset goes with --project PATH (a NAMESPACE names its toolset already)")
    present = factory.list_namespaces(settings)
    where = factory.backend_location(settings)
    if namespace is not None:
        factory.check_namespace(namespace)
        if namespace not in present:
            raise NotFound(f"no store {namespace!r} in {where}; stores: {', '.join(present) or 'none'} "
                           "(graphlore stores says what each holds)")
        return namespace
    folders = {name: kind for name, kind in kinds.items() if kind.of_folder is not None}
    if toolset is not None and toolset not in folders:
        raise InvalidInput(f"--toolset must be one of {', '.join(folders)} (the toolsets that index a folder), "
                           f"got {toolset!r}")
    every = folders
    if toolset is not None:
        folders = {toolset: folders[toolset]}
    folder = real_folder(project)
    found = project_stores(settings, folder, folders)
    if not found:
        infos = [describe(settings, n, kinds) for n in present if toolset_of(n, every)]
        indexed = sorted(f"{i.label} ({i.toolset})" for i in infos if i.label)
        raise NotFound(f"no {' or '.join(folders)} store indexes {folder} in {where}; indexed folders: "
                       f"{', '.join(indexed) or 'none'}")
    if len(found) > 1:
        listed = ", ".join(f"{n} ({toolset_of(n, folders)})" for n in found)
        raise InvalidInput(f"{folder} has {len(found)} stores: {listed}; pass --toolset "
                           f"{' or --toolset '.join(sorted({toolset_of(n, folders) for n in found}))}, or "
                           "drop them one by one by namespace")
    return found[0]


@contextmanager
def _writers_done(settings: Settings, kinds: Mapping[str, StoreKind], namespaces: list[str]) -> Iterator[None]:
    """Hold the namespace locks the toolsets' writers hold across transactions, so a running update ends
    first (saying so on stderr when the wait is noticeable)."""
    waiting = threading.Timer(WAIT_NOTICE_S, lambda: click.echo(
        f"waiting for a write in progress on {', '.join(namespaces)} to finish...", err=True))
    waiting.start()
    try:
        with ExitStack() as stack:
            for namespace in namespaces:
                toolset = toolset_of(namespace, kinds)
                for key in kinds[toolset].locks if toolset else ():
                    stack.enter_context(factory.namespace_lock(settings, namespace, key))
            waiting.cancel()
            yield
    finally:
        waiting.cancel()


def drop_command(registry: Mapping[str, str]) -> click.Command:
    @click.command("drop", cls=Documented, examples=(
        "graphlore drop -p examples/feature-management --toolset items --yes", "graphlore drop facts/default --yes"))
    @click.argument("namespace", required=False)
    @click.option("-p", "--project", metavar="PATH", help="The store that indexes this folder (items or code).")
    @click.option("--toolset", metavar="NAME", help="With --project: the toolset whose store (items or code).")
    @click.option("--yes", "-y", is_flag=True, help="Drop without asking (needed when stdin is not a terminal).")
    @click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
    def drop(namespace: str | None, project: str | None, toolset: str | None, yes: bool, as_json: bool) -> None:
        """Delete one store for good: NAMESPACE (as graphlore stores lists it), or --project PATH's index."""
        settings = Settings.load()
        kinds = store_kinds(registry)
        chosen = _chosen(settings, kinds, namespace, project, toolset)
        targets = [chosen, *(n for n in factory.list_namespaces(settings) if n.startswith(f"{chosen}/"))]
        infos = [describe(settings, n, kinds) for n in targets]
        listed = " and ".join(what(i) for i in infos)
        if not yes:
            if not interactive():
                raise InvalidInput(f"graphlore drop deletes {listed} for good and asks first, but stdin is not a "
                                   "terminal: pass --yes to drop it without asking")
            if not click.confirm(f"Drop {listed}? It is deleted for good", default=False, err=True):
                click.echo("nothing was dropped", err=True)
                raise click.exceptions.Exit(1)
        with _writers_done(settings, kinds, targets):
            for name in reversed(targets):  # its own namespaces first: the store itself goes last
                factory.drop_store(settings, name)
        if as_json:
            click.echo(DropResponse(dropped=infos).model_dump_json(indent=2))
        else:
            click.echo("\n".join(f"dropped {what(i)}" for i in infos))

    return drop


# -- graphlore doctor -------------------------------------------------------------------------------------


def render_report(report: Report) -> str:
    """The doctor's screen; the problems it ends with are printed apart, on stderr."""
    lines = _report_lines(report)
    lines.append("")
    lines.append(f"{len(report.problems)} problem(s) found:" if report.problems else "no problems found")
    return "\n".join(lines)


def _llm_text(llm: LLMInfo) -> str:
    key = "API key set" if llm.api_key_set else "no API key"
    return f"model {llm.model or '(not set)'} at {llm.url or '(not set)'} ({key}; not contacted)"


def _report_lines(report: Report) -> list[str]:
    lines = [f"graphlore {report.version}, Python {report.python} ({report.executable})"]

    def row(name: str, text: str) -> None:
        lines.append(f"{name:<14}{text}")

    if report.home is None:
        row("settings", "invalid (see the problem below): nothing else was checked")
        return lines
    row("data folder", report.home + (f" (settings also from {report.config_file})" if report.config_file else ""))
    embedder = report.embedder
    if embedder.kind == "onnx":
        row("embedder", f"{embedder.name}, {embedder.dim} dims, bundled, runs locally")
        for file in embedder.files:
            row(f"  {file.what}", file.path or "MISSING")
            if file.sha256 is not None:
                row("", f"sha256 {file.sha256} ({'as expected' if file.sha256 == file.expected_sha256 else 'DIFFERS'})")
    else:
        key = "API key set" if embedder.api_key_set else "no API key"
        row("embedder", f"{embedder.name} at {embedder.url} ({key}; not contacted)")
    backend = report.backend
    if backend is None:
        row("backend", "unusable (see the problems below)")
    elif backend.name == "sqlite":
        row("backend", f"SQLite, one file per store under {backend.location}")
    else:
        row("backend", f"PostgreSQL {backend.location}")
        if backend.server is not None:
            schema = (f"graphlore schema version {backend.schema_version}" if backend.schema_version is not None
                      else "graphlore schema not made yet (made on first use)")
            vector = f"pgvector {backend.pgvector}" if backend.pgvector else "pgvector not created yet (made on first use)"
            row("", f"server {backend.server}, {vector}, {schema}")
        else:
            row("", "not reached (see the problems below)")
    if report.allowed_roots is None:
        row("allowed roots", "invalid (see the problems below)")
    else:
        row("allowed roots", ", ".join(report.allowed_roots) if report.allowed_roots else
            "none: any folder (an HTTP server reads only under its working directory)")
    if report.llm is not None:
        row("LLM", _llm_text(report.llm) + ("" if report.judge_llm else "; the judge's too"))
    else:
        row("LLM", "none configured (GRAPHLORE_LLM_URL, GRAPHLORE_LLM_MODEL): MCP sampling, else no LLM")
    if report.judge_llm is not None:
        row("judge LLM", _llm_text(report.judge_llm))
    row("HTTP token", "set" if report.auth_token_set else "not set (needed to serve HTTP off loopback)")
    if report.stores is None:
        row("stores", "not read (see the problems below)")
    else:
        row("stores", ", ".join(f"{name} {c.stores} ({human_size(c.size_bytes)})" if c.stores else f"{name} 0"
                                for name, c in report.stores.items()) + "; graphlore stores lists them")
    return lines


def doctor_command(registry: Mapping[str, str]) -> click.Command:
    @click.command("doctor", cls=Documented, examples=("graphlore doctor", "graphlore doctor --json"))
    @click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
    def doctor(as_json: bool) -> None:
        """Show the setup on one screen and check it (exit status 2 when something is broken)."""
        report = diagnose(store_kinds(registry))
        click.echo(report.model_dump_json(indent=2) if as_json else render_report(report))
        for problem in report.problems:
            click.echo(f"error: [{problem.code}] {problem.message}", err=True)
        if report.problems:
            raise click.exceptions.Exit(2)

    return doctor


def commands(registry: Mapping[str, str]) -> list[click.Command]:
    """The commands of this module, for the root group."""
    return [stores_command(registry), drop_command(registry), doctor_command(registry)]
