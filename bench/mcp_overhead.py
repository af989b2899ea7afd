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
import inspect  # noqa: E402
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
#: onnxruntime threads of every embedder here and in the children (--embed-threads; 0: onnxruntime decides)
EMBED_THREADS = 0


def child_env(home: Path, src: Path = SRC) -> dict[str, str]:
    env = {**os.environ, "GRAPHLORE_HOME": str(home), "GRAPHLORE_EMBED_THREADS": str(EMBED_THREADS)}
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
    """Per way, each call's wall time, and its CPU seconds per call: of this process for the ways that run
    here (for the SDK stdio client, the client's share), of the child for the raw stdio ways."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "graphlore", "serve", "items"],
                                   env=child_env(home))
    memory = Client(build_server(load_toolset("items"), runtime))
    raws = {"stdio raw": RawClient(home)}
    if other:
        raws["stdio raw (other)"] = RawClient(home, other)
    spy = None
    if profile is not None:
        spy = subprocess.Popen(["py-spy", "record", "--threads", "--idle", "--rate", "500", "--format", "raw",
                                "--output", str(profile / "server.txt"), "--pid", str(raws["stdio raw"].proc.pid)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # py-spy attaches
    times: dict[str, list[float]] = {way: [] for way in dict.fromkeys([*WAYS, *raws])}
    cpu: dict[str, float] = dict.fromkeys(times, 0.0)
    async with Client(params, read_timeout_seconds=600) as stdio, memory:
        async def sdk(client: Client, arguments: dict) -> None:
            result = await client.call_tool("search", arguments)
            if result.is_error:
                raise SystemExit(f"MCP search failed: {result.content}")

        def raw_call(name: str, arguments: dict) -> None:
            raws[name].request("tools/call", {"name": "search", "arguments": arguments})

        ways = {"tool": lambda a: tools.search(runtime, SearchRequest(**a)),
                "adapter": lambda a: adapter_call(runtime, a),
                "memory": lambda a: sdk(memory, a), "stdio sdk": lambda a: sdk(stdio, a),
                **{name: (lambda a, name=name: raw_call(name, a)) for name in raws}}
        for query in queries[:3]:  # warm every way (model load, caches)
            for call in ways.values():
                done = call({"query": query, "project_path": str(project)})
                if inspect.isawaitable(done):
                    await done
        for query in queries:
            arguments = {"query": query, "project_path": str(project)}
            for way, call in ways.items():
                child = raws[way].proc.pid if way in raws else None
                c0 = cpu_seconds(child) if child else time.process_time()
                t0 = time.perf_counter()
                done = call(arguments)
                if inspect.isawaitable(done):
                    await done
                times[way].append(time.perf_counter() - t0)
                cpu[way] += (cpu_seconds(child) if child else time.process_time()) - c0
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its samples when interrupted
        spy.wait(timeout=60)
    for client in raws.values():
        client.close()
    return times, {way: spent / len(queries) for way, spent in cpu.items()}


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
    parser.add_argument("--embed-threads", type=int, default=0,
                        help="onnxruntime threads, here and in the servers (0: onnxruntime decides, as graphlore "
                             "does by default; 1: no spinning worker threads, steadier CPU figures on a busy machine)")
    parser.add_argument("--also-serve", type=Path, metavar="SRC",
                        help="also call a raw stdio child running the graphlore under this src/ folder")
    args = parser.parse_args()
    global EMBED_THREADS
    EMBED_THREADS = args.embed_threads
    work = args.keep or Path(tempfile.mkdtemp(prefix="graphlore-mcp-overhead-"))
    project, home = work / "feature-management", work / "home"
    try:
        embedder = OnnxEmbedder(threads=args.embed_threads)
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
              f"items; {args.calls} calls per way, round-robin; embed threads {args.embed_threads}; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
        times, cpu = anyio.run(measure, runtime, home, project, queries, args.profile, args.also_serve)
        base = p(times["tool"], 50)
        for way, took in times.items():
            whose = "the child's" if way.startswith("stdio raw") else "the client's" if way == "stdio sdk" else "here"
            print(f"  {way:17s} p50 {p(took, 50):6.2f} ms  p95 {p(took, 95):6.2f} ms  (p50 {p(took, 50) - base:+6.2f} "
                  f"ms over the tool)  CPU {1000 * cpu[way]:5.2f} ms per call ({whose})")
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
