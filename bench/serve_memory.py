"""Memory of one server of every toolset against a server of items alone, each after one search of every
toolset it serves, through a real MCP client over stdio.

    python bench/serve_memory.py                 # 3 runs of each server
    python bench/serve_memory.py --repeat 5 --keep /tmp/serve-memory

Run it from the repo root with the package importable (``PYTHONPATH=src`` in a checkout). It builds one
data folder first, through the CLI, so the servers only search: the items tree indexed
(``../shared/data/featmgmt/feature-management``, else ``examples/feature-management``), the facts records
of ``examples/facts/news.jsonl`` ingested, a code tree indexed with its embeddings
(``../shared/data/code/piggymetrics``, else ``tests/fixtures/code/spring-system``) and the skills of ABCD
imported (``../shared/data/abcd/guidelines.json``, else a small intents file written here). Then, ``--repeat`` times for each server (``graphlore serve items``,
``graphlore serve``, and, for what four clients' entries cost before, ``graphlore serve facts``, ``code``
and ``skills``): start it with the MCP SDK's stdio client, list its tools and read its memory (nothing
loaded yet), call one search of each toolset it serves, read its memory again, stop it.

Memory is read from ``/proc/<pid>/status`` of the server process: VmRSS (resident now) and VmHWM (the
peak resident size). Prints every run, the medians, the combined server's median RSS as a share of
``serve items``', and the sum of the four single-toolset servers. Nothing is checked in code.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the MCP harness lives with the tests

from anyio.from_thread import start_blocking_portal  # noqa: E402
from helpers.mcp import ALL, stdio_params, stdio_server_pid  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

SHARED = REPO.parent / "shared" / "data"


def say(line: str = "") -> None:
    print(line, flush=True)


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of ``pid`` in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def graphlore(home: Path, *args: str) -> str:
    env = {**os.environ, "GRAPHLORE_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "graphlore", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"graphlore {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def prepare(work: Path) -> tuple[Path, dict[str, tuple[str, dict[str, Any]]]]:
    """The data folder, and per toolset the one search a server makes (tool, arguments)."""
    home = work / "home"
    items = SHARED / "featmgmt" / "feature-management"
    items = items if items.is_dir() else REPO / "examples" / "feature-management"
    code = SHARED / "code" / "piggymetrics"
    code = code if code.is_dir() else REPO / "tests" / "fixtures" / "code" / "spring-system"
    news = REPO / "examples" / "facts" / "news.jsonl"
    abcd = SHARED / "abcd" / "guidelines.json"
    started = time.monotonic()
    graphlore(home, "items", "index", "-p", str(items))
    graphlore(home, "facts", "ingest", str(news))
    graphlore(home, "code", "index", "-p", str(code))
    if abcd.is_file():
        skills = f"ABCD's {abcd}"
        graphlore(home, "skills", "import", "--format", "abcd", str(abcd))
    else:
        intents = work / "intents.jsonl"
        rows = [("I forgot my password", "reset_password"), ("my parcel arrived broken", "refund"),
                ("where is my order", "track_order")]
        intents.write_text("".join(json.dumps({"text": t, "intent": i}) + "\n" for t, i in rows))
        skills = f"{len(rows)} intents (no ../shared/data/abcd)"
        graphlore(home, "skills", "import", "--format", "intents", str(intents))
    entity = json.loads(news.read_text().splitlines()[0])["entities"][0]["name"]
    say(f"data: items {items}; facts {news}; code {code}; skills {skills} (prepared in "
        f"{time.monotonic() - started:.0f} s)")
    return home, {
        "items": ("search", {"query": "sync conflicts after working offline", "project_path": str(items)}),
        "facts": ("search", {"entity": [entity], "query": "acquisition"}),
        "code": ("search", {"query": "account statistics", "project_path": str(code)}),
        "skills": ("search_skills", {"query": "I was charged twice for my order"}),
    }


def measure(home: Path, toolsets: list[str], searches: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, float]:
    """One server's memory at start (tools listed) and after one search of each of ``toolsets``."""
    params = stdio_params(toolsets[0] if len(toolsets) == 1 else ALL, home)
    params.env = {**os.environ, **params.env}
    with start_blocking_portal() as portal, open(os.devnull, "w") as errlog:
        client = Client(stdio_client(params, errlog=errlog), read_timeout_seconds=600)
        with portal.wrap_async_context_manager(client):
            tools = {t.name for t in portal.call(client.list_tools).tools}
            pid = stdio_server_pid()
            start = memory_mb(pid)
            for name in toolsets:
                tool, arguments = searches[name]
                served = tool if len(toolsets) == 1 else f"{name}_{tool}"
                assert served in tools, (served, sorted(tools))
                result = portal.call(lambda s=served, a=arguments: client.call_tool(s, a))
                if result.is_error:
                    raise SystemExit(f"{served} failed: {result.content[0].text}")
            after = memory_mb(pid)
    return {"start_rss": start["VmRSS"], "rss": after["VmRSS"], "peak": after["VmHWM"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each server (3)")
    parser.add_argument("--keep", type=Path, help="work under this directory and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="graphlore-serve-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        home, searches = prepare(work)
        servers = {"graphlore serve items": ["items"], "graphlore serve": list(searches),
                   **{f"graphlore serve {name}": [name] for name in searches if name != "items"}}
        runs: dict[str, list[dict[str, float]]] = {label: [] for label in servers}
        for number in range(1, args.repeat + 1):
            for label, toolsets in servers.items():  # alternated, so drift on the machine hits both alike
                run = measure(home, toolsets, searches)
                runs[label].append(run)
                say(f"run {number} {label} (searches: {', '.join(toolsets)}): RSS at start {run['start_rss']:.0f} MB, "
                    f"after the searches {run['rss']:.0f} MB, peak {run['peak']:.0f} MB")
        medians = {label: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for label, rs in runs.items()}
        for label, m in medians.items():
            say(f"median {label}: RSS at start {m['start_rss']:.0f} MB, after the searches {m['rss']:.0f} MB, "
                f"peak {m['peak']:.0f} MB")
        single, combined = medians["graphlore serve items"], medians["graphlore serve"]
        say(f"combined / single: RSS after the searches {combined['rss'] / single['rss']:.3f} "
            f"(+{combined['rss'] - single['rss']:.0f} MB), peak {combined['peak'] / single['peak']:.3f} "
            f"(+{combined['peak'] - single['peak']:.0f} MB)")
        four = [medians[f"graphlore serve {name}"] for name in searches]
        say(f"the four single-toolset servers together: RSS after their searches {sum(m['rss'] for m in four):.0f} MB, "
            f"peaks {sum(m['peak'] for m in four):.0f} MB")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
