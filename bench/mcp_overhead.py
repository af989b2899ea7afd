"""What an MCP call costs beyond the tool: items ``search`` in process, through the adapter, and over stdio.

An items tree of N generated items (``items_scale.py``'s generator: GitBugs Hadoop titles and sentences) is
indexed once; then the same queries are sent, in turn, through every way in:

- ``tool``: ``tools.search(runtime, request)`` in this process (what ``items_scale.py`` calls "in process");
- ``adapter``: what the MCP adapter does around it without a transport: ``parse_request`` of the raw
  arguments, ``ToolSpec.call``, the text rendering and the JSON dump of the structured content;
- ``memory``: the MCP SDK's client against ``build_server`` in this process (memory streams, no pipes);
- ``stdio sdk``: the SDK's stdio client against a ``graphlore serve items`` child (what an agent's client does);
- ``stdio raw``: a minimal JSON-RPC client of ours on the same kind of child (one JSON line out, one in), so
  the SDK client's own share shows.

Calls go round-robin (one query through each way, then the next query), so a change of machine load hits
every way alike. Prints p50 / p95 per way, each way's p50 above the tool's, and the CPU time each stdio
child spent per call (all its threads, from ``/proc``). ``--also-serve SRC`` adds a raw stdio child running
the graphlore of another source tree (e.g. before a change), called in the same round-robin. ``--profile DIR`` also
records both ends with py-spy (``pip install py-spy``): the stdio child while the raw client calls it, and
this process while the SDK stdio client does, as collapsed stacks in DIR, with a summary of where the time
goes (own functions grouped by module).

    python bench/mcp_overhead.py [--items 1000] [--calls 200] [--profile DIR] [--keep DIR]
    python bench/mcp_overhead.py --also-serve ../main/src      # before and after a change, one run
    PYTHONPATH=../main/src python bench/mcp_overhead.py    # another tree (its graphlore is imported and served)
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the CLI and server set it, before numpy loads

import argparse  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import anyio  # noqa: E402
import numpy as np  # noqa: E402
from items_scale import Generator, load_gitbugs, write_tree  # noqa: E402

import graphlore  # noqa: E402
from graphlore.adapters.mcp import build_server  # noqa: E402
from graphlore.config import Settings  # noqa: E402
from graphlore.contract import parse_request  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402
from graphlore.toolsets import load_toolset  # noqa: E402
from graphlore.toolsets.items import tools  # noqa: E402
from graphlore.toolsets.items.models import IndexRequest, SearchRequest  # noqa: E402

WAYS = ("tool", "adapter", "memory", "stdio sdk", "stdio raw")
TICKS = os.sysconf("SC_CLK_TCK")
SRC = Path(graphlore.__file__).resolve().parents[1]


def child_env(home: Path, src: Path = SRC) -> dict[str, str]:
    env = {**os.environ, "GRAPHLORE_HOME": str(home)}
    env.pop("GRAPHLORE_DATABASE_URL", None)
    env["PYTHONPATH"] = str(src)
    return env


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far, every thread."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class RawClient:
    """One JSON-RPC line per request over a ``graphlore serve items`` child's pipes (MCP stdio framing)."""

    def __init__(self, home: Path, src: Path = SRC) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "graphlore", "serve", "items"], env=child_env(home, src),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "mcp_overhead", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next_id:
                if "error" in answer or answer["result"].get("isError"):
                    raise SystemExit(f"raw stdio {method} failed: {answer}")
                return answer["result"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def adapter_call(runtime: Runtime, arguments: dict) -> None:
    """The MCP adapter's work around the tool, without a transport: validate, run, render, dump."""
    spec = load_toolset("items").tool("search")
    request = parse_request(spec.request, arguments)
    response = spec.call(runtime, request)
    spec.render(response)
    json.dumps(response.model_dump(mode="json", by_alias=True))


async def measure(runtime: Runtime, home: Path, project: Path, queries: list[str], profile: Path | None,
                  other: Path | None) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Per way, each call's wall time; per stdio child, its CPU seconds per call."""
    from mcp import Client, StdioServerParameters

    ways = [*WAYS, "stdio raw (other)"] if other else list(WAYS)
    times: dict[str, list[float]] = {way: [] for way in ways}
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphlore", "serve", "items"],
                                   env=child_env(home))
    memory = Client(build_server(load_toolset("items"), runtime))
    raw = RawClient(home)
    others = RawClient(home, other) if other else None
    spy = None
    if profile is not None:
        spy = subprocess.Popen(["py-spy", "record", "--threads", "--idle", "--rate", "500", "--format", "raw",
                                "--output", str(profile / "server.txt"), "--pid", str(raw.proc.pid)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # py-spy attaches
    async with Client(params, read_timeout_seconds=600) as stdio, memory:
        for query in queries[:3]:  # warm every way (model load, caches)
            arguments = {"query": query, "project_path": str(project)}
            tools.search(runtime, SearchRequest(**arguments))
            await memory.call_tool("search", arguments)
            await stdio.call_tool("search", arguments)
            raw.request("tools/call", {"name": "search", "arguments": arguments})
            if others is not None:
                others.request("tools/call", {"name": "search", "arguments": arguments})
        cpu0 = {"stdio raw": cpu_seconds(raw.proc.pid), **({"stdio raw (other)": cpu_seconds(others.proc.pid)}
                                                           if others else {})}
        for query in queries:
            arguments = {"query": query, "project_path": str(project)}
            t0 = time.perf_counter()
            tools.search(runtime, SearchRequest(**arguments))
            t1 = time.perf_counter()
            adapter_call(runtime, arguments)
            t2 = time.perf_counter()
            result = await memory.call_tool("search", arguments)
            t3 = time.perf_counter()
            answer = await stdio.call_tool("search", arguments)
            t4 = time.perf_counter()
            raw.request("tools/call", {"name": "search", "arguments": arguments})
            t5 = time.perf_counter()
            if others is not None:
                others.request("tools/call", {"name": "search", "arguments": arguments})
                times["stdio raw (other)"].append(time.perf_counter() - t5)
            if result.is_error or answer.is_error:
                raise SystemExit(f"MCP search failed: {result.content or answer.content}")
            for way, took in zip(WAYS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
                times[way].append(took)
        cpu = {"stdio raw": (cpu_seconds(raw.proc.pid) - cpu0["stdio raw"]) / len(queries)}
        if others is not None:
            cpu["stdio raw (other)"] = (cpu_seconds(others.proc.pid) - cpu0["stdio raw (other)"]) / len(queries)
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its samples when interrupted
        spy.wait(timeout=60)
    raw.close()
    if others is not None:
        others.close()
    return times, cpu


def summarise(path: Path, top: int = 25) -> None:
    """Where the sampled time goes: per thread, the share of samples whose innermost graphlore, mcp,
    pydantic, anyio or starlette frame is each function (idle samples: waiting in select/read)."""
    if not path.exists():
        print(f"  (no samples in {path})")
        return
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        total += int(count)
        label = "(other)"
        for frame in reversed(frames):
            if any(key in frame for key in ("graphlore", "/mcp/", "mcp_types", "pydantic", "anyio", "json")):
                label = frame.split(" (")[0] + " (" + frame.split(" (")[-1].split(":")[0].rsplit("/", 2)[-1]
                break
        own[label] += int(count)
    print(f"  {path.name}: {total} samples")
    for label, count in own.most_common(top):
        print(f"    {100 * count / total:5.1f}%  {label}")


def p(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", type=Path, help="record both ends with py-spy into this folder")
    parser.add_argument("--keep", type=Path, help="work here and keep it (an existing tree and index are reused)")
    parser.add_argument("--also-serve", type=Path, metavar="SRC",
                        help="also call a raw stdio child running the graphlore under this src/ folder")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="graphlore-mcp-overhead-"))
    project, home = work / "feature-management", work / "home"
    try:
        embedder = OnnxEmbedder()
        summaries, sentences = load_gitbugs()
        gen = Generator(embedder, summaries, sentences, args.seed)
        if not project.exists():
            write_tree(project, args.items, gen)
        runtime = Runtime(Settings.load(env={}, home=home), embedder=embedder, watch_files=True)  # as serve does
        indexed = tools.index(runtime, IndexRequest(project_path=str(project)))
        queries = [gen.rng.choice(summaries) for _ in range(args.calls)]
        if args.profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
        print(f"graphlore {graphlore.__version__} from {Path(graphlore.__file__).parent}; {indexed.items_indexed} "
              f"items; {args.calls} calls per way, round-robin", flush=True)
        times, cpu = anyio.run(measure, runtime, home, project, queries, args.profile, args.also_serve)
        base = p(times["tool"], 50)
        for way, took in times.items():
            spent = f"; child CPU {1000 * cpu[way]:5.2f} ms per call" if way in cpu else ""
            print(f"  {way:17s} p50 {p(took, 50):6.2f} ms  p95 {p(took, 95):6.2f} ms  "
                  f"(p50 {p(took, 50) - base:+6.2f} ms over the tool{spent})")
        if args.also_serve:
            print(f"  (other: graphlore under {args.also_serve.resolve()})")
        if args.profile is not None:
            print("where the stdio server's time goes (py-spy, every thread):")
            summarise(args.profile / "server.txt")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
