"""First contact: what a new user meets on the first try (issue 21).

``items``: on a fresh copy of the real feature-management tree (``../shared/data/featmgmt/feature-management``)
and a fresh GRAPHLORE_HOME,

- **time to first answer** of ``search`` from no index through a real MCP stdio client against a
  ``graphlore serve items`` child (the server answers after the structural phase, embedding continues in
  the background): the call's wall time, the scan alone (``list_item_files`` + ``scan_project`` in this
  process), and the time until the background embedding ended (polled with ``get_index_status``);
- the same first ``search`` from the CLI (a one-shot process finishes the embedding inside the call);
- **peak RSS** of ``graphlore items index`` (a child process; its ``ru_maxrss`` from ``wait4``) on the real
  tree and on 2,000 generated items (``bench/items_scale.py``'s generator: GitBugs Hadoop text, 100-250 word
  pieces per item).

Wall times mean little on a loaded machine (``uptime`` is printed); the CPU time of each child is printed
beside it.

    python bench/first_contact.py                 # everything
    python bench/first_contact.py --part items --generated 2000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FEATMGMT = REPO.parent / "shared" / "data" / "featmgmt" / "feature-management"
QUERY = "beads"


def child_env(home: Path) -> dict[str, str]:
    return {**os.environ, "GRAPHLORE_HOME": str(home)}


def run_measured(cmd: list[str], env: dict[str, str]) -> tuple[int, float, float, float, str]:
    """(exit code, wall s, CPU s, peak RSS MB, stdout) of a child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (proc.returncode, time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
            out)


def scan_seconds(tree: Path) -> float:
    from graphlore.toolsets.items.scan import list_item_files, scan_project

    started = time.perf_counter()
    list_item_files(tree, None)
    scan_project(tree, {}, None)
    return time.perf_counter() - started


async def mcp_first_search(tree: Path, home: Path) -> dict:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "graphlore", "serve", "items"],
                                   env=child_env(home))
    async with Client(params, read_timeout_seconds=600) as client:
        started = time.perf_counter()
        result = await client.call_tool("search", {"query": QUERY, "project_path": str(tree)})
        first = time.perf_counter() - started
        answer = json.loads(result.content[0].text)
        while True:
            status = await client.call_tool("get_index_status", {"project_path": str(tree)})
            if not json.loads(status.content[0].text)["partial"]:
                break
            await asyncio.sleep(0.5)
        embedded = time.perf_counter() - started
    return {"first": first, "answer": answer, "embedded": embedded}


def items(generated: int) -> None:
    if not FEATMGMT.is_dir():
        print(f"items: skipped, the real featmgmt tree is not at {FEATMGMT}")
        return
    work = Path(tempfile.mkdtemp(prefix="graphlore-first-contact-"))
    try:
        tree = work / "featmgmt"
        shutil.copytree(FEATMGMT, tree)
        print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
        print(f"scan of the real tree in process: {scan_seconds(tree):.2f} s")

        got = asyncio.run(mcp_first_search(tree, work / "home-mcp"))
        status = got["answer"]["index_status"]
        print(f"MCP stdio, first search {QUERY!r} from no index: {got['first']:.2f} s wall; "
              f"{got['answer']['total_results']} result(s) "
              f"({sum(r['keyword_match'] for r in got['answer']['results'])} by keywords); index_status "
              f"partial={status['partial']} embedded {status['embedded']}/{status['total']} {status['unit']}; "
              f"background embedding ended {got['embedded']:.1f} s after the call began")

        code, wall, cpu, rss, out = run_measured(
            [sys.executable, "-m", "graphlore", "items", "search", QUERY, "-p", str(tree), "--json"],
            child_env(work / "home-cli"))
        answer = json.loads(out) if code == 0 else {}
        print(f"CLI first search {QUERY!r} from no index (embeds inside the call): exit {code}, {wall:.1f} s wall, "
              f"{cpu:.1f} s CPU, peak RSS {rss:.0f} MB, {answer.get('total_results')} result(s)")

        code, wall, cpu, rss, _ = run_measured([sys.executable, "-m", "graphlore", "items", "index", "-p", str(tree)],
                                               child_env(work / "home-index"))
        print(f"full index of the real tree (38 items, 406 passages): exit {code}, {wall:.1f} s wall, {cpu:.1f} s CPU, "
              f"peak RSS {rss:.0f} MB (target <= 600)")

        if generated:
            sys.path.insert(0, str(REPO / "bench"))
            from items_scale import Generator, load_gitbugs, write_tree

            from graphlore.embedding import OnnxEmbedder

            summaries, sentences = load_gitbugs()
            big = work / f"generated-{generated}"
            write_tree(big, generated, Generator(OnnxEmbedder(), summaries, sentences, seed=0))
            code, wall, cpu, rss, _ = run_measured(
                [sys.executable, "-m", "graphlore", "items", "index", "-p", str(big)], child_env(work / "home-gen"))
            print(f"full index of {generated} generated items: exit {code}, {wall:.1f} s wall, {cpu:.1f} s CPU, "
                  f"peak RSS {rss:.0f} MB (target <= 600)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["items"], default="items")
    parser.add_argument("--generated", type=int, default=2000, help="generated items to index (0: skip)")
    args = parser.parse_args()
    if args.part == "items":
        items(args.generated)


if __name__ == "__main__":
    main()
