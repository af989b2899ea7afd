"""First contact, the verbatim part (issue 21): does every command the README and the SKILL.md files show run
verbatim? (``bench/first_contact.py`` measures the items first contact: time to first answer, peak RSS; this
module is its verbatim part, kept apart so each can run alone.)

    python bench/first_contact_verbatim.py                 # in this environment (graphlore installed)
    python bench/first_contact_verbatim.py --fresh-venv    # in a new venv: python -m venv, pip install -e REPO[extras]

:func:`verbatim_commands` reads the fenced shell blocks of ``README.md`` and ``skills/*/SKILL.md``; a block whose
first line is a comment starting ``# illustrative`` holds commands with placeholders (a reader sees the comment,
the extractor skips the block). :func:`run_verbatim` runs each command with bash, in order, in a copy of the
repository (so ``examples/...`` resolve) with a fresh ``GRAPHLORE_HOME``, stdin closed, and reports which pass:
exit status 0 within the time limit, or, for ``graphlore serve``, still serving when the limit ends (a server
runs until stopped). ``python -m pytest`` is not run (it is the test suite itself), nor is ``pip install``
outside ``--fresh-venv`` (the environment is installed already: a chained command runs without it); both
are reported as not run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Extras the README names for a full first contact (code parsers, the LLM-free test tools are not needed).
EXTRAS = "code"
#: Seconds a command may run (a server: how long it must keep serving).
LIMIT_S = 300.0
SERVE_S = 8.0

_FENCE = re.compile(r"^```(?:bash|sh|shell|console)[^\n]*\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Command:
    source: str
    line: str
    #: the ``export`` / ``eval`` lines before it in its block (each command runs in a shell of its own)
    setup: tuple[str, ...] = ()


@dataclass
class Outcome:
    source: str
    command: str
    status: str  # "pass", "fail", "not run"
    seconds: float = 0.0
    detail: str = ""


def documents(repo: Path = REPO) -> list[Path]:
    return [repo / "README.md", *sorted((repo / "skills").glob("*/SKILL.md"))]


def verbatim_commands(repo: Path = REPO) -> list[Command]:
    """Every command in a fenced shell block of the README and the SKILL.md files, blocks marked
    ``# illustrative`` left out; a command continued with ``\\`` is one command."""
    found = []
    for path in documents(repo):
        for block in _FENCE.findall(path.read_text(encoding="utf-8")):
            lines = block.splitlines()
            if lines and lines[0].strip().lower().startswith("# illustrative"):
                continue
            setup: list[str] = []
            joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
            for line in joined.splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    found.append(Command(str(path.relative_to(repo)), line.strip(), tuple(setup)))
                    if re.match(r"^(export|eval) ", line.strip()):
                        setup.append(line.strip())
    return found


def _not_run(command: str, fresh: bool) -> str | None:
    if re.search(r"\bpython -m pytest\b", command):
        return "the test suite itself"
    if re.search(r"\bpip install\b", command) and not fresh:
        return "installs; run with --fresh-venv"
    return None


def run_verbatim(commands: list[Command], env: dict[str, str], workdir: Path, fresh: bool = False,
                 limit_s: float = LIMIT_S) -> list[Outcome]:
    """Run each command with bash in ``workdir`` (see the module docstring); whatever it left running in the
    background is stopped before the next."""
    outcomes = []
    for each in commands:
        source, command = each.source, each.line
        if not fresh:  # the installs of a chained command: this environment has them
            command = " && ".join(part for part in command.split(" && ") if not re.search(r"\bpip install\b", part))
        reason = _not_run(command, fresh) if command else "installs; run with --fresh-venv"
        if reason is not None:
            outcomes.append(Outcome(source, each.line, "not run", detail=reason))
            continue
        serving = bool(re.match(r"^(\S+=\S+ )*graphlore serve\b", command)) and "&" not in command
        started = time.monotonic()
        script = "\n".join([*each.setup, command])
        proc = subprocess.Popen(["bash", "-c", script], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=SERVE_S if serving else limit_s)
            ok = proc.returncode == 0
            detail = "" if ok else f"exit {proc.returncode}: {(err or out).strip()[-300:]}"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGINT if serving else signal.SIGKILL)
            try:
                proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
            ok, detail = serving, "still serving when stopped" if serving else f"no answer in {limit_s:.0f} s"
        _stop_group(proc.pid)
        outcomes.append(Outcome(source, command, "pass" if ok else "fail", time.monotonic() - started, detail))
    return outcomes


def _stop_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def prepared(workdir: Path, repo: Path = REPO) -> tuple[Path, dict[str, str]]:
    """A copy of the repository's documents and examples in ``workdir`` (``../shared/data`` linked beside it, as
    the README's commands expect), and the environment: a fresh ``GRAPHLORE_HOME``, no database URL."""
    tree = workdir / "repo"
    shutil.copytree(repo, tree, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".venv"))
    shared = repo.parent / "shared"
    if shared.is_dir():
        (workdir / "shared").symlink_to(shared)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHLORE_")}
    env["GRAPHLORE_HOME"] = str(workdir / "home")
    return tree, env


def fresh_venv(workdir: Path, repo: Path, env: dict[str, str]) -> dict[str, str]:
    """A new venv with graphlore installed from ``repo`` (with :data:`EXTRAS`); the environment that uses it."""
    venv = workdir / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-e", f"{repo}[{EXTRAS}]"],
                   check=True)
    return {**env, "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", "VIRTUAL_ENV": str(venv)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh-venv", action="store_true", help="install graphlore in a new venv first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="first-contact-") as tmp:
        tree, env = prepared(Path(tmp))
        if args.fresh_venv:
            env = fresh_venv(Path(tmp), tree, env)
        outcomes = run_verbatim(verbatim_commands(tree), env, tree, fresh=args.fresh_venv)
    for o in outcomes:
        print(f"{o.status:8} {o.seconds:6.1f} s  {o.source}: {o.command[:90]}{'  -- ' + o.detail if o.detail else ''}")
    counts = {s: sum(o.status == s for o in outcomes) for s in ("pass", "fail", "not run")}
    print(f"\n{counts['pass']} pass, {counts['fail']} fail, {counts['not run']} not run, of {len(outcomes)} commands")


if __name__ == "__main__":
    main()
