"""The test run caches the modules it compiles (``tests/conftest.py``), PYTHONDONTWRITEBYTECODE or not: the
assertion rewriting and compiling of every test and graphlore module again at each run cost the everyday run
~18 s CPU."""

from __future__ import annotations

import sys


def test_the_run_writes_what_it_compiles():
    assert sys.dont_write_bytecode is False
