"""The fast part of the reliability suite (the long part: ``bench/reliability.py`` and tests/e2e/).

Every tool of every registered toolset is called through a real MCP client (the SDK's, in memory)
with inputs from :func:`helpers.reliability.cases`: valid calls from the toolset's ``examples`` hook,
and the same calls broken in every way the strategy knows. Each call must come back within the time
limit as a result or a ``[code] message`` error (with the same structured error), never a traceback or
an internal error, and a refused (or read-only) call must leave the data folder exactly as it was. Each
toolset is fuzzed in a server of its own, and all of them together in one server (``all``: the tools
named ``<toolset>_<tool>``, one runtime).
"""

from __future__ import annotations

import os

import anyio
import pytest
from anyio.from_thread import start_blocking_portal
from helpers.reliability import Oracle, Tally, Unsendable, cases, huge_integer_calls
from hypothesis import HealthCheck, Phase, given, settings
from mcp import Client

from graphlore.adapters.command import attach
from graphlore.adapters.mcp import build_server, served_names
from graphlore.config import Settings
from graphlore.runtime import Runtime
from graphlore.toolsets import TOOLSETS, load_toolset

#: Cases per toolset in the everyday run (bench/reliability.py runs 10,000+ over stdio).
CASES = int(os.environ.get("GRAPHLORE_FUZZ_CASES", "150"))
TIMEOUT_S = 60.0


def hostile_paths(folder) -> list[str]:
    """Paths worth trying anywhere: a named pipe, a symlink loop, a dangling link, a directory."""
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    loop = folder / "loop"
    loop.symlink_to(loop)
    dangling = folder / "dangling"
    dangling.symlink_to(folder / "missing")
    return [str(fifo), str(loop), str(dangling), str(folder)]


@pytest.mark.parametrize("name", [*sorted(TOOLSETS), pytest.param("all", marks=pytest.mark.slow)])  # all: ~3.5 s
def test_every_tool_answers_every_input_with_a_result_or_a_structured_error(name, tmp_path, embedder, monkeypatch):
    toolsets = [attach(load_toolset(n)) for n in (TOOLSETS if name == "all" else [name])]
    # the server's working directory, which relative paths (".", "..") resolve against: not the repository
    cwd = tmp_path / "cwd" / "here"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    home = tmp_path / "home"
    setup = Runtime(Settings(home=home), embedder=embedder)
    examples = {}
    for toolset in toolsets:
        folder = tmp_path / "examples" / toolset.name
        folder.mkdir(parents=True)
        examples[toolset.name] = toolset.examples(setup, folder) if toolset.examples else {}
    setup.close()
    extra = hostile_paths(tmp_path)
    server = build_server(toolsets, Runtime(Settings(home=home), embedder=embedder))
    names = served_names(toolsets)
    tally = Tally()
    with start_blocking_portal() as portal:
        client = Client(server)
        with portal.wrap_async_context_manager(client):

            def call(toolset: str, tool: str, arguments: dict):
                async def timed():
                    with anyio.fail_after(TIMEOUT_S):
                        return await client.call_tool(names[(toolset, tool)], arguments)

                try:
                    return portal.call(timed)
                except UnicodeEncodeError as exc:  # the client cannot encode a key with a lone surrogate
                    raise Unsendable from exc

            specs = {(t.name, spec.name): spec for t in toolsets for spec in t.tools}
            oracle = Oracle(specs, home, TIMEOUT_S, call, tally)

            # Every integer field at every huge value, before the random cases: each is refused with the field's
            # name, before any store is read (found by fuzzing: offset 10**100 overflowed SQLite).
            swept = 0
            for toolset in toolsets:
                for spec in toolset.on("mcp"):
                    for place, arguments in huge_integer_calls(spec, examples[toolset.name].get(spec.name, [])):
                        result = call(toolset.name, spec.name, arguments)
                        field = ".".join(map(str, place))
                        assert result.is_error and result.structured_content["error"]["code"] == "invalid_input" \
                            and f"field '{field}'" in result.content[0].text, (spec.name, arguments, result.content)
                        swept += 1
            assert swept or not any(toolset.on("mcp") for toolset in toolsets)

            @settings(max_examples=CASES, deadline=None, database=None, phases=[Phase.generate],
                      suppress_health_check=list(HealthCheck))
            @given(cases(toolsets, examples, extra, surrogates=True))
            def run(case):
                oracle.judge(*case)

            run()
    print(tally.summary())
    assert not tally.failures, f"{tally.summary()}\n" + "\n".join(tally.failures[:15])
    assert tally.cases >= CASES // 2 and tally.refused, tally.summary()
    if any(t.examples for t in toolsets):  # its valid calls get past validation and answer
        assert tally.ok, tally.summary()
