"""Shared fixtures: the real embedder (loaded once per test process, each text embedded once), the shared data
folder, and the store backend of the run (``GRAPHLORE_TEST_BACKEND``: sqlite, the default, or postgres; see
:mod:`helpers.backend`), and the Hypothesis profile every property test runs under."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import backend
from helpers.paths import EXAMPLE_TREE, REPO, SHARED_DATA  # noqa: F401 - re-exported for older imports
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from graphlore.config import Settings
from graphlore.embedding import OnnxEmbedder
from graphlore.runtime import Runtime

#: Hypothesis' per-example deadline and its ``too_slow`` health check time examples by the wall clock, which a
#: loaded machine stretches (the project's tests make no wall-clock assertions); every property test runs under
#: this profile, with Hypothesis' own example counts.
hypothesis_settings.register_profile("graphlore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile("graphlore")

#: The run caches what it compiles (graphlore's modules, and the test modules pytest rewrites for its assertion
#: messages) in ``__pycache__`` even where PYTHONDONTWRITEBYTECODE is set, as some containers do: compiling them
#: again at every run was half of the everyday run's collection. Set before any
#: test module is imported; processes the tests start keep the environment's setting.
sys.dont_write_bytecode = False

#: source trees the code toolset indexes (their own test files are data, not tests of graphlore)
collect_ignore = ["fixtures"]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"needs the shared evaluation data at {SHARED_DATA} (absent on this checkout)")
    return SHARED_DATA


class RememberingEmbedder(OnnxEmbedder):
    """The bundled model, remembering every text's vector for the rest of the test process: the tests index the
    same example folders and documents again and again (about two texts in three the suite embeds were embedded
    before), and a text's first vector stands for it from then on, as the product's own cache makes it stand."""

    def __init__(self) -> None:
        super().__init__()
        self._vectors: dict[str, np.ndarray] = {}

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        new = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        if new:
            self._vectors.update(zip(new, super().embed_batch(new), strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[text] for text in texts])


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    return RememberingEmbedder()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A fresh data home on the run's backend (on PostgreSQL: a database of its own)."""
    return backend.settings_for(tmp_path / "home")


@pytest.fixture(autouse=True)
def _close_database_pools():
    """On PostgreSQL, each test's pools are closed after it (every home is a database of its own, and
    the server's connections are few); stores that outlive a test open a new pool when next used."""
    yield
    if backend.BACKEND == "postgres":
        from graphlore.store.postgres import connection

        connection.close_all()


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session, exitstatus):
    backend.drop_databases()
    backend.stop_server()


@pytest.fixture
def runtime(settings: Settings, embedder: OnnxEmbedder) -> Runtime:
    return Runtime(settings, embedder=embedder)


@pytest.fixture
def short_empty_grace(monkeypatch):
    """An empty store file is reported as damage once the grace left for a creator in another process
    has passed (2 s); tests of that verdict, not of the wait, give it 0.05 s (the wait has its own test)."""
    monkeypatch.setattr("graphlore.store.factory.EMPTY_GRACE_S", 0.05)


def pytest_configure(config):
    """Ctrl-C is Python's KeyboardInterrupt for the run, as in a terminal. A suite started in the background of a
    non-interactive shell (`nohup ... &`, some CI runners) inherits SIGINT ignored; the Ctrl-C tests would then see
    no KeyboardInterrupt, and the servers they start (which inherit the disposition) would ignore their Ctrl-C."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _sigint_handler_kept():
    """A test that changes the SIGINT handler puts it back: a later test's Ctrl-C (``signal.raise_signal``) would
    otherwise be ignored (the console script sets SIG_IGN once it has its exit status), and which test fails
    would depend on the order. The handler is restored here and the test that left it changed fails."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"the test left SIGINT's handler changed ({before!r} -> {after!r}): restore it")


@pytest.fixture(autouse=True)
def _short_retry_delay(monkeypatch):
    """A failed endpoint call is tried again after 0.5 s (doubled per try); tests of the retry, not of the wait,
    give it 0.01 s."""
    monkeypatch.setattr("graphlore.endpoint.RETRY_DELAY_S", 0.01)


def pytest_collection_modifyitems(config, items):
    """Everything under tests/e2e/ (real processes, real data at full size) is ``slow``."""
    e2e = Path(__file__).parent / "e2e"
    for item in items:
        if Path(str(item.fspath)).is_relative_to(e2e):
            item.add_marker(pytest.mark.slow)
