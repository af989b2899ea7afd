"""The console script raises the collector's first threshold once, and never lowers or re-enables it."""

from __future__ import annotations

import gc
import signal

import pytest

from graphlore import collector
from graphlore.adapters.cli import build_cli


@pytest.fixture
def threshold():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


@pytest.fixture
def sigint():
    """The console script ignores Ctrl-C once it has its exit status (see ``RootGroup.__call__``): put the
    handler back for the tests after this one."""
    saved = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, saved)


def test_the_console_script_raises_the_first_threshold_and_keeps_the_older_ones(threshold, sigint, capsys):
    gc.set_threshold(700, 10, 10)
    with pytest.raises(SystemExit) as exit_:
        build_cli({})(["--version"])
    assert exit_.value.code == 0 and "graphlore" in capsys.readouterr().out
    assert gc.get_threshold() == (collector.YOUNG_THRESHOLD, 10, 10)


@pytest.mark.parametrize("before", [(0, 10, 10), (500_000, 20, 5)])
def test_a_higher_threshold_or_a_collector_switched_off_is_left_as_it_is(threshold, before):
    gc.set_threshold(*before)
    collector.tune()
    assert gc.get_threshold() == before
