"""The generic CLI: every command is built from a ToolSpec, every failure is one `error: [code] message`
line with exit status 2, and a new toolset is one package plus one registry entry."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading

import click
import pytest
from click.testing import CliRunner

from graphlore.adapters.cli import build_cli
from graphlore.toolsets import TOOLSETS

REGISTRY = {**TOOLSETS, "toy": "helpers.toy_toolset"}


@pytest.fixture
def app():
    return build_cli(REGISTRY)


def invoke(app, *args, env=None):
    return CliRunner(env=env or {}).invoke(app, list(args), catch_exceptions=False)


def test_a_toy_toolset_is_one_package_and_one_registry_entry(app):
    assert "toy" in app.commands and "toy" in app.commands["serve"].params[0].type.choices
    out = invoke(app, "toy", "echo", "hello", "-n", "2", "--shout", "--tags", "a", "--tags", "b", "--mood", "happy",
                 "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout) == {"said": ["HELLO", "HELLO"], "tags": ["a", "b"], "mood": "happy"}
    assert invoke(app, "toy", "echo", "hello").stdout == "hello\n"  # the declared rendering


def test_toolsets_are_imported_only_when_used(tmp_path):
    code = ("import sys; from graphlore.adapters.cli import main; "
            "print(sorted(m for m in sys.modules if m.startswith('graphlore.toolsets.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("args, code, shown", [
    (["toy", "echo"], "invalid_input", "Missing argument 'TEXT'"),
    (["toy", "echo", "x", "-n", "nine"], "invalid_input", "'nine' is not a valid integer"),
    (["toy", "echo", "x", "-n", "9"], "invalid_input", "--times must be at most 5 (got 9)"),
    (["toy", "echo", "x", "--mood", "sad"], "invalid_input", "'sad' is not one of 'calm', 'happy'"),
    (["toy", "echo", "x", "--bogus"], "invalid_input", "No such option '--bogus'"),
    (["toy", "echo", "x", "-mood", "calm"], "invalid_input", "'-mood' is not an option of graphlore toy echo "
                                                             "(long options take two dashes); did you mean '--mood'?"),
    (["toy", "nothing"], "invalid_input", "No such command 'nothing'"),
    (["toy", "fail", "--kind", "not_found"], "not_found", "no such thing; look it up with echo first"),
    (["toy", "fail", "--kind", "bug"], "internal_error", "unexpected ZeroDivisionError: a bug in a tool; this is a bug"),
    (["serve", "toy", "--port", "99999"], "invalid_input", "99999 is not in the range 1<=x<=65535"),
    (["serve", "itms"], "invalid_input", "'itms' is not one of 'items', 'facts', 'code', 'skills', 'toy'"),
    (["serve", "--toolsets", "items,itms"], "invalid_input",
     "--toolsets: no toolset 'itms'; did you mean 'items'? toolsets: code, facts, items, skills, toy"),
    (["serve", "--toolsets", "items,"], "invalid_input", "--toolsets has an empty name; separate names with commas"),
    (["serve", "--toolsets", "code,items,code"], "invalid_input", "--toolsets names 'code' twice"),
    (["serve", "items", "--toolsets", "code"], "invalid_input", "name the toolsets once: as arguments (graphlore "
                                                                "serve items code) or with --toolsets items,code"),
    (["mcp-config", "--toolsets", "fact"], "invalid_input", "did you mean 'facts'?"),
    (["mcp-config", "--client", "zed"], "invalid_input", "'zed' is not one of 'claude-desktop', 'cursor', 'vscode', "
                                                         "'claude-code'"),
    # huge integers are refused by the field's declared range before any store is opened (they overflowed SQLite)
    (["facts", "ls", "entities", "--offset", "1" + "0" * 29], "invalid_input",
     "--offset must be at most 1000000000"),
    (["facts", "exec", "ls entities --offset " + "9" * 40], "invalid_input", "--offset must be at most"),
    (["code", "find", "symbol", "--offset", "1" + "0" * 29, "-p", "."], "invalid_input", "--offset must be at most"),
    (["skills", "ls", "--offset", "1" + "0" * 100], "invalid_input", "--offset must be at most"),
])
def test_every_failure_is_one_error_line_and_exit_2(app, args, code, shown):
    out = invoke(app, *args)
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr.startswith(f"error: [{code}] ") and shown in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.splitlines()) == 1


def test_a_failed_call_is_reported_to_the_tools_on_failure_parsing_included(app, tmp_path):
    """``fail`` declares on_failure: the CLI reports every failed call with the CLI's session and what
    was given, whether click refused the line, the adapter refused a flag, or the tool failed."""
    env = {"GRAPHLORE_HOME": str(tmp_path)}
    for args in (["--kind", "sad"], ["-kind", "bug"], ["--kind=not_found"], ["--kind", "bug"]):
        assert invoke(app, "toy", "fail", *args, env=env).exit_code == 2
    assert invoke(app, "toy", "echo", "x", "-n", "9", env=env).exit_code == 2  # echo has no on_failure
    seen = [json.loads(line) for line in (tmp_path / "toy-failures.jsonl").read_text().splitlines()]
    assert [f["arguments"] for f in seen] == [{"kind": "sad"}, {}, {"kind": "not_found"}, {"kind": "bug"}]
    assert {f["session"] for f in seen} == {"cli"}
    assert "'sad' is not one of 'not_found', 'bug', 'os'" in seen[0]["error"]
    assert "'-kind' is not an option of graphlore toy fail" in seen[1]["error"]
    assert seen[2]["error"].startswith("[not_found] ") and seen[3]["error"] == "a bug in a tool"


def test_a_single_dash_word_of_a_one_value_argument_says_to_quote_it(app):
    out = invoke(app, "toy", "echo", "say", "-louder")
    assert out.exit_code == 2 and out.stderr.rstrip().endswith(
        "if '-louder' is part of TEXT, quote TEXT as one argument")


def test_a_value_that_starts_with_a_dash_is_still_a_value(app):
    assert invoke(app, "toy", "echo", "-n", "1", "--", "-5").stdout == "-5\n"
    out = invoke(app, "toy", "echo", "x", "--tags", "-not-a-flag", "--json")
    assert out.exit_code == 0 and json.loads(out.stdout)["tags"] == ["-not-a-flag"]


def test_a_bug_shows_its_traceback_only_when_asked(app):
    out = invoke(app, "toy", "fail", "--kind", "bug", env={"GRAPHLORE_DEBUG": "1"})
    assert out.exit_code == 2 and "Traceback" in out.stderr and "ZeroDivisionError" in out.stderr


def test_a_bad_setting_is_a_config_error(app, tmp_path):
    out = invoke(app, "toy", "echo", "x", env={"GRAPHLORE_HOME": str(tmp_path), "GRAPHLORE_EMBEDDER": "nope"})
    assert out.exit_code == 2 and out.stderr.startswith("error: [config_error] embedder must be one of")


def test_the_console_script_and_python_m_agree(tmp_path):
    env = {**os.environ, "GRAPHLORE_HOME": str(tmp_path / "home")}
    for command in (["graphlore"], [sys.executable, "-m", "graphlore"]):
        out = subprocess.run([*command, "items", "status", "--bogus"], capture_output=True, text=True, env=env,
                             timeout=60)
        assert out.returncode == 2 and out.stderr.startswith("error: [invalid_input] No such option '--bogus'")
        assert "Traceback" not in out.stderr


# -- help: every command and option of every toolset -----------------------------------------------------


def all_commands() -> list[tuple[list[str], click.Command]]:
    root = build_cli(REGISTRY)
    found = [([], root)]
    for name in root.list_commands(None):
        command = root.get_command(None, name)
        found.append(([name], command))
        if isinstance(command, click.Group):
            for sub in command.list_commands(None):
                found.append(([name, sub], command.get_command(None, sub)))
    return found


COMMANDS = all_commands()


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(["graphlore", *p]) for p, _ in COMMANDS])
def test_every_command_has_help(path, command):
    result = CliRunner().invoke(build_cli(REGISTRY), [*path, "--help"])
    assert result.exit_code == 0 and result.stdout.startswith("Usage: ")
    shown = " ".join(result.stdout.split())
    assert command.help and " ".join(command.help.split("\n")[0].split()) in shown
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"graphlore {' '.join(path)} {param.opts[0]} has no help text"
            for opt in param.opts:
                assert opt in result.stdout


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(["graphlore", *p]) for p, _ in COMMANDS])
def test_every_command_follows_the_cli_convention(path, command):
    """-h is --help everywhere; long options take two dashes; the conventional fields have one flag each."""
    assert CliRunner().invoke(build_cli(REGISTRY), [*path, "-h"]).stdout.startswith("Usage: ")
    conventional = {"--project": "-p", "--limit": "-n"}
    for param in command.params:
        if not isinstance(param, click.Option):
            continue
        assert all(opt.startswith("--") or len(opt) == 2 for opt in param.opts), param.opts
        for long, short in conventional.items():
            if long in param.opts:
                assert short in param.opts, f"graphlore {' '.join(path)} {long} lacks {short}"


def test_a_json_option_reads_a_file_given_as_at_file(app, tmp_path):
    bad = tmp_path / "filter.json"
    bad.write_text('{"role": "CONTROLLER"', encoding="utf-8")
    out = invoke(app, "code", "find", "symbol", "-f", f"@{bad}", "-p", str(tmp_path))
    assert out.exit_code == 2 and "--filter is not JSON" in out.stderr
    out = invoke(app, "code", "find", "symbol", "-f", f"@{tmp_path / 'missing.json'}", "-p", str(tmp_path))
    assert out.exit_code == 2 and "cannot read" in out.stderr and "missing.json" in out.stderr
    good = tmp_path / "good.json"
    good.write_text('{"role": "CONTROLLER"}', encoding="utf-8")
    for given in (f"@{good}", str(good)):  # a plain path that cannot be JSON is read as a file too
        (tmp_path / "tree").mkdir(exist_ok=True)
        out = invoke(app, "code", "find", "symbol", "-f", given, "-p", str(tmp_path / "tree"),
                     env={"GRAPHLORE_HOME": str(tmp_path / "home")})
        assert "no symbol has role 'CONTROLLER'" in out.stdout + out.stderr, out.output
    out = invoke(app, "skills", "create", "--skill", str(tmp_path / "nowhere.json"))
    assert out.exit_code == 2 and "no file has that name either" in out.stderr


def test_declared_examples_end_the_help_and_run(app):
    """A command's Cli.examples are shown under Examples: in its --help, each on a line of its own, and run."""
    help_text = invoke(app, "toy", "echo", "-h").stdout
    assert help_text.rstrip().endswith("Examples:\n  graphlore toy echo hello -n 2 --shout")
    for line in app.commands["toy"].get_command(None, "echo").examples:
        out = invoke(app, *shlex.split(line)[1:])
        assert out.exit_code == 0 and out.stdout == "HELLO\nHELLO\n"


# -- mcp-config ----------------------------------------------------------------------------------------------


def config(app, *args, env=None):
    out = invoke(app, "mcp-config", *args, env=env)
    assert out.exit_code == 0, out.stderr
    return out


def test_mcp_config_prints_each_clients_shape_with_this_installations_command(app):
    desktop = json.loads(config(app).stdout)
    [(name, entry)] = desktop["mcpServers"].items()
    assert name == "graphlore" and entry["args"][-1:] == ["serve"] and set(entry) == {"command", "args"}
    command = [entry["command"], *entry["args"][:-1]]
    assert os.path.isabs(command[0]) and os.access(command[0], os.X_OK)  # a client's PATH may not have it
    assert json.loads(config(app, "--client", "cursor").stdout) == desktop
    vscode = json.loads(config(app, "--client", "vscode", "--toolsets", "skills,items").stdout)
    assert vscode == {"servers": {"graphlore-items-skills": {
        "type": "stdio", "command": entry["command"], "args": [*command[1:], "serve", "--toolsets", "items,skills"]}}}
    line = config(app, "--client", "claude-code", "--read-only").stdout.strip()
    assert shlex.split(line) == ["claude", "mcp", "add", "graphlore", "--", *command, "serve", "--read-only"]


def test_mcp_config_carries_the_data_folder_and_names_the_settings_it_leaves_out(app, tmp_path):
    env = {"GRAPHLORE_HOME": str(tmp_path / "my data"), "GRAPHLORE_AUTH_TOKEN": "s3cret",
           "GRAPHLORE_DATABASE_URL": "postgresql://u:pw@db/x"}
    out = config(app, "--client", "claude-code", env=env)
    assert shlex.split(out.stdout)[:6] == ["claude", "mcp", "add", "graphlore", "-e",
                                           f"GRAPHLORE_HOME={tmp_path / 'my data'}"]  # the name before -e
    assert "s3cret" not in out.stdout + out.stderr and "pw@" not in out.stdout + out.stderr
    assert out.stderr.startswith("note: GRAPHLORE_AUTH_TOKEN, GRAPHLORE_DATABASE_URL set in this shell but not in "
                                 "the snippet")
    desktop = json.loads(config(app, env=env).stdout)
    assert desktop["mcpServers"]["graphlore"]["env"] == {"GRAPHLORE_HOME": str(tmp_path / "my data")}


def test_the_console_scripts_mcp_config_names_the_console_script(tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith("GRAPHLORE_")}
    script = shutil.which("graphlore", path=os.path.dirname(sys.executable))
    out = subprocess.run([script, "mcp-config"], capture_output=True, text=True, env=env, timeout=60, check=True)
    assert json.loads(out.stdout)["mcpServers"]["graphlore"] == {"command": script, "args": ["serve"]}
    assert out.stderr == ""


# -- progress and Ctrl-C ---------------------------------------------------------------------------------------


def test_progress_off_a_terminal_is_a_line_with_its_unit_while_a_step_runs_long(capsys):
    from graphlore.adapters.cli import ProgressReport

    report = ProgressReport("index")
    report.tty, report.every_s = False, 0.01
    report(128, 406, "passages embedded")  # then nothing for a while: the line still comes
    for _ in range(500):
        if "index: 128/406 passages embedded" in capsys.readouterr().err:
            break
        threading.Event().wait(0.01)
    else:
        pytest.fail("no progress line while the step ran")
    report(406, 406, "passages embedded")
    report.close()
    assert capsys.readouterr().err.splitlines()[-1] == "index: 406/406 passages embedded"


def test_a_cancelled_command_stops_at_its_next_progress_report():
    from graphlore.adapters.cli import ProgressReport
    from graphlore.tools import Cancelled

    cancel = threading.Event()
    report = ProgressReport("index", cancel)
    report.tty = False
    report(1, 10, "files read")
    cancel.set()
    with pytest.raises(Cancelled):
        report(2, 10, "files read")
    report.close()


def test_serve_on_a_terminal_says_what_it_is_and_how_to_stop_it(tmp_path):
    """stdin is a terminal (a person typed `graphlore serve`): one line on stderr, nothing on stdout."""
    import pty
    import signal

    leader, follower = pty.openpty()
    env = {**os.environ, "GRAPHLORE_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "graphlore", "serve", "items"], stdin=follower,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    os.close(follower)
    try:
        line = proc.stderr.readline()
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        os.close(leader)
    assert "MCP server on stdin/stdout" in line and "Ctrl-C to stop" in line
    assert out == ""


def test_ctrl_c_while_the_server_waits_for_a_terminals_next_line_stops_it(tmp_path):
    """A terminal's stdin is read by a thread that blocks until a line comes; Ctrl-C (which asyncio turns into
    cancelling the server) once waited for that read, and the server ran on. The test answers one request over
    the terminal first, so the server is surely serving and waiting for the next line when Ctrl-C comes."""
    import json
    import pty
    import signal

    leader, follower = pty.openpty()
    env = {**os.environ, "GRAPHLORE_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "graphlore", "serve", "items"], stdin=follower,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    try:
        request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        os.write(leader, json.dumps(request).encode() + b"\n")
        answer = json.loads(proc.stdout.readline() or b"{}")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)  # a hang's limit, not a measure: it stops within a second
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
        finally:
            os.close(leader)
    assert answer.get("id") == 1 and "serverInfo" in answer["result"]
    assert proc.returncode == 130 and b"interrupted:" in err


def test_ctrl_c_outside_a_commands_work_says_what_was_kept_and_how_to_go_on():
    """Ctrl-C may land before a command's work begins (while its modules load or its store opens), where no tool
    can say what it kept: the general line still names the way on, as every other interrupted line does."""
    code = ("from graphlore.adapters import cli\n"
            "def invoke():\n    raise KeyboardInterrupt\n"
            "cli.run(invoke)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == 130
    assert proc.stderr.decode().strip() == ("interrupted: nothing was written by the step under way (each write is "
                                            "one transaction); run the command again to go on")


def every_command(command: click.Command, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command of the tree, groups included (``graphlore``, ``graphlore facts relation``...), with its path."""
    if not isinstance(command, click.Group):
        return [(path, command)]
    return [(path, command), *(found for name in command.list_commands(None)
                               for found in every_command(command.get_command(None, name), (*path, name)))]


def help_examples(app: click.Command, path: tuple[str, ...]) -> list[str]:
    """The command lines under ``Examples:`` in a command's --help, as a person reads them."""
    shown = CliRunner().invoke(app, [*path, "--help"]).stdout
    _, found, section = shown.partition("\nExamples:\n")
    assert found, f"graphlore {' '.join(path)} --help has no Examples: section"
    return [line.strip() for line in section.splitlines() if line.strip()]


#: Examples a test cannot run as they are, and why; every other example runs in :func:`test_every_help_example_runs`.
NOT_RUN = {
    "graphlore serve --transport http --port 8765": "a server that runs until stopped (the stdio ones end with their input)",
    "graphlore facts extract examples/facts/memo.txt --date 2024-05-02": "needs an LLM (GRAPHLORE_LLM_URL)",
    "graphlore facts resolve-links -n 5": "needs an LLM (GRAPHLORE_LLM_URL)",
    "graphlore facts check-contradictions -n 5": "needs an LLM (GRAPHLORE_LLM_URL)",
    "graphlore migrate --from sqlite --to postgresql://localhost:5432/graphlore": "needs a PostgreSQL server there",
    "graphlore migrate --from sqlite --namespace facts/default --skip-existing": "needs GRAPHLORE_DATABASE_URL",
    'eval "$(graphlore db start)"': "starts a PostgreSQL server of its own (the pgserver extra)",
    "graphlore db stop": "stops that server",
    "graphlore db status": "says whether that server runs (exit status 3 when not)",
    'eval "$(graphlore db url)"': "needs that server running",
}
#: What runs first (builds what the others read) and last (removes it), by a word of the command; ``cat`` reads
#: the latest search, so it runs after the others.
FIRST, LAST = ("index", "ingest", "create", "import", "import-intents"), ("merge", "split", "retract", "archive",
                                                                           "unarchive", "drop")


@pytest.mark.slow  # ~4-15 s: every example of every --help, run
def test_every_help_example_runs(tmp_path, monkeypatch, embedder):
    """Every command's and group's --help ends with Examples:, and each example runs as shown from the repository (the
    bundled examples/) in a fresh data folder and exits 0: what builds an index, a graph or a library first,
    what removes one last. ``SKILL_ID`` (a skill's id is made when it is created) is the id of the skill the
    create example made: the one placeholder. The examples in :data:`NOT_RUN` need a server or an LLM; none
    may read the evaluation data (``../shared/data``), which a user does not have."""
    from helpers.backend import env_for
    from helpers.paths import REPO

    from graphlore.config import Settings
    from graphlore.runtime import Runtime

    for key, value in env_for(tmp_path / "home").items():
        monkeypatch.setenv(key, value)
    app = build_cli(make_runtime=lambda: Runtime(Settings.load(), embedder=embedder))
    lines = [line for path, _ in every_command(app) for line in help_examples(app, path)]
    from graphlore.adapters.command import attach
    from graphlore.toolsets import load_toolset

    declared = {line for name in TOOLSETS for spec in attach(load_toolset(name, TOOLSETS)).on("cli")
                for line in spec.cli.examples}
    assert declared <= set(lines) and len(lines) >= 50

    def order(line: str) -> int:
        words = set(shlex.split(line)[1:3])
        last = [word for word in LAST if word in words]
        return 0 if words & set(FIRST) else 2 if "cat" in words else 3 + LAST.index(last[0]) if last else 1

    monkeypatch.chdir(REPO)
    skill_id, ran = None, []
    for line in sorted(dict.fromkeys(lines), key=order):
        assert "shared/data" not in line, f"{line}: an example needs data a user does not have"
        if line in NOT_RUN:
            continue
        if "SKILL_ID" in line:
            assert skill_id, f"{line}: no skill was created before it"
            line = line.replace("SKILL_ID", skill_id)
        args = shlex.split(line)[1:]
        if args and args[0] == "serve":  # a stdio server ends when its input does
            out = subprocess.run([sys.executable, "-m", "graphlore", *args], stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, f"{line}\n{out.stderr}"
        else:
            out = CliRunner().invoke(app, args, catch_exceptions=False)
            assert out.exit_code == 0, f"{line}\n{out.output}"
            assert out.stdout.strip(), line
            if args[:2] == ["skills", "create"]:
                skill_id = re.search(r"\(([0-9a-f-]{36})\)", out.stdout).group(1)
        ran.append(line)
    assert len(ran) >= len(set(lines)) - len(NOT_RUN) - 1


def test_a_field_with_a_grammar_of_its_own_reads_files_only_on_the_command_line(tmp_path):
    """The rule for ``@FILE`` and a field whose grammar has its own parser (a facts selector): the command line
    reads the file and hands its text to the parser; a command string (sent over MCP) never reads a file,
    even when its value names one."""
    from helpers.toy_toolset import TOOLSET as TOY

    from graphlore.adapters.flags import fields_of, request_fields
    from graphlore.errors import InvalidInput
    from graphlore.tools import Arg
    from graphlore.toolsets.facts.cli import selector

    fields = fields_of(TOY.tool("echo"), {"text": Arg(parse=lambda flag, text: selector(flag, text))})
    selected = tmp_path / "selector.txt"
    selected.write_text("Secret: a value read from a file", encoding="utf-8")
    assert request_fields(fields, {"text": f"@{selected}"})["text"] == {"name": "Secret",
                                                                       "definition": "a value read from a file"}
    with pytest.raises(InvalidInput, match="takes the value itself here"):
        request_fields(fields, {"text": f"@{selected}"}, files=False)
    with pytest.raises(InvalidInput, match="NAME: DEFINITION"):  # the path itself, never the file's text
        request_fields(fields, {"text": str(selected)}, files=False)
