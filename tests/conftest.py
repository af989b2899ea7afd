"""Shared fixtures: the real embedder (loaded once per test session) and the shared data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphsift.config import Settings
from graphsift.embedding import OnnxEmbedder
from graphsift.toolset import Runtime

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
EXAMPLE_TREE = REPO / "examples" / "feature-management"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"needs the shared evaluation data at {SHARED_DATA} (absent on this checkout)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.fixture
def runtime(settings: Settings, embedder: OnnxEmbedder) -> Runtime:
    return Runtime(settings, embedder=embedder)
